"""The store: what a commit means, and what the host's durability setting changes."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from server.config import ConfigError, load_config
from server.store import SqliteStore


@pytest.fixture
async def store(tmp_path):
    """An open store on ``tmp_path/db.sqlite3`` holding one game, ``g1``."""
    opened = SqliteStore(tmp_path / "db.sqlite3")
    await opened.open()
    await opened.create_game("g1", "t1", "spades", "spades", {}, 7, 0, [], "choose_seats")
    yield opened
    await opened.close()


def synchronous(store: SqliteStore) -> int:
    assert store._conn is not None
    return int(store._conn.execute("PRAGMA synchronous").fetchone()[0])


@pytest.mark.parametrize(("durability", "level"), [("server_crash", 1), ("power_loss", 2)])
async def test_durability_picks_whether_each_commit_waits_for_the_disk(tmp_path, durability,
                                                                        level):
    store = SqliteStore(tmp_path / "db.sqlite3", durability=durability)
    await store.open()
    try:
        assert synchronous(store) == level  # NORMAL: in the OS's hands; FULL: fsynced
    finally:
        await store.close()


async def test_an_acknowledged_action_is_in_the_file_before_the_store_closes(store):
    """What a SIGKILL leaves behind: another process opening the file sees every acked write."""
    await asyncio.gather(*(store.append_action("g1", i, i % 4, {"type": "play", "card": c})
                           for i, c in enumerate(["2C", "3C", "4C", "5C"])))
    assert store.commits < store.writes  # the four actions shared commits
    other = sqlite3.connect(store.path)  # as a restarted server would, with this one alive
    rows = other.execute("SELECT idx, action FROM actions ORDER BY idx").fetchall()
    other.close()
    assert [r[0] for r in rows] == [0, 1, 2, 3]


async def test_one_failing_write_fails_alone(store):
    results = await asyncio.gather(
        store.append_action("g1", 0, 0, {"type": "bid", "value": 3}),
        store.append_action("g1", 0, 1, {"type": "bid", "value": 4}),  # same idx: refused
        store.append_action("g1", 1, 1, {"type": "bid", "value": 5}),
        return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)
    assert await store.action_count("g1") == 2


def test_an_unknown_durability_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="durability must be"):
        load_config(durability="sometimes")
    with pytest.raises(ValueError, match="durability must be one of"):
        SqliteStore(tmp_path / "db.sqlite3", durability="sometimes")


async def test_the_write_ahead_log_stays_bounded_under_steady_writes(store):
    """A busy server commits thousands of times a minute; its WAL must not grow for ever."""
    for i in range(3000):  # one commit each: the worst case for the log
        await store.append_action("g1", i, i % 4, {"type": "play", "card": "2C"})
    wal = Path(store.path + "-wal")
    assert wal.stat().st_size < 8 * 2**20  # 1,000 pages of 4 KiB, and slack

"""Retention: a finished game's moves go after ``keep_moves_seconds``; what the review and
the API read of it does not change, and a game in play keeps every move (each rule on
both stores)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

from tests.game.test_properties import SPADES, play_game
from tests.server.conftest import FAST, http_get, play_until_over, url, wait_for
from tests.server.test_seats import solo_table
from tests.server.test_store import seats_of, target  # noqa: F401  (the fixture)
from trickroom.game.spades import SpadesGame
from trickroom.server import retention
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import ConfigError, load_config
from trickroom.server.retention import Retention
from trickroom.server.store import SqliteStore, Store, open_store
from trickroom.server.store.archive import is_packed
from trickroom.server.store.base import WALK_SQL
from trickroom.server.tables.records import ActionTaken, GameCreated, GameEnded

HOUR = 3600.0


@pytest.fixture
async def store(target):  # noqa: F811
    opened = open_store(target)
    await opened.open()
    yield opened
    await opened.close()


async def played(store: Store, game_id: str, seed: int = 1, ended: bool = True,
                 hands: int | None = None) -> dict[str, Any]:
    """A random game of Spades stored as a table stores one: created, each move, and (if
    ``ended``) its end with its record. Returns the record."""
    cls, rules = SPADES[seed % len(SPADES)]
    game = cls(rules, seed=seed)
    play_game(game, random.Random(seed), stop_after=hands)
    record = game.record()
    for action in record["actions"][::9]:
        if action["type"] == "bid":
            action["why"] = "a sure trick in spades"
    await store.persist([GameCreated(game_id, f"t-{game_id}", "spades", "spades",
                                     record["rules"], seed, record["dealer"],
                                     seats_of("ann", "Bot Hugo", "bob", "Bot Ida"),
                                     "fixed_seating")])
    await store.persist([ActionTaken(game_id, i, a["seat"],
                                     {k: v for k, v in a.items() if k != "seat"})
                         for i, a in enumerate(record["actions"])])
    if ended:
        await store.persist([GameEnded(game_id, game.result().to_wire(), record)])
    return record


async def stored_record(store: Store, game_id: str) -> str:
    """The record text a game's row keeps, as the database holds it."""
    row = await store._fetchone("SELECT record FROM games WHERE id = ?", (game_id,))
    assert row is not None
    return str(row["record"])


async def kept_whole(store: Store, game_id: str, record: dict[str, Any]) -> None:
    """The game's record as every game kept it before records were packed: JSON, whole."""
    await store._write("UPDATE games SET record = ? WHERE id = ?", (json.dumps(record), game_id))


def later(seconds: float):
    return lambda: time.time() + seconds


async def test_a_finished_game_keeps_its_moves_for_keep_moves_seconds_then_only_its_record(
        store):
    record = await played(store, "g1")
    answer = await store.game("g1")
    moves = len(record["actions"])
    assert await Retention(store, HOUR, clock=later(HOUR - 60)).sweep() == 0
    assert await store.action_count("g1") == moves
    assert await Retention(store, HOUR, clock=later(HOUR + 1)).sweep() == moves
    assert await store.action_count("g1") == 0
    assert json.dumps(await store.game("g1")) == json.dumps(answer)
    assert list(SpadesGame.replay((await store.game("g1"))["record"]).scores) \
        == list(SpadesGame.replay(record).scores)


async def test_a_game_in_play_keeps_every_move_and_resumes(store):
    record = await played(store, "live", seed=2, ended=False, hands=1)
    await played(store, "done", seed=3)
    assert await Retention(store, 0).sweep() > 0
    assert await store.action_count("done") == 0
    (resumed,) = await store.unfinished_games()
    assert resumed.created.game_id == "live"
    assert resumed.actions == record["actions"]


async def test_a_game_ended_before_records_were_packed_is_packed_as_its_moves_go(store):
    """A database from before retention: every record whole, every move kept."""
    record = await played(store, "old", seed=4)
    await kept_whole(store, "old", record)
    answer = await store.game("old")
    assert not is_packed(await stored_record(store, "old"))
    assert await Retention(store, 0).sweep() == len(record["actions"])
    assert is_packed(await stored_record(store, "old"))
    assert json.dumps(await store.game("old")) == json.dumps(answer)


async def test_a_record_that_holds_fewer_actions_than_its_moves_keeps_them(store, caplog):
    record = await played(store, "short", seed=5)
    await kept_whole(store, "short", {**record, "actions": record["actions"][:-1]})
    assert await Retention(store, 0).sweep() == 0
    assert await store.action_count("short") == len(record["actions"])
    assert "keeps its" in caplog.text


async def test_a_pass_walks_every_game_with_moves_page_by_page(store, monkeypatch):
    monkeypatch.setattr(retention, "PAGE", 3)
    monkeypatch.setattr(retention, "GAMES_PER_WRITE", 2)
    ended = [f"e{i:02d}" for i in range(8)]
    for i, game_id in enumerate(ended):
        await played(store, game_id, seed=i, hands=1)
    await played(store, "e03x", seed=9, ended=False, hands=1)  # in play, among them
    walked = await store.games_with_moves("", 100)
    assert [g for g, _ in walked] == sorted([*ended, "e03x"])
    assert all((finished is None) == (g == "e03x") for g, finished in walked)
    await Retention(store, 0, pause=0).sweep()
    assert [g for g, _ in await store.games_with_moves("", 100)] == ["e03x"]


async def test_a_pass_seeks_each_game_s_moves_and_never_reads_them_all(store):
    """What a pass costs is the games with moves, not the moves (nor every game played)."""
    if not isinstance(store, SqliteStore):
        pytest.skip("the plan checked is SQLite's (PostgreSQL runs the same SQL on its key)")
    assert store._conn is not None
    plan = str(store._conn.execute("EXPLAIN QUERY PLAN " + WALK_SQL, ("", 10)).fetchall())
    assert "SEARCH actions USING PRIMARY KEY (game_id>?)" in plan
    assert "SCAN actions" not in plan


async def test_nodes_dropping_the_same_moves_at_once_is_harmless(store, target):  # noqa: F811
    """Every node of a cluster runs its own passes over the one database."""
    records = [await played(store, f"c{i}", seed=i, hands=2) for i in range(6)]
    await kept_whole(store, "c2", records[2])  # one from before packing, packed twice
    answers = [json.dumps(await store.game(f"c{i}")) for i in range(6)]
    other = open_store(target)
    await other.open()
    try:
        dropped = await asyncio.gather(Retention(store, 0, pause=0).sweep(),
                                       Retention(other, 0, pause=0).sweep())
        assert sum(dropped) >= sum(len(r["actions"]) for r in records)
        assert await store.games_with_moves("", 100) == []
        assert [json.dumps(await other.game(f"c{i}")) for i in range(6)] == answers
    finally:
        await other.close()


def test_keep_moves_seconds_is_a_number_of_seconds_zero_or_more():
    assert load_config().settings.keep_moves_seconds == 86400
    assert load_config(keep_moves_seconds=0).settings.keep_moves_seconds == 0
    for wrong in (-1, "a day"):
        with pytest.raises(ConfigError, match="keep_moves_seconds"):
            load_config(keep_moves_seconds=wrong)


def test_passes_come_a_twenty_fourth_of_the_time_kept_apart_within_a_minute_and_an_hour():
    assert Retention(None, 0).every == 60  # type: ignore[arg-type]
    assert Retention(None, 4 * HOUR).every == 600  # type: ignore[arg-type]
    assert Retention(None, 86400).every == HOUR  # type: ignore[arg-type]


# -- the whole server: what players and the review see ---------------------------------------


async def robots_play_a_game(app: App) -> str:
    """Four robots play a short game; its id."""
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "host"})
        created = await client.request({"type": "create_table", "room": "spades",
                                        "rules": {"target": 100, "mercy": 100}})
        table_id = created["table"]["id"]
        await client.request({"type": "fill_robots", "table": table_id,
                              "level": "random"})
        machine = app.lobby.tables[table_id].machine
        await wait_for(lambda: machine.state.phase in ("over", "closed"), 120)
        game_id = machine.state.game_id
        assert game_id is not None
        for _ in range(500):  # the machine is over as soon as its end is sent to the store
            if await app.store.game(game_id) is not None:
                return game_id
            await asyncio.sleep(0.01)
        raise AssertionError("the game's end was never stored")


async def test_the_api_answers_the_same_for_a_finished_game_before_and_after_compaction(db):
    """Before: the game as every server kept it until now (its record whole in JSON, every
    move a row); after: its packed record alone. ``GET /api/games/<id>`` answers the very
    same bytes, the review's hands included."""
    app = App(load_config(**FAST, keep_moves_seconds=0), db)
    await app.start("127.0.0.1", 0)
    try:
        game_id = await robots_play_a_game(app)
        stored = await app.store.game(game_id)
        assert stored is not None
        record = stored["record"]
        for action in record["actions"][:4]:  # as a search robot's bids are kept
            action["why"] = f"{action['value']}: about {action['value']}.4 tricks expected"
        await kept_whole(app.store, game_id, record)
        status, _, before = await http_get(app, f"/api/games/{game_id}")
        assert status == 200 and await app.store.action_count(game_id) > 0
        assert await app.retention.sweep() > 0
        assert await app.store.action_count(game_id) == 0
        assert is_packed(await stored_record(app.store, game_id))
        status, _, after = await http_get(app, f"/api/games/{game_id}")
        assert status == 200 and after == before
        assert json.loads(after)["hands"]
    finally:
        await app.stop()


async def test_a_restarted_server_resumes_its_table_after_a_pass(tmp_path):
    db = tmp_path / "trickroom.sqlite3"
    app = App(load_config(**FAST, keep_moves_seconds=0), db)
    await app.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client)
        machine = app.lobby.tables[table_id].machine
        await play_until_over(client, table_id, random.Random(1), stop_after=6)  # our turn
        assert await app.store.games_with_moves("", 10) == [(machine.state.game_id, None)]
        assert await app.retention.sweep() == 0
        played_so_far = list(machine.state.game.actions)
        await app.stop()
    again = App(load_config(**FAST, keep_moves_seconds=0), db)
    await again.start("127.0.0.1", 0)
    try:
        resumed = again.lobby.tables[table_id].machine
        assert resumed.state.game is not None
        assert resumed.state.game.actions[:len(played_so_far)] == played_so_far
    finally:
        await again.stop()

"""Every earlier release's database upgrades: the file or schema each release's own server
wrote (fixtures/: a finished ranked game, a game in play, four players with their
ratings) is migrated to this code's version, reads back through today's store as that
server left it, resumes its game in play, and ends with the schema a new database has.
Migrating it again changes nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import FAST
from tests.server.store.releases import (
    RELEASES,
    postgres_schema_of,
    restore_postgres,
    restore_sqlite,
    said,
    sqlite_schema_of,
)
from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.game.spades import SpadesGame
from trickroom.server.app import App
from trickroom.server.config import load_config
from trickroom.server.retention import Retention
from trickroom.server.store import open_store
from trickroom.server.store.migrations import Upgrade
from trickroom.server.store.sqlite_schema import CHAIN

LATEST = CHAIN[-1].version


@dataclass
class Restored:
    """A release's database, restored for one test."""

    commit: str
    engine: str
    target: str  # what a store opens: a file's path or a URL with ?schema=
    schema: str | None  # PostgreSQL's
    said: dict[str, Any]  # what that release's server said as it wrote it


@pytest.fixture(params=[(c, e) for c in RELEASES for e in ("sqlite", "postgresql")],
                ids=lambda p: f"{p[0]}-{p[1]}")
async def restored(request, tmp_path: Path) -> AsyncIterator[Restored]:
    commit, engine = request.param
    if engine == "sqlite":
        yield Restored(commit, engine, str(restore_sqlite(commit, tmp_path)), None,
                       said(commit, engine))
        return
    need("postgresql")
    schema = fresh_name(f"t_release_{commit}")
    try:
        yield Restored(commit, engine, restore_postgres(commit, schema), schema,
                       said(commit, engine))
    finally:
        await drop_schema(schema)


async def migrated(target: str) -> Upgrade:
    return await open_store(target).migrate()


async def schema_of(db: Restored | str, schema: str | None = None) -> dict[str, Any]:
    if isinstance(db, Restored):
        db, schema = db.target, db.schema
    return await postgres_schema_of(schema) if schema else sqlite_schema_of(db)


async def test_it_is_migrated_from_before_versions_to_this_one_and_again_to_nothing(
        restored: Restored):
    upgrade = await migrated(restored.target)
    assert (upgrade.found, upgrade.latest) == (0, LATEST)
    assert len(upgrade.pending) == LATEST
    schema = await schema_of(restored)
    again = await migrated(restored.target)
    assert (again.found, again.pending) == (LATEST, ())
    assert await schema_of(restored) == schema


async def test_it_has_the_schema_a_new_database_has(restored: Restored, tmp_path: Path):
    await migrated(restored.target)
    if restored.schema is None:
        fresh = str(tmp_path / "new.sqlite3")
        await migrated(fresh)
        assert await schema_of(restored) == await schema_of(fresh)
        return
    fresh = fresh_name("t_new")
    try:
        await migrated(f"{POSTGRES}?schema={fresh}")
        assert await schema_of(restored) == await schema_of(fresh, fresh)
    finally:
        await drop_schema(fresh)


async def test_its_players_games_and_ratings_read_back_as_its_server_left_them(
        restored: Restored):
    store = open_store(restored.target)
    await store.open()
    try:
        finished, users = restored.said["finished"], restored.said["users"]
        for name in users:
            assert (await store.user_hash(name.upper()))[0] == name  # any case, one account
            assert (await store.account(name))["rank_me"] == 1
        game = await store.game(finished["id"])
        assert game is not None
        assert (game["table"], game["room"], game["game"]) == (
            finished["table"], finished["room"], "spades")
        assert game["result"]["scores"] == finished["scores"]
        assert list(SpadesGame.replay(game["record"]).scores) == finished["scores"]
        assert [{k: c[k] for k in ("player", "delta", "after")}
                for c in game["ratings"]] == finished["ratings"]
        for shown in finished["ratings"]:
            player = await store.player(shown["player"])
            [rating] = player["ratings"]
            assert (rating["game"], rating["system"]) == ("spades", "zone")
            assert rating["rating"] == shown["after"]["value"]
            [point] = rating["history"]
            assert (point["game_id"], point["delta"]) == (finished["id"], shown["delta"])
            [recent] = player["recent_games"]
            assert recent["game_id"] == finished["id"] and recent["rated"]
            # the games export (issue 36): its ended game, never the one in play
            assert [g for g, _ in await store.player_games(shown["player"], 10)] == \
                [finished["id"]]
        board = await store.leaderboard("spades", "zone", min_games=1)
        assert sorted(p["player"] for p in board) == sorted(users)
        in_play = restored.said["in_play"]
        stored = await store.unfinished_game(in_play["table"])
        assert stored is not None and stored.created.game_id == in_play["id"]
        assert len(stored.actions) == await store.action_count(in_play["id"]) \
            == in_play["actions"]
        assert await store.game(in_play["id"]) is None  # still in play: not public
    finally:
        await store.close()


async def test_its_game_in_play_resumes_on_a_server_of_this_version(restored: Restored):
    in_play = restored.said["in_play"]
    store = open_store(restored.target)
    await store.open()
    try:
        stored = await store.unfinished_game(in_play["table"])
    finally:
        await store.close()
    assert stored is not None and len(stored.actions) == in_play["actions"]
    app = App(load_config(**FAST), restored.target)
    await app.start("127.0.0.1", 0)
    try:
        machine = app.lobby.tables[in_play["table"]].machine
        assert machine.state.game_id == in_play["id"] and machine.state.game is not None
        # The same game, from where it stopped (robots may already play the empty seats).
        played = machine.state.game.actions[:in_play["actions"]]
        assert [{"seat": seat, **action.to_wire()} for seat, action in played] \
            == stored.actions
    finally:
        await app.stop()


async def test_retention_packs_its_finished_game_and_drops_that_game_s_moves_alone(
        restored: Restored):
    """Its finished game's record was kept whole and its moves all kept: a pass packs the
    one and drops the other, and the game reads the same; the game in play keeps all."""
    finished, in_play = restored.said["finished"], restored.said["in_play"]
    store = open_store(restored.target)
    await store.open()
    try:
        answer = json.dumps(await store.game(finished["id"]))
        moves = await store.action_count(finished["id"])
        assert moves > 0
        assert await Retention(store, 0, pause=0).sweep() == moves
        assert await store.action_count(finished["id"]) == 0
        assert json.dumps(await store.game(finished["id"])) == answer
        assert await store.action_count(in_play["id"]) == in_play["actions"]
    finally:
        await store.close()

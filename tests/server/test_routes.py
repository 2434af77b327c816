"""The HTTP side of the one port, and lobby behaviour players rely on."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack

from tests.server.conftest import FAST, http_get, play_until_over, seat_four, url, wait_for
from tests.server.test_seats import solo_table
from trickroom.ratings import SYSTEMS, GameResult, Rating
from trickroom.ratings import Seat as RatedSeat
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.tables.records import Rated


async def test_health_page_rooms_and_metrics_share_the_port(app):
    status, _, body = await http_get(app, "/healthz")
    assert status == 200 and body == b"ok\n"
    status, headers, body = await http_get(app, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"trickroom" in body
    status, _, body = await http_get(app, "/api/rooms")
    rooms = {r["name"]: r for r in json.loads(body)["rooms"]}
    assert not rooms["spades"]["rated"] and not rooms["hearts"]["rated"]
    ranked = {(r["game"], r["system"]) for r in rooms.values() if r["rated"]}
    for game in ("spades", "hearts"):
        assert {(game, s) for s in ("zone", "wocg", "points_en")} <= ranked
    status, _, body = await http_get(app, "/metrics")
    assert status == 200 and b"trickroom_connections" in body
    assert (await http_get(app, "/../pyproject.toml"))[0] == 404
    assert (await http_get(app, "/api/games/nope"))[0] == 404


async def test_a_finished_games_record_is_served_and_replays(app):
    async with TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client, rules={"target": 100, "mercy": 50})
        await asyncio.wait_for(play_until_over(client, table_id, random.Random(3)), 120)
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        status, _, body = await http_get(app, f"/api/games/{table.state.game_id}")
        record = json.loads(body)
        assert status == 200 and record["result"]["finished"]
        assert record["record"]["actions"] == table.state.game.record()["actions"]
        assert all("token_hash" not in seat for seat in record["seats"])
        status, _, body = await http_get(app, "/api/tables?room=spades")
        assert any(t["id"] == table_id for t in json.loads(body)["tables"])


async def test_a_malformed_or_unknown_game_id_gets_its_clear_error(db):
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            table_id, _ = await solo_table(client)
            machine = app.lobby.tables[table_id].machine
            await wait_for(lambda: machine.state.game_id is not None)
            playing = machine.state.game_id
            # Asked while its player is still here (gone, the robots would finish the
            # game in a moment, and a finished game is there to read).
            for wrong in ("nope", playing, "%00", "a%00b", "%ff%fe", "x" * 2000,
                          "..%2F..%2Fetc", "'%3B%20DROP%20TABLE%20games%3B--",
                          "%F0%9F%82%A1", "%20"):
                status, _, body = await http_get(app, f"/api/games/{wrong}")
                assert (status, json.loads(body)) == (
                    404, {"error": "no finished game with that id"}), wrong
    finally:
        await app.stop()


async def test_a_human_who_does_not_act_in_time_gets_one_robot_move(tmp_path):
    app = App(load_config(**{**FAST, "turn_seconds": 0.3}), tmp_path / "db.sqlite3")
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            table_id, _ = await solo_table(client, rules={"target": 500})
            table = app.lobby.tables[table_id].machine
            await wait_for(lambda: table.state.game.to_act == 0)
            before = len(table.state.game.actions)
            await wait_for(lambda: len(table.state.game.actions) > before)
            assert table.state.game.actions[before][0] == 0  # the robot acted for seat 0
            assert table.state.seats[0].kind == "human" and table.state.seats[0].client is not None
    finally:
        await app.stop()


async def test_a_room_may_set_its_own_turn_timer(tmp_path):
    config = tmp_path / "rooms.toml"
    config.write_text('[server]\nturn_seconds = 30\n[[rooms]]\nname = "blitz"\n'
                      'game = "hearts"\nturn_seconds = 5\n[[rooms]]\nname = "slow"\n'
                      'game = "spades"\n')
    loaded = load_config(config)
    assert loaded.rooms["blitz"].turn_seconds == 5
    assert loaded.rooms["slow"].turn_seconds is None
    server = App(loaded, tmp_path / "db.sqlite3")
    await server.start("127.0.0.1", 0)
    try:
        blitz = await server.lobby.new_table("blitz", {}, "fixed_seating")
        slow = await server.lobby.new_table("slow", {}, "fixed_seating")
        assert blitz.machine.turn_seconds == 5 and slow.machine.turn_seconds == 30
    finally:
        await server.stop()


async def test_the_lobby_pushes_seat_changes_to_the_rooms_subscribers(app):
    async with TrickroomClient.connect(url(app)) as watcher, \
            TrickroomClient.connect(url(app)) as player:
        await watcher.request({"type": "guest"})
        await watcher.request({"type": "list_tables", "room": "hearts"})
        await player.request({"type": "guest", "name": "p"})
        created = await player.request({"type": "create_table", "room": "hearts"})
        await player.request({"type": "sit", "table": created["table"]["id"], "seat": 2})
        await wait_for(lambda: any(
            m.get("type") == "table_update" and m["table"]["seats"][2]["name"] == "guest-p"
            for m in watcher.received))


async def test_play_again_starts_a_new_game_with_the_same_seats(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        table_id, _ = await seat_four(app, "hearts", {"target": 30}, clients)
        await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table_id, random.Random(i)) for i, c in enumerate(clients))), 120)
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        first_game = table.state.game_id
        for client in clients:
            await client.request({"type": "play_again", "table": table_id})
        await wait_for(lambda: table.state.phase == "playing" and table.state.game_id != first_game)
        assert [s.name for s in table.state.seats] == [f"guest-p{i}" for i in range(4)]


async def test_tables_of_an_unknown_or_missing_room_is_an_error_naming_the_rooms(app):
    for path in ("/api/tables", "/api/tables?room=nope"):
        status, _, body = await http_get(app, path)
        assert status == 404 and "spades" in json.loads(body)["error"]
    status, _, body = await http_get(app, "/api/tables?room=spades")
    assert status == 200 and json.loads(body) == {"tables": [], "total": 0}


async def test_ratings_are_shown_on_the_systems_familiar_scale_with_the_raw_numbers_beside(app):
    """Weng-Lin's μ would rank a lucky newcomer first; the leaderboard ranks by the number a
    player reads (its conservative skill, on Elo's scale from 1500) and keeps μ and σ."""
    players = ["ann", "bob", "cat", "dan"]
    for name in players:
        await app.store.create_user(name, "x")
    system = SYSTEMS["openskill_tuned"]
    seats = tuple(RatedSeat(i, name) for i, name in enumerate(players))
    # ann wins one game of Hearts; bob, cat and dan play many, bob winning most.
    for n in range(12):
        scores = (40, 102, 77, 64) if n == 0 else (90, 20, 70, 60)
        now = await app.store.standings(players, "hearts", "openskill_tuned")
        start = {p: now[p].rating if p in now else system.start_rating for p in players}
        result = GameResult("hearts", "openskill_tuned", "fixed_seating", seats, scores)
        await app.store.persist([Rated(f"shown-{n}", result, tuple(system.rate(result, start)))])
    status, _, body = await http_get(app, "/api/leaderboard?game=hearts&system=openskill_tuned")
    assert status == 200
    board = json.loads(body)["players"]
    shown = [entry["shown"] for entry in board]
    assert shown == sorted(shown, reverse=True)
    for entry in board:
        assert entry["shown"] == round(system.shown(Rating(entry["rating"], entry["sigma"])), 1)
        assert 0 <= entry["shown"] <= 3000
    status, _, body = await http_get(app, "/api/players/bob")
    [rating] = json.loads(body)["ratings"]
    assert rating["shown"] == next(e["shown"] for e in board if e["player"] == "bob")

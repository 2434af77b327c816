"""BOT accounts and the bot ladder (issue 36, item 1), over the live socket and HTTP: an
account becomes a BOT's for good, is marked as one at its seat and in its profile, never
sits at people's ranked tables, and is rated on the bot ladder apart from people."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST, http_get, play_until_over, url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config

LADDER = """
[[rooms]]
name = "spades"
game = "spades"

[[rooms]]
name = "spades-wocg"
game = "spades"
rated = true
system = "wocg"

[[rooms]]
name = "bots-spades"
game = "spades"
rated = true
system = "wocg"
players = "bots"
rules = { hand_limit = 1 }
"""


@pytest.fixture
async def ladder_app(tmp_path):
    rooms = tmp_path / "rooms.toml"
    rooms.write_text(LADDER)
    app = App(load_config(rooms, **FAST, password_profile="cheapest", min_games=0),
              tmp_path / "t.sqlite3")
    await app.start("127.0.0.1", 0)
    yield app
    await app.stop()


async def registered(stack: AsyncExitStack, app: App, name: str, bot: bool = False,
                     address: str = "127.0.0.1") -> TrickroomClient:
    client = await stack.enter_async_context(
        TrickroomClient.connect(url(app), local_addr=(address, 0)))
    await client.request({"type": "register", "name": name, "password": name * 3})
    if bot:
        await client.request({"type": "upgrade_to_bot", "confirm": True})
    return client


async def test_an_account_becomes_a_bot_s_for_good_and_only_when_confirmed(ladder_app):
    app = ladder_app
    async with AsyncExitStack() as stack:
        guest = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await guest.request({"type": "guest"})
        error = await refused(guest, {"type": "upgrade_to_bot", "confirm": True})
        assert error["code"] == "not_authorized"
        robo = await registered(stack, app, "robo")
        error = await refused(robo, {"type": "upgrade_to_bot"})
        assert error["code"] == "confirm_required" and "for good" in error["message"]
        assert not (await app.store.account("robo"))["bot"]  # nothing changed
        await robo.request({"type": "upgrade_to_bot", "confirm": True})
        error = await refused(robo, {"type": "upgrade_to_bot", "confirm": True})
        assert error["code"] == "invalid_field" and "already" in error["message"]
        again = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        welcome = await again.request({"type": "login", "name": "robo",
                                        "password": "roboroborobo"})
        assert welcome["bot"] is True
        status, _, body = await http_get(app, "/api/players/robo")
        assert status == 200 and json.loads(body)["bot"] is True


async def test_an_account_rated_as_a_person_may_not_become_a_bot(ladder_app):
    app = ladder_app
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        await app.store._write("INSERT INTO rating_history (player, kind, system, game_id, "
                               "time, value, sigma, delta) VALUES "
                               "('ann', 'spades', 'wocg', 'g-1', 1, 1510, 0, 10)", ())
        error = await refused(ann, {"type": "upgrade_to_bot", "confirm": True})
        assert error["code"] == "not_eligible" and "new account" in error["message"]
        assert not (await app.store.account("ann"))["bot"]


async def test_a_bot_is_marked_at_its_seat_and_sits_at_casual_tables(ladder_app):
    app = ladder_app
    async with AsyncExitStack() as stack:
        robo = await registered(stack, app, "robo", bot=True)
        ann = await registered(stack, app, "ann")
        made = await ann.request({"type": "create_table", "room": "spades"})
        table = made["table"]["id"]
        await ann.request({"type": "sit", "table": table, "seat": 0})
        await robo.request({"type": "sit", "table": table, "seat": 1})
        listing = await ann.request({"type": "list_tables", "room": "spades"})
        seats = listing["tables"][0]["seats"]
        assert [s["bot"] for s in seats] == [False, True, False, False]


async def test_bots_and_people_are_ranked_apart(ladder_app):
    app = ladder_app
    async with AsyncExitStack() as stack:
        robo = await registered(stack, app, "robo", bot=True)
        ann = await registered(stack, app, "ann")
        for client, room, words in ((robo, "spades-wocg", "bot ladder"),
                                    (ann, "bots-spades", "BOT accounts")):
            for request in ({"type": "queue", "room": room},
                            {"type": "create_table", "room": room}):
                error = await refused(client, request)
                assert error["code"] == "not_eligible" and words in error["message"]
            rooms = {r["name"]: r for r in (await client.request({"type": "list_rooms"}))["rooms"]}
            assert words in rooms[room]["not_eligible"]
        rooms = {r["name"]: r for r in (await robo.request({"type": "list_rooms"}))["rooms"]}
        assert rooms["bots-spades"]["not_eligible"] is None
        assert rooms["bots-spades"]["players"] == "bots"
        assert rooms["spades-wocg"]["players"] == "people"
        # A person's ranked table refuses a BOT's sit too, even as a substitute.
        await ann.request({"type": "create_table", "room": "spades-wocg"})
        tables = await robo.request({"type": "list_tables", "room": "spades-wocg"})
        error = await refused(robo, {"type": "sit", "table": tables["tables"][0]["id"]})
        assert error["code"] == "not_eligible"


async def test_four_bots_play_the_ladder_and_have_its_leaderboard(ladder_app):
    app = ladder_app
    async with AsyncExitStack() as stack:
        # Four authors' bots: the queue seats four address groups, as for people.
        bots = [await registered(stack, app, f"bot{i}", bot=True, address=f"127.0.0.{30 + i}")
                for i in range(4)]
        for client in bots:
            await client.request({"type": "queue", "room": "bots-spades"})
        tables = []
        for client in bots:
            await wait_for(lambda c=client: any(m.get("type") == "seated"
                                                for m in c.received))
            tables.append(next(m for m in client.received if m.get("type") == "seated"))
        table = tables[0]["table"]
        assert {t["table"] for t in tables} == {table}
        await asyncio.gather(*(play_until_over(c, table, random.Random(i))
                               for i, c in enumerate(bots)))
        info = app.lobby.tables[table].machine.info()
        assert all(s.bot for s in info.seats)
        await wait_for(lambda: app.lobby.tables[table].machine.state.phase == "over")
    _, _, body = await http_get(app, "/api/leaderboard?game=spades&system=wocg&ladder=bots")
    board = json.loads(body)
    assert board["ladder"] == "bots"
    assert sorted(p["player"] for p in board["players"]) == [f"bot{i}" for i in range(4)]
    _, _, body = await http_get(app, "/api/leaderboard?game=spades&system=wocg")
    assert json.loads(body)["players"] == []  # people's board: no BOT on it
    status, _, _ = await http_get(app, "/api/leaderboard?game=spades&system=wocg&ladder=x")
    assert status == 400

"""For bots (issue 36, item 2), over the live socket: a seek for a game against robots,
the event stream of an account's games, and challenges to and from BOT accounts."""

from __future__ import annotations

import random
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST, next_pushed, play_until_over, url
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


@pytest.fixture
async def cheap_app(tmp_path):
    app = App(load_config(**FAST, password_profile="cheapest"), tmp_path / "t.sqlite3")
    await app.start("127.0.0.1", 0)
    yield app
    await app.stop()


async def bot_account(stack: AsyncExitStack, app: App, name: str) -> TrickroomClient:
    client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
    await client.request({"type": "register", "name": name, "password": name * 3})
    await client.request({"type": "upgrade_to_bot", "confirm": True})
    return client


async def test_a_seek_seats_the_bot_against_robots_and_the_game_starts(cheap_app):
    app = cheap_app
    async with AsyncExitStack() as stack:
        robo = await bot_account(stack, app, "robo")
        seated = await robo.request({"type": "seek", "room": "spades", "level": "random",
                                     "rules": {"hand_limit": 1}})
        assert seated["type"] == "seated" and seated["seat"] == 0 and seated["seat_token"]
        table = seated["table"]
        info = app.lobby.tables[table].machine.info()
        assert [s.kind for s in info.seats] == ["human", "robot", "robot", "robot"]
        assert info.seats[0].bot and {s.robot_level for s in info.seats[1:]} == {"random"}
        start = await next_pushed(robo, "game_start")
        assert (start["table"], start["seat"], start["room"]) == (table, 0, "spades")
        await play_until_over(robo, table, random.Random(2))
        finish = await next_pushed(robo, "game_finish")
        assert finish["game_id"] == start["game_id"] and finish["abandoned"] is False


async def test_a_seek_in_the_bot_ladder_is_its_queue_and_a_people_s_ranked_room_has_none(
        cheap_app):
    app = cheap_app
    async with AsyncExitStack() as stack:
        robo = await bot_account(stack, app, "robo")
        status = await robo.request({"type": "seek", "room": "bots-hearts"})
        assert status["type"] == "queue_status" and status["room"] == "bots-hearts"
        for request, code, words in (
                ({"type": "seek", "room": "spades-zone"}, "invalid_field", "queue"),
                ({"type": "seek", "room": "bots-spades", "rules": {"target": 100}},
                 "invalid_field", "host's rules"),
                ({"type": "seek", "room": "spades", "level": "genius"}, "invalid_field",
                 "level"),
                ({"type": "seek", "room": "nowhere"}, "not_found", "nowhere")):
            error = await refused(robo, request)
            assert error["code"] == code and words in error["message"], error
        assert app.lobby.tables == {}  # no refused seek opened a table


async def test_the_event_stream_is_for_registered_players(cheap_app):
    async with TrickroomClient.connect(url(cheap_app)) as guest:
        await guest.request({"type": "guest"})
        error = await refused(guest, {"type": "events"})
        assert error["code"] == "not_authorized"


async def test_a_person_challenges_a_bot_which_accepts_and_plays(cheap_app):
    app = cheap_app
    async with AsyncExitStack() as stack:
        robo = await bot_account(stack, app, "robo")
        ann = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await ann.request({"type": "register", "name": "ann", "password": "ann-ann"})
        sent = await ann.request({"type": "challenge", "room": "hearts",
                                  "seats": ["ann", "robo", None, None],
                                  "rules": {"hand_limit": 1}})
        challenged = (await next_pushed(robo, "challenged"))["challenge"]
        assert challenged["bots"] == ["robo"] and challenged["by"] == "ann"
        await robo.request({"type": "answer_challenge", "challenge": sent["challenge"]["id"],
                            "accept": True})
        over = await next_pushed(robo, "challenge_over")
        assert over["outcome"] == "accepted"
        for client in (ann, robo):
            await client.request({"type": "sit", "table": over["table"]})
        start = await next_pushed(robo, "game_start")
        assert start["table"] == over["table"] and start["seat"] == 1
        assert app.lobby.tables[over["table"]].machine.info().seats[1].bot


async def test_a_bot_declines_a_challenge_saying_it_plays_only_bots(cheap_app):
    app = cheap_app
    async with AsyncExitStack() as stack:
        robo = await bot_account(stack, app, "robo")
        ann = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await ann.request({"type": "register", "name": "ann", "password": "ann-ann"})
        sent = await ann.request({"type": "challenge", "room": "spades",
                                  "seats": ["ann", "robo", None, None]})
        await next_pushed(robo, "challenged")
        await robo.request({"type": "answer_challenge", "challenge": sent["challenge"]["id"],
                            "accept": False, "reason": "only_bots"})
        over = await next_pushed(ann, "challenge_over")
        assert over["outcome"] == "declined" and over["reason"] == "only_bots"

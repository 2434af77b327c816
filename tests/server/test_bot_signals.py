"""What a bot is told (issue 36, item 3 and the version of item 6): every prompt carries
when its turn ends by the server's clock, a seat whose time ran out hears ``timed_out``
before the robot's move, a client over the rate is told once that it is slowed, and the
protocol has a version a client may state."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack

from tests.server.conftest import next_pushed, url
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient
from trickroom.server.protocol import PROTOCOL


async def solo(stack: AsyncExitStack, app,
               name: str = "solo") -> tuple[TrickroomClient, str, str]:
    """A guest at seat 0 of a Spades table with three robots (its first prompt is coming):
    the client, the table and its seat token."""
    client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
    await client.request({"type": "guest", "name": name})
    table = (await client.request({"type": "create_table", "room": "spades"}))["table"]["id"]
    token = (await client.request({"type": "sit", "table": table, "seat": 0}))["seat_token"]
    await client.request({"type": "fill_robots", "table": table})
    return client, table, token


async def test_a_prompt_says_when_its_turn_ends_and_a_repeat_says_the_time_left(make_app):
    app = await make_app(turn_seconds=30.0, robot_delay=0.0)
    async with AsyncExitStack() as stack:
        client, table, token = await solo(stack, app)
        prompt = await next_pushed(client, "prompt")
        assert prompt["deadline"] - prompt["now"] == prompt["seconds"] == 30.0
        assert abs(prompt["now"] - time.time()) < 5  # the server's Unix clock
        await asyncio.sleep(0.3)  # a while into the turn, the player rejoins
        await client.request({"type": "rejoin", "table": table, "seat_token": token,
                              "last_seq": 0})
        repeat = await next_pushed(client, "prompt")
        assert repeat["deadline"] == prompt["deadline"]  # the same turn, the same clock
        assert repeat["seconds"] < prompt["seconds"]


async def test_a_seat_out_of_time_hears_timed_out_then_the_robot_s_move(make_app):
    app = await make_app(turn_seconds=0.2, robot_delay=0.0)
    async with AsyncExitStack() as stack:
        client, table, _ = await solo(stack, app)
        watcher = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await watcher.request({"type": "guest", "name": "rail"})
        await watcher.request({"type": "watch", "table": table})
        prompt = await next_pushed(client, "prompt")
        events = []
        async with asyncio.timeout(10):
            while not any(e["type"] == "bid" and e["seat"] == prompt["seat"] for e in events):
                message = await next_pushed(client, "event")
                events.append(message["event"])
        kinds = [e["type"] for e in events]
        assert "timed_out" in kinds and kinds.index("timed_out") < len(kinds) - 1
        assert events[kinds.index("timed_out")]["seat"] == prompt["seat"]
        await watcher.request({"type": "ping"})
        assert not any(m.get("type") == "event" and m["event"]["type"] == "timed_out"
                       for m in watcher.received)  # the seat's news alone


async def test_a_client_over_the_rate_is_told_once_a_spell(make_app):
    app = await make_app(messages_per_second=20.0, message_burst=3)
    async with TrickroomClient.connect(url(app)) as client:
        for i in range(12):
            await client.send({"type": "ping", "id": i})
        await next_pushed(client, "slowed")
        async with asyncio.timeout(10):
            while sum(m.get("type") == "pong" for m in client.received) < 12:
                await asyncio.sleep(0.01)
        assert not any(m.get("type") == "slowed" for m in client.received)  # once a spell
        await asyncio.sleep(0.5)  # within the rate again
        await client.request({"type": "ping"})
        for i in range(12):
            await client.send({"type": "ping", "id": 100 + i})
        slowed = await next_pushed(client, "slowed")
        assert slowed["wait"] > 0 and "messages a second" in slowed["message"]


async def test_the_protocol_has_a_version_a_client_may_state(app):
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "guest", "protocol": PROTOCOL + 1})
        assert error["code"] == "invalid_field" and "protocol" in error["message"]
        welcome = await client.request({"type": "guest", "protocol": 1})
        assert welcome["protocol"] == PROTOCOL

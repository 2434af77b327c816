"""The bus between nodes on a real Redis, on both event loops a node may run (asyncio's own
and uvloop, the default of ``trickroom serve``): frames arrive once each and in order,
across channels; a subscription is live when ``subscribe`` returns; what a node publishes
while Redis is away arrives, in order, on its return."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest
import uvloop

from tests.server.hub.conftest import drop_keys
from tests.services import REDIS, Outage, fresh_name, need
from trickroom.server.hub.redis.bus import Bus
from trickroom.server.hub.redis.frames import Frame, Gone, decode, encode
from trickroom.server.hub.redis.wire import open_line

LOOPS: dict[str, Callable[[Coroutine[Any, Any, None]], None]] = {
    "asyncio": asyncio.run, "uvloop": uvloop.run}


@pytest.fixture(params=sorted(LOOPS))
def run(request):
    """Run a scenario on one event loop, with a Redis key prefix of its own."""
    need("redis")
    prefix = fresh_name("trbus")

    def runner(scenario: Callable[[str], Coroutine[Any, Any, None]]) -> None:
        async def whole() -> None:
            try:
                await scenario(prefix)
            finally:
                await drop_keys(prefix)
        LOOPS[request.param](whole())
    return runner


def numbered(i: int, body: bytes = b"") -> bytes:
    """A frame that says its place in the order it was published."""
    return encode(Gone(client=i, table="t"), body)


class Heard:
    """What a bus handed its node: (channel, frame, body), in order."""

    def __init__(self) -> None:
        self.frames: list[tuple[str, Frame, bytes]] = []

    def __call__(self, channel: str, data: bytes) -> None:
        self.frames.append((channel, *decode(data)))

    @property
    def numbers(self) -> list[int]:
        return [f.client for _, f, _ in self.frames if isinstance(f, Gone)]

    async def until(self, count: int, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while len(self.frames) < count:
                await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def two_buses(prefix: str, heard: Heard, channels: list[str], sender_url: str = REDIS,
                    listener_url: str = REDIS,
                    **listener: Any) -> AsyncIterator[tuple[Bus, Bus]]:
    """A node that publishes and one that listens to ``channels``, each on its own URL."""
    sender = Bus(sender_url, lambda *_: None)
    receiver = Bus(listener_url, heard, **listener)
    await sender.start([])
    await receiver.start(channels)
    try:
        yield sender, receiver
    finally:
        await sender.stop()
        await receiver.stop()


@contextlib.asynccontextmanager
async def outage() -> AsyncIterator[tuple[Outage, str]]:
    """A relay in front of the real Redis, to cut, and its URL."""
    relay = Outage(6379)
    await relay.start()
    try:
        yield relay, f"redis://127.0.0.1:{relay.port}/0"
    finally:
        await relay.stop()


def test_frames_arrive_once_each_in_the_order_published_across_channels(run):
    async def scenario(prefix: str) -> None:
        heard = Heard()
        async with two_buses(prefix, heard, [f"{prefix}:a", f"{prefix}:b"]) as (sender, listener):
            for i in range(600):  # a burst: many frames in each write
                sender.publish(f"{prefix}:{'ab'[i % 2]}", numbered(i, b"x" * (i % 7)))
            await heard.until(600)
            await asyncio.sleep(0.1)
            assert heard.numbers == list(range(600))
            assert [c for c, *_ in heard.frames][:2] == [f"{prefix}:a", f"{prefix}:b"]
            assert all(body == b"x" * (i % 7) for i, (_, _, body) in enumerate(heard.frames))
            assert sender.published == 600 and listener.received == 600
    run(scenario)


def test_a_channel_is_heard_as_soon_as_subscribe_returns(run):
    async def scenario(prefix: str) -> None:
        heard = Heard()
        async with two_buses(prefix, heard, []) as (sender, listener):
            for i in range(30):  # a new table's channel, then its first frame at once
                await listener.subscribe(f"{prefix}:t{i}")
                sender.publish(f"{prefix}:t{i}", numbered(i))
            await heard.until(30)
            assert heard.numbers == list(range(30))
    run(scenario)


def test_what_is_published_while_redis_is_away_arrives_in_order_on_its_return(run):
    async def scenario(prefix: str) -> None:
        heard = Heard()
        async with outage() as (relay, url), \
                two_buses(prefix, heard, [f"{prefix}:c"], sender_url=url) as (sender, listener):
            sender.publish(f"{prefix}:c", numbered(0))
            await heard.until(1)
            relay.cut()
            await asyncio.sleep(0.2)
            for i in range(1, 51):
                sender.publish(f"{prefix}:c", numbered(i))
            sender.command("hset", f"{prefix}:h", "k", "v")
            await asyncio.sleep(0.3)  # the sender tries Redis again meanwhile, and fails
            assert len(heard.frames) == 1 and not sender.connected
            relay.restore()
            await heard.until(51)
            assert heard.numbers == list(range(51))
            assert await listener.redis.hget(f"{prefix}:h", "k") == b"v"
            assert sender.connected
    run(scenario)


def test_a_lost_subscription_comes_back_and_is_told(run):
    async def scenario(prefix: str) -> None:
        heard = Heard()
        told: list[bool] = []
        async with outage() as (relay, url), \
                two_buses(prefix, heard, [f"{prefix}:d"], listener_url=url,
                          on_reconnect=lambda: told.append(True)) as (sender, _):
            relay.cut()
            await asyncio.sleep(0.3)
            relay.restore()
            async with asyncio.timeout(5):
                while not told:  # the node hears of it: frames may have been missed
                    await asyncio.sleep(0.01)
            sender.publish(f"{prefix}:d", numbered(7))
            await heard.until(1)
            assert heard.numbers == [7]
    run(scenario)


def test_a_password_redis_refuses_is_a_clear_error(run):
    async def scenario(prefix: str) -> None:
        with pytest.raises(ConnectionError, match="redis refused the login"):
            await open_line("redis://:wrong@127.0.0.1:6379/0", lambda _: None, lambda *_: None)
    run(scenario)

"""A second node is no way around a limit (DESIGN sections 11 and 12): login back-off,
connections, guests, open tables and an address's message budget are counted over every
node, through Redis. Each attack is sent over the live sockets of two nodes, as an attacker
behind a load balancer would spread it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import FAST, url
from tests.server.hub.conftest import LEASE
from tests.server.refusals import refused
from tests.services import Outage
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config


@contextlib.asynccontextmanager
async def sockets_to(*nodes: App) -> AsyncIterator[list[ClientConnection]]:
    """Raw sockets to ``nodes``; every one still in the list is closed at the end."""
    opened = [await connect(url(node)) for node in nodes]
    try:
        yield opened
    finally:
        for ws in opened:
            await ws.close()


async def shared(node: App, kind: str, key: str, count: int) -> None:
    """Wait until ``node`` sees the other nodes count ``count`` (writes go out soon)."""
    for _ in range(500):
        if await node.hub.count_elsewhere(kind, key) == count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{kind} {key}: never counted {count} elsewhere")


async def test_with_redis_away_limits_count_this_node_alone_and_lock_no_one_out(cluster):
    outage = Outage(6379)
    await outage.start()
    node = App(load_config(**FAST, **LEASE, login_free_failures=2, login_backoff_seconds=30),
               cluster.store, cluster=f"redis://127.0.0.1:{outage.port}",
               cluster_prefix=cluster.prefix)
    await node.start("127.0.0.1", 0)
    cluster.nodes.append(node)
    try:
        async with TrickroomClient.connect(url(node)) as client:
            await client.request({"type": "register", "name": "rita", "password": "long-enough"})
            outage.cut()
            async with TrickroomClient.connect(url(node)) as other:  # still let in
                await other.request({"type": "login", "name": "rita",
                                     "password": "long-enough"})
                codes = [(await refused(other, {"type": "login", "name": "rita",
                                                "password": f"guess{i}"}))["code"]
                         for i in range(3)]
            # The back-off still holds, counted here; the server answered every request.
            assert codes == ["bad_credentials", "bad_credentials", "rate_limited"]
            ping = await client.request({"type": "ping"})
            assert ping["type"] == "pong"
            # What needs Redis is refused plainly, to be sent again, and changes nothing.
            async with TrickroomClient.connect(url(node)) as guest:
                for request in ({"type": "guest"}, {"type": "list_rooms"}):
                    error = await refused(guest, request)
                    assert error["code"] == "unavailable" and error["retry_after"] > 0
                assert not node.guests.per_address  # the name it tried is not held
                outage.restore()
                for _ in range(100):  # as soon as Redis is back, it works
                    try:
                        welcome = await guest.request({"type": "guest"})
                        break
                    except ServerError as exc:
                        assert exc.code == "unavailable"
                        await asyncio.sleep(0.05)
                assert welcome["guest"]
    finally:
        outage.restore()
        await outage.stop()


async def test_many_requests_at_once_from_one_player_open_no_more_tables_than_allowed(cluster):
    """Each request waits on Redis between its check and its table: those sent at the same
    moment, from many sockets of one account, still count each other."""
    a, _other = [await cluster.node(tables_per_account=2) for _ in range(2)]
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        await first.request({"type": "register", "name": "rush", "password": "long-enough"})
        sockets = [first] + [await stack.enter_async_context(TrickroomClient.connect(url(a)))
                             for _ in range(5)]
        for client in sockets[1:]:
            await client.request({"type": "login", "name": "rush", "password": "long-enough"})
        replies = await asyncio.gather(
            *(c.request({"type": "create_table", "room": "spades"}) for c in sockets),
            return_exceptions=True)
    made = [r for r in replies if isinstance(r, dict)]
    refusals = [r for r in replies if isinstance(r, ServerError)]
    assert len(made) == 2 and len(refusals) == 4
    assert all(r.code == "rate_limited" for r in refusals)


async def test_many_guests_at_once_from_one_address_stay_within_its_cap(cluster):
    a, _other = [await cluster.node(guests_per_address=3) for _ in range(2)]
    async with AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(TrickroomClient.connect(url(a)))
                   for _ in range(6)]
        replies = await asyncio.gather(*(c.request({"type": "guest"}) for c in sockets),
                                       return_exceptions=True)
    assert sum(isinstance(r, dict) for r in replies) == 3
    assert all(r.code == "rate_limited" for r in replies if isinstance(r, ServerError))


async def test_a_count_that_went_wrong_in_redis_is_mended_by_its_node(cluster):
    """A write the bus lost (its buffer overflowed) leaves a wrong count in Redis: the
    node writes its counts whole again now and then, and the wrong one goes."""
    a, b = [await cluster.node(connections_per_ip=4) for _ in range(2)]
    async with sockets_to(a) as sockets:
        await shared(b, "connections", "127.0.0.1", 1)
        redis = a.hub.bus.redis
        await redis.hset(a.hub.limits.tallies, "connections:127.0.0.1", 40)  # lost HDELs
        with pytest.raises(InvalidStatus):
            await connect(url(b))
        a.hub.limits.reshare()  # what the renewal does every REWRITE_SECONDS
        await shared(b, "connections", "127.0.0.1", 1)
        sockets.append(await connect(url(b)))


async def test_a_node_that_stops_takes_its_counts_with_it(cluster):
    a, b = [await cluster.node(connections_per_ip=3) for _ in range(2)]
    async with sockets_to(a, a, a):
        await shared(b, "connections", "127.0.0.1", 3)
        with pytest.raises(InvalidStatus):
            await connect(url(b))
        await a.stop()
        cluster.nodes.remove(a)
        await shared(b, "connections", "127.0.0.1", 0)
        async with sockets_to(b):
            pass

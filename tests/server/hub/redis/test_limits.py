"""A second node is no way around a limit (DESIGN sections 11 and 12): login back-off,
connections, guests, open tables and an address's message budget are counted over every
node, through Redis. Each attack is sent over the live sockets of two nodes, as an attacker
behind a load balancer would spread it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import FAST, url
from tests.server.hub.conftest import LEASE
from tests.services import Outage
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.metrics import METRICS


async def refused(client: TrickroomClient, message: dict) -> ServerError:
    with pytest.raises(ServerError) as err:
        await client.request(message)
    return err.value


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


async def test_a_guesser_switching_nodes_meets_the_account_s_back_off(cluster):
    a, b = [await cluster.node(login_free_failures=3, login_backoff_seconds=30)
            for _ in range(2)]
    async with TrickroomClient.connect(url(a)) as owner, \
            TrickroomClient.connect(url(a)) as on_a, TrickroomClient.connect(url(b)) as on_b:
        await owner.request({"type": "register", "name": "bob", "password": "right-one"})
        guesses = [on_a, on_b, on_a]  # three free typos, spread: two on a, one on b
        for i, guesser in enumerate(guesses):
            error = await refused(guesser, {"type": "login", "name": "bob",
                                            "password": f"guess{i}"})
            assert error.code == "bad_credentials"
        checked = b.passwords.checked
        # Node b saw one failure only; the cluster saw three: b refuses unchecked.
        error = await refused(on_b, {"type": "login", "name": "bob", "password": "guess3"})
        assert error.code == "rate_limited" and error.reply["retry_after"] > 0
        assert b.passwords.checked == checked
        error = await refused(on_b, {"type": "login", "name": "BOB", "password": "right-one"})
        assert error.code == "rate_limited"  # the owner waits too, on every node


async def test_an_address_guessing_many_accounts_through_two_nodes_is_throttled(cluster):
    a, b = [await cluster.node(login_free_failures_per_address=4, login_backoff_seconds=30)
            for _ in range(2)]
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        codes = []
        for i in range(6):
            guesser = (on_a, on_b)[i % 2]
            codes.append((await refused(guesser, {"type": "login", "name": f"user{i}",
                                                  "password": "123456"})).code)
    assert codes == ["bad_credentials"] * 4 + ["rate_limited"] * 2


async def test_a_good_login_on_one_node_clears_the_account_s_failures_on_all(cluster):
    a, b = [await cluster.node(login_free_failures=2, login_backoff_seconds=0.3)
            for _ in range(2)]
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        await on_a.request({"type": "register", "name": "cat", "password": "meow-meow"})
        for client in (on_a, on_b):
            await refused(client, {"type": "login", "name": "cat", "password": "woof-woof"})
        assert await b.hub.limits.backoff_wait("account", "cat") > 0
        await asyncio.sleep(0.4)
        await on_a.request({"type": "login", "name": "cat", "password": "meow-meow"})
        for _ in range(100):  # the success goes out in order, soon
            if await b.hub.limits.backoff_wait("account", "cat") == 0:
                break
            await asyncio.sleep(0.01)
        error = await refused(on_b, {"type": "login", "name": "cat", "password": "woof"})
        assert error.code == "bad_credentials"  # one failure again, not the third


async def test_connections_from_one_address_are_counted_over_every_node(cluster):
    a, b = [await cluster.node(connections_per_ip=4) for _ in range(2)]
    async with sockets_to(a, a, b, b) as sockets:
        await shared(a, "connections", "127.0.0.1", 2)
        await shared(b, "connections", "127.0.0.1", 2)
        for node in (a, b):
            with pytest.raises(InvalidStatus) as err:
                await connect(url(node))
            assert err.value.response.status_code == 429
        await sockets.pop().close()  # one of b's goes: a may take one more
        await shared(a, "connections", "127.0.0.1", 1)
        sockets.append(await connect(url(a)))


async def test_guests_from_one_address_are_counted_over_every_node(cluster):
    a, b = [await cluster.node(guests_per_address=2) for _ in range(2)]
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(node)))
                   for node in (a, b, a)]
        await clients[0].request({"type": "guest"})
        await clients[1].request({"type": "guest"})
        await shared(a, "guests", "127.0.0.1", 1)
        assert (await refused(clients[2], {"type": "guest"})).code == "rate_limited"
        await clients[1].ws.close()  # b's guest leaves: a's third may come in
        await shared(a, "guests", "127.0.0.1", 0)
        await clients[2].request({"type": "guest"})


async def test_a_player_s_open_tables_are_counted_over_every_node(cluster):
    a, b = [await cluster.node(tables_per_account=2) for _ in range(2)]
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        await on_a.request({"type": "register", "name": "tess", "password": "long-enough"})
        await on_b.request({"type": "login", "name": "tess", "password": "long-enough"})
        await on_a.request({"type": "create_table", "room": "spades"})
        await on_b.request({"type": "create_table", "room": "spades"})
        await shared(a, "tables-account", "tess", 1)
        error = await refused(on_a, {"type": "create_table", "room": "hearts"})
        assert error.code == "rate_limited" and "open tables" in str(error)
    assert len(a.lobby.tables) + len(b.lobby.tables) == 2


async def test_an_address_floods_two_nodes_at_its_one_rate(cluster):
    """More nodes do not buy a flood more messages: past the address's burst, each node's
    sockets wait for the credit the other's spent."""
    rate, burst, each = 40, 40, 80
    a, b = [await cluster.node(messages_per_second=1000, message_burst=1000,
                               messages_per_second_per_address=rate,
                               message_burst_per_address=burst) for _ in range(2)]
    delayed = METRICS.messages_delayed._value.get()
    async with sockets_to(a, b) as sockets:
        started = time.monotonic()
        for ws in sockets:
            for i in range(each):
                await ws.send(json.dumps({"type": "ping", "id": i}))
        for ws in sockets:
            replies = [json.loads(await asyncio.wait_for(ws.recv(), 20)) for _ in range(each)]
            assert [r["id"] for r in replies] == list(range(each))  # all answered, in order
        elapsed = time.monotonic() - started
    # One budget for the address: 160 messages at 40 a second after a burst of 40 take at
    # least 3 s (each node alone would have let its 80 through in 1 s). A node may hold a
    # few credits over (a chunk each).
    chunk = max(1, min(burst // 4, rate // 10))
    assert elapsed >= (2 * each - burst - 2 * chunk) / rate
    assert METRICS.messages_delayed._value.get() - delayed >= 2 * each - burst - 2 * chunk


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
                                                "password": f"guess{i}"})).code
                         for i in range(3)]
            # The back-off still holds, counted here; the server answered every request.
            assert codes == ["bad_credentials", "bad_credentials", "rate_limited"]
            ping = await client.request({"type": "ping"})
            assert ping["type"] == "pong"
            # What needs Redis is refused plainly, to be sent again, and changes nothing.
            async with TrickroomClient.connect(url(node)) as guest:
                for request in ({"type": "guest"}, {"type": "list_rooms"}):
                    error = await refused(guest, request)
                    assert error.code == "unavailable" and error.reply["retry_after"] > 0
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

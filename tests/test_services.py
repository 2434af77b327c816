"""The fault tests' own tools (tests/services.py): the fault proxy, each of its modes
checked against the machine's Redis with a plain socket speaking RESP; a Redis and a
PostgreSQL of a test's own, stopped and started.

No assertion here waits on a clock for something to happen: timeouts only bound a
failure (``BOUND``), and "nothing arrives" is checked by the service's own state (a key
that a blocked command did not set), or by a delay's lower bound, which a slow machine
cannot break."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from tests.services import REDIS, FaultProxy, OwnDatabase, RedisServer, need

BOUND = 20.0  # seconds: only ever a failure's bound
PING = b"*1\r\n$4\r\nPING\r\n"


def resp(*words: str) -> bytes:
    """A RESP command."""
    out = [f"*{len(words)}\r\n".encode()]
    for word in words:
        out.append(f"${len(word.encode())}\r\n{word}\r\n".encode())
    return b"".join(out)


async def reply(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.readline(), BOUND)


@contextlib.asynccontextmanager
async def through(proxy: FaultProxy) -> AsyncIterator[tuple[asyncio.StreamReader,
                                                           asyncio.StreamWriter]]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", proxy.port),
                                            BOUND)
    try:
        yield reader, writer
    finally:
        writer.transport.abort()


@pytest.fixture
async def proxy(fault_proxy) -> FaultProxy:
    need("redis")
    return await fault_proxy(6379)


@pytest.fixture
async def direct() -> AsyncIterator[tuple[aioredis.Redis, str]]:
    """A client of the machine's Redis, not through the proxy, and a key prefix of the
    test's own (its keys deleted after)."""
    need("redis")
    prefix = f"trsvc{secrets.token_hex(4)}"
    client = aioredis.from_url(REDIS)
    try:
        yield client, prefix
    finally:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def until(check, what: str) -> None:
    """Until ``await check()`` is true; fail after ``BOUND`` seconds."""
    deadline = time.monotonic() + BOUND
    while not await check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


async def test_the_proxy_relays_both_ways(proxy):
    async with through(proxy) as (reader, writer):
        for _ in range(3):
            writer.write(PING)
            assert await reply(reader) == b"+PONG\r\n"
        big = "x" * 300_000  # more than one read's worth each way
        writer.write(resp("ECHO", big))
        assert await reply(reader) == b"$300000\r\n"
        assert await asyncio.wait_for(reader.readexactly(300_002), BOUND) == f"{big}\r\n".encode()
    assert proxy.accepted == 1 and proxy.mode == "up"


async def test_cut_resets_every_connection_and_refuses_new_ones_until_restored(proxy):
    async with through(proxy) as (reader, writer):
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"
        proxy.cut()
        with contextlib.suppress(ConnectionError):
            assert await asyncio.wait_for(reader.read(), BOUND) == b""  # gone
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", proxy.port)
        assert proxy.open == 0
    proxy.restore()
    async with through(proxy) as (reader, writer):  # the same port again
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"


async def test_a_delay_holds_back_each_way(proxy):
    async with through(proxy) as (reader, writer):
        proxy.delay(0.2)
        sent = time.monotonic()
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"
        assert time.monotonic() - sent >= 0.4  # 0.2 s there and 0.2 s back, at least
        proxy.restore()
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"


async def test_a_blackhole_passes_nothing_either_way_until_restored(proxy, direct):
    client, prefix = direct
    async with through(proxy) as (reader, writer):
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"
        proxy.blackhole()
        writer.write(resp("SET", f"{prefix}:held", "1"))
        # A new connection is accepted, and held as well.
        async with through(proxy) as (new_reader, new_writer):
            new_writer.write(resp("SET", f"{prefix}:new", "1"))
            await asyncio.sleep(0.3)  # time for a leak to show: nothing must have gone
            assert await client.exists(f"{prefix}:held", f"{prefix}:new") == 0
            assert not reader.at_eof() and len(reader._buffer) == 0  # type: ignore[attr-defined]
            assert proxy.open == 2
            proxy.restore()  # what waited goes through, as TCP would deliver it late
            assert await reply(reader) == b"+OK\r\n"
            assert await reply(new_reader) == b"+OK\r\n"
        assert await client.exists(f"{prefix}:held", f"{prefix}:new") == 2


async def test_drop_replies_lets_a_write_through_and_loses_its_answer(proxy, direct):
    client, prefix = direct
    async with through(proxy) as (reader, writer):
        proxy.drop_replies()
        writer.write(resp("SET", f"{prefix}:stored", "yes"))
        # The write reached Redis ...
        await until(lambda: client.exists(f"{prefix}:stored"), "the write never arrived")
        assert await client.get(f"{prefix}:stored") == b"yes"
        # ... and its answer was thrown away, not held: a PING after it is lost too.
        writer.write(PING)
        async def both_dropped() -> bool:
            return proxy.dropped >= len(b"+OK\r\n+PONG\r\n")

        await until(both_dropped, "the replies were not dropped")
        assert len(reader._buffer) == 0  # type: ignore[attr-defined]
        proxy.restore()  # a connection with a hole in its replies is reset
        with contextlib.suppress(ConnectionError):
            assert await asyncio.wait_for(reader.read(), BOUND) == b""
    async with through(proxy) as (reader, writer):  # new connections are whole again
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"


async def test_drop_replies_after_a_marker_answers_until_the_client_sends_it(proxy, direct):
    client, prefix = direct
    async with through(proxy) as (reader, writer):
        proxy.drop_replies(after=b"mark-me")
        writer.write(PING)
        assert await reply(reader) == b"+PONG\r\n"  # not yet
        writer.write(resp("SET", f"{prefix}:marked", "mark-me"))
        await until(lambda: client.exists(f"{prefix}:marked"), "the write never arrived")

        async def dropped() -> bool:
            return proxy.dropped >= len(b"+OK\r\n")

        await until(dropped, "the reply was not dropped")
        assert len(reader._buffer) == 0  # type: ignore[attr-defined]


async def test_a_commit_stored_whose_answer_never_came(own_postgres, fault_proxy):
    """PostgreSQL's case of drop_replies: the insert commits, the client never hears so,
    and then loses its connection."""
    proxy = await fault_proxy(own_postgres.port)
    conn = await asyncpg.connect(f"postgresql://postgres@127.0.0.1:{proxy.port}/"
                                 f"{own_postgres.name}")
    direct = await asyncpg.connect(own_postgres.url)
    try:
        await conn.execute("CREATE TABLE moves (n int)")
        proxy.drop_replies(after=b"INSERT INTO moves")
        insert = asyncio.ensure_future(conn.execute("INSERT INTO moves VALUES (1)"))

        async def stored() -> bool:
            return await direct.fetchval("SELECT count(*) FROM moves") == 1

        await until(stored, "the insert never committed")
        assert not insert.done()  # no answer came
        proxy.cut()
        with pytest.raises(Exception) as lost:
            await asyncio.wait_for(insert, BOUND)
        assert not isinstance(lost.value, TimeoutError), lost.value
        assert await direct.fetchval("SELECT count(*) FROM moves") == 1
    finally:
        conn.terminate()
        await direct.close()


async def test_a_redis_of_the_tests_own_restarts_on_its_port(own_redis: RedisServer):
    client = aioredis.from_url(own_redis.url)
    try:
        await client.set("k", "v")
        own_redis.restart()
        with contextlib.suppress(Exception):
            await client.ping()  # the old connection may be the first to notice
        assert await client.get("k") is None  # it keeps nothing
        assert await client.ping()
    finally:
        await client.aclose()


async def test_a_postgresql_of_the_tests_own_stops_and_starts_with_its_data(
        own_postgres: OwnDatabase):
    conn = await asyncpg.connect(own_postgres.url)
    await conn.execute("CREATE TABLE t (x int); INSERT INTO t VALUES (1)")
    own_postgres.stop("immediate")  # clients cut, no checkpoint
    with pytest.raises((OSError, asyncpg.PostgresError, asyncpg.InterfaceError)):
        await conn.fetchval("SELECT 1")
    conn.terminate()
    with pytest.raises(OSError):
        await asyncpg.connect(own_postgres.url, timeout=BOUND)
    own_postgres.start()  # recovery: the data is there, on the same port
    conn = await asyncpg.connect(own_postgres.url)
    try:
        assert await conn.fetchval("SELECT x FROM t") == 1
    finally:
        await conn.close()
    own_postgres.stop("kill")  # and after the harshest stop too
    own_postgres.start()
    conn = await asyncpg.connect(own_postgres.url)
    try:
        assert await conn.fetchval("SELECT x FROM t") == 1
    finally:
        await conn.close()


async def test_each_test_gets_a_database_of_its_own(own_postgres: OwnDatabase):
    conn = await asyncpg.connect(own_postgres.url)
    try:
        assert await conn.fetchval("SELECT to_regclass('t')") is None  # not the last test's
        assert own_postgres.name in own_postgres.url
    finally:
        await conn.close()

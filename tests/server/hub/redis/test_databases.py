"""A cluster on a Redis database other than 0 (``--cluster redis://host:6379/5``) keeps all
of itself in that database: every key it writes, whichever connection writes it, and its
messages, which Redis's pub/sub would otherwise share with every database of the server."""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST
from tests.server.hub.conftest import LEASE
from tests.server.hub.redis.test_bus import Heard, numbered
from tests.server.hub.test_contract import guests, heard
from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.config import load_config
from trickroom.server.hub.redis.bus import Bus

DB = 5  # a database of the shared Redis no other test writes to (keys under our prefix)


def redis_url(db: int) -> str:
    return f"redis://127.0.0.1:6379/{db}"


async def keys_in(db: int, prefix: str) -> list[str]:
    import redis.asyncio as aioredis
    async with aioredis.from_url(redis_url(db)) as client:
        return sorted([k.decode() async for k in client.scan_iter(match=f"{prefix}:*")])


async def drop_keys_in(db: int, prefix: str) -> None:
    import redis.asyncio as aioredis
    async with aioredis.from_url(redis_url(db)) as client:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)


@pytest.fixture
async def nodes_on_db():
    """Start nodes of one cluster on Redis database ``DB``; stop them and drop every key
    under the cluster's prefix, in that database and in 0, at the end."""
    need("postgresql")
    need("redis")
    schema, prefix = fresh_name("t_db"), fresh_name("trdb")
    started: list[App] = []

    async def node() -> App:
        app = App(load_config(**FAST, **LEASE), f"{POSTGRES}?schema={schema}",
                  cluster=redis_url(DB), cluster_prefix=prefix)
        await app.start("127.0.0.1", 0)
        started.append(app)
        return app

    node.prefix = prefix  # type: ignore[attr-defined]
    yield node
    for app in started:
        with contextlib.suppress(Exception):
            await app.stop()
    for db in (DB, 0):
        await drop_keys_in(db, prefix)
    await drop_schema(schema)


async def test_a_cluster_on_database_n_lists_one_node_s_table_to_the_other_s_client(
        nodes_on_db):
    a, b = await nodes_on_db(), await nodes_on_db()
    async with AsyncExitStack() as stack:
        maker, looker = await guests(stack, (a, "maker"), (b, "looker"))
        await looker.request({"type": "list_tables", "room": "hearts"})
        table = (await maker.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        await heard(looker, lambda m: m.get("type") == "table_update"
                              and m["table"]["id"] == table)
        listed = await looker.request({"type": "list_tables", "room": "hearts"})
        assert [t["id"] for t in listed["tables"]] == [table] and listed["total"] == 1
        rooms = await looker.request({"type": "list_rooms"})
        assert next(r for r in rooms["rooms"] if r["name"] == "hearts")["tables"] == 1

        prefix = nodes_on_db.prefix
        written = await keys_in(DB, prefix)
        assert f"{prefix}:room:hearts" in written  # the listing, written by the bus's line
        assert f"{prefix}:lease:{table}" in written
        assert any(k.startswith(f"{prefix}:tallies:") for k in written)  # the limits' counts
        assert await keys_in(0, prefix) == []


async def test_messages_on_one_database_are_not_heard_on_another():
    """Redis's pub/sub ignores the database: the bus keeps a database's messages to it, so
    two clusters with one prefix on two databases of one Redis never hear each other."""
    need("redis")
    prefix = fresh_name("trdbbus")
    channel = f"{prefix}:lobby"
    here, there = Heard(), Heard()
    sender, same, other = (Bus(redis_url(DB), lambda *_: None), Bus(redis_url(DB), here),
                           Bus(redis_url(DB + 1), there))
    try:
        await sender.start([])
        await same.start([channel])
        await other.start([channel])
        sender.publish(channel, numbered(1))
        await here.until(1)
        assert here.frames[0][0] == channel  # the node sees the channel's own name
        other.publish(channel, numbered(2))
        await there.until(1)  # Redis has handed 2 to every listener it would reach
        sender.publish(channel, numbered(3))
        await here.until(2)
        assert here.numbers == [1, 3]
        assert there.numbers == [2]
    finally:
        for bus in (sender, same, other):
            await bus.stop()

"""A cluster node's room list (issue 31): read from Redis a page at a time, never the whole
room, and kept until the room changes; a table whose node died is left out of the list,
and once its node is gone its entry goes too, wherever it lies in the room; while Redis
does not answer, the list is the last page read."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from tests.server.conftest import FAST
from tests.server.hub.conftest import LEASE
from tests.server.hub.test_contract import eventually, guests, heard
from tests.server.hub.test_listing_cache import Reference, listing, tell
from trickroom.server.app import App
from trickroom.server.config import load_config
from trickroom.server.hub.redis.rooms import LIST
from trickroom.server.listing import LISTED_STATES
from trickroom.server.protocol import TableInfo

DEAD_NODE = 987_654  # a node number no live node has: it never set its alive key


def written_by(node: App, info: TableInfo, number: int) -> tuple[Any, ...]:
    """The write a node numbered ``number`` makes of a table's listing (the LIST script)."""
    hub: Any = node.hub
    rooms = hub.rooms
    return (LIST, 6, *rooms._keys(info.room), hub.keys.key("listing", info.room, "counter"),
            info.id, number, LISTED_STATES.index(info.state) + 1, info.model_dump_json())


async def test_a_list_is_read_from_redis_once_a_change_not_once_a_request(cluster):
    a, b = await cluster.node(tables_listed=20), await cluster.node(tables_listed=20)
    for node in (a, b):
        node.hub.rooms.fresh_seconds = 3600.0  # only a change makes a page stale here
    await tell(a, [(listing(f"p{i:04d}", "playing", seated=4), False) for i in range(300)],
               Reference())
    async with AsyncExitStack() as stack:
        maker, looker = await guests(stack, (a, "maker"), (b, "looker"))
        first = await looker.request({"type": "list_tables", "room": "spades"})
        reads = b.hub.rooms.reads
        for _ in range(5):
            again = await looker.request({"type": "list_tables", "room": "spades"})
            assert again["tables"] == first["tables"]
        assert b.hub.rooms.reads == reads  # five listings, no read
        table = (await maker.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await heard(looker, lambda m: m.get("type") == "table_update"
                    and m["table"]["id"] == table)
        listed = await looker.request({"type": "list_tables", "room": "spades"})
        assert listed["tables"][0]["id"] == table and listed["total"] == 301
        await looker.request({"type": "list_tables", "room": "spades"})
        assert b.hub.rooms.reads == reads + 1  # the other node's change: one read


async def test_a_dead_node_s_tables_are_left_out_and_then_forgotten(cluster):
    node = await cluster.node(tables_listed=20)
    hub: Any = node.hub
    redis = hub.bus.redis
    room = hub.keys.room("spades")
    reference = Reference()
    held = [(listing(f"h{i:04d}", "playing", seated=4), False) for i in range(200)]
    await tell(node, held, reference)
    # A dead node's tables: two at the head of the list, and many far down it (finished).
    dead = [listing("dead-w0", "waiting"), listing("dead-w1", "waiting")]
    dead += [listing(f"dead-o{i:03d}", "over") for i in range(100)]
    # A table of this live node whose lease is missing a moment: left out, but kept.
    paused = listing("paused", "waiting")
    for info, number in [*((d, DEAD_NODE) for d in dead), (paused, hub.node.number)]:
        await redis.eval(*written_by(node, info, number))

    tables, total = await hub.room_tables("spades", 20)
    expected, _ = reference.page(20)
    assert [t.model_dump() for t in tables] == expected
    assert not await redis.hexists(room, "dead-w0") and not await redis.hexists(room, "dead-w1")
    assert await redis.hexists(room, "paused")

    async def forgotten() -> bool:
        hub.table_changed(held[0][0], False)  # a change: the next listing reads a page
        await hub.room_tables("spades", 20)
        return await redis.hlen(room) == 200 + 1  # the held tables and the paused one
    await eventually(forgotten)
    _, total = await hub.room_tables("spades", 20)
    assert total == 200
    counts = await hub.room_counts(["spades"])
    assert counts["spades"] == 201  # the count of rooms does not ask for leases


async def test_while_redis_does_not_answer_a_list_is_the_last_page_read(cluster, fault_proxy):
    """A Redis restart costs the lobby its freshness, not its list."""
    proxy = await fault_proxy(6379)
    node = App(load_config(**FAST, **LEASE, tables_listed=20), cluster.store,
               cluster=f"redis://127.0.0.1:{proxy.port}/0", cluster_prefix=cluster.prefix)
    await node.start("127.0.0.1", 0)
    cluster.nodes.append(node)  # stopped by the fixture
    hub: Any = node.hub
    reference = Reference()
    await tell(node, [(listing(f"p{i:04d}", "playing", seated=4), False) for i in range(50)],
               reference)
    expected, total = reference.page(20)
    tables, counted = await hub.room_tables("spades", 20)
    assert [t.model_dump() for t in tables] == expected and counted == total == 50
    proxy.cut()
    hub.table_changed(listing("late", "waiting"), False)  # stale now: the read fails
    tables, counted = await hub.room_tables("spades", 20)
    assert [t.model_dump() for t in tables] == expected and counted == 50
    proxy.restore()

"""A room's list beside many tables (issue 31), on one process and on a cluster: the first
page a player is shown is the one a single process always showed (waiting tables in the
order they opened, then playing ones in the order they began, then finished ones; a table
keeps its place while its state stays), and it follows a table opened or closed on any
node once the lobby's beat has pushed the change.

Many tables are told to the hub directly, as their nodes' lobbies tell it (a table's
every change); a few are real, opened and closed by players."""

from __future__ import annotations

import json
import random
from contextlib import AsyncExitStack
from typing import Any

from tests.server.conftest import http_get
from tests.server.hub.test_contract import eventually, guests, heard
from trickroom.server.app import App
from trickroom.server.listing import LISTED_STATES, listed_first
from trickroom.server.protocol import SeatInfo, TableInfo


class Reference:
    """A room's list as one process kept it before issue 31: a dict of tables a state, a
    changed table in its place while its state stays, else last in its new state."""

    def __init__(self) -> None:
        self.states: dict[str, dict[str, TableInfo]] = {s: {} for s in LISTED_STATES}

    def change(self, info: TableInfo, removed: bool) -> None:
        tables = None if removed else self.states.get(info.state)
        if tables is not None and info.id in tables:
            tables[info.id] = info
            return
        for others in self.states.values():
            others.pop(info.id, None)
        if tables is not None:
            tables[info.id] = info

    def page(self, limit: int) -> tuple[list[dict[str, Any]], int]:
        tables, total = listed_first(self.states.values(), limit)
        return [t.model_dump() for t in tables], total


def listing(table_id: str, state: str, seated: int = 1, watchers: int = 0) -> TableInfo:
    seats = [SeatInfo(seat=s, name=f"{table_id}-{s}" if s < seated else None,
                      kind="human" if s < seated else "empty") for s in range(4)]
    return TableInfo(id=table_id, room="spades", game="spades", state=state,
                     seating="fixed_seating", seats=seats, watchers=watchers,
                     game_id=None if state == "waiting" else f"g-{table_id}")


async def tell(node: App, changes: list[tuple[TableInfo, bool]], reference: Reference) -> None:
    """Tell ``node``'s hub of tables changing, as their lobby would, each held by ``node``
    (a cluster's tables are listed while their node holds their lease)."""
    hub: Any = node.hub
    held = {info.id for info, removed in changes if not removed}
    if hasattr(hub, "keys"):  # a cluster: leases for these pretend tables
        async with hub.bus.redis.pipeline(transaction=False) as pipe:
            for table_id in held:
                pipe.set(hub.keys.lease(table_id), hub.node.number, px=600_000)
            await pipe.execute()
    for info, removed in changes:
        hub.table_changed(info, removed)
        reference.change(info, removed)

    async def counted() -> bool:
        _, total = reference.page(0)
        return (await hub.room_counts(["spades"]))["spades"] == total
    await eventually(counted)


async def test_a_list_beside_many_tables_is_the_page_one_process_shows(server):
    a, b = await server.nodes(tables_listed=60)
    rng = random.Random(31)
    plan = Reference()  # the states as the changes are made up
    changes: list[tuple[TableInfo, bool]] = []

    def change(info: TableInfo, removed: bool = False) -> None:
        changes.append((info, removed))
        plan.change(info, removed)

    ids = [f"t{i:04d}" for i in range(400)]
    for t in ids:
        change(listing(t, "waiting", seated=1))
    playing = rng.sample(ids, 180)
    for t in playing:
        change(listing(t, "playing", seated=4))
    over = rng.sample(playing, 70)
    for t in over:
        change(listing(t, "over", seated=4))
    for t in rng.sample(over, 10):  # a new game at the same table: waiting again, last
        change(listing(t, "waiting", seated=2))
    for t in rng.sample(ids, 150):  # seats and watchers change: each keeps its place
        state = next(s for s, tables in plan.states.items() if t in tables)
        change(listing(t, state, seated=3 if state == "waiting" else 4,
                       watchers=rng.randrange(1, 5)))
    for t in rng.sample(ids, 60):
        change(listing(t, "over"), removed=True)
    reference = Reference()
    await tell(a, changes, reference)

    expected, total = reference.page(60)
    assert total == 400 - 60 and len(expected) == 60
    async with AsyncExitStack() as stack:
        here, there = await guests(stack, (a, "here"), (b, "there"))
        for client in (here, there):
            listed = await client.request({"type": "list_tables", "room": "spades"})
            assert listed["tables"] == expected and listed["total"] == total
        for node in (a, b):
            status, _, body = await http_get(node, "/api/tables?room=spades")
            assert status == 200
            assert json.loads(body) == {"tables": expected, "total": total}


async def test_a_table_opened_and_closed_on_one_node_shows_in_every_node_s_list_after_the_beat(
        server):
    a, b = await server.nodes(tables_listed=20, table_idle_seconds=0.2)
    reference = Reference()
    await tell(a, [(listing(f"p{i:04d}", "playing", seated=4), False) for i in range(300)],
               reference)
    before, total = reference.page(20)
    async with AsyncExitStack() as stack:
        maker, looker = await guests(stack, (a, "maker"), (b, "looker"))
        listed = await looker.request({"type": "list_tables", "room": "spades"})
        assert listed["tables"] == before and listed["total"] == total == 300
        table = (await maker.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await maker.request({"type": "sit", "table": table, "seat": 0})

        def seated(m: dict[str, Any]) -> bool:
            return (m.get("type") == "table_update" and m["table"]["id"] == table
                    and m["table"]["seats"][0]["kind"] == "human")
        await heard(looker, seated)
        for client in (looker, maker):
            listed = await client.request({"type": "list_tables", "room": "spades"})
            assert [t["id"] for t in listed["tables"]] == [table] + [t["id"] for t in before[:19]]
            assert listed["tables"][0]["seats"][0]["name"] == "guest-maker"
            assert listed["total"] == 301
        await maker.request({"type": "stand", "table": table})  # nobody sits: it closes
        await heard(looker, lambda m: m.get("type") == "table_update"
                    and m["table"]["id"] == table and m["removed"])
        for client in (looker, maker):
            listed = await client.request({"type": "list_tables", "room": "spades"})
            assert listed["tables"] == before and listed["total"] == 300
        rooms = await looker.request({"type": "list_rooms"})
        assert next(r for r in rooms["rooms"] if r["name"] == "spades")["tables"] == 300

"""A room's list of tables (``listing.py``; issue 13): what it shows is bounded however many
tables are open, and a flapping watcher costs its subscribers one push a beat."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

from tests.server.conftest import url, wait_for
from trickroom.server.client import TrickroomClient


async def test_a_room_s_list_gives_its_waiting_tables_first_and_at_most_tables_listed(make_app):
    """However many tables a room has open, its list costs the loop the time of
    ``tables_listed`` of them (a list of thousands took 30 ms: bench/lobby.py)."""
    app = await make_app(tables_listed=2, waiting_tables_per_address=4)
    async with AsyncExitStack() as stack:
        hosts = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                 for _ in range(5)]
        ids = []
        for i, host in enumerate(hosts[:4]):
            await host.request({"type": "guest", "name": f"host{i}"})
            ids.append((await host.request({"type": "create_table", "room": "spades"}))
                       ["table"]["id"])
            await host.request({"type": "sit", "table": ids[-1], "seat": 0})
        await hosts[0].request({"type": "fill_robots", "table": ids[0], "level": "random"})
        await wait_for(lambda: app.lobby.tables[ids[0]].machine.state.phase.value == "playing")
        await hosts[4].request({"type": "guest", "name": "looker"})  # at none of them
        listing = await hosts[4].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[1:3] and listing["total"] == 4
        await hosts[1].request({"type": "fill_robots", "table": ids[1], "level": "random"})
        await wait_for(lambda: app.lobby.tables[ids[1]].machine.state.phase.value == "playing")
        listing = await hosts[3].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[2:4] and listing["total"] == 4
        await hosts[3].request({"type": "stand", "table": ids[3]})  # its place is kept
        listing = await hosts[3].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[2:4]
        rooms = (await hosts[3].request({"type": "list_rooms"}))["rooms"]
        assert {r["name"]: r["tables"] for r in rooms}["spades"] == 4


async def test_flapping_watch_and_unwatch_costs_the_room_s_subscribers_one_push_a_beat(make_app):
    """Every push goes to every subscriber of the room: one client's 80 watches and
    unwatches reach them as one update at once and one with the end state a beat later
    (``lobby_push_seconds``), not 80 each (bench/lobby.py measures the cost)."""
    app = await make_app(lobby_push_seconds=1.0)
    async with TrickroomClient.connect(url(app)) as host, \
            TrickroomClient.connect(url(app)) as subscriber, \
            TrickroomClient.connect(url(app)) as attacker:
        await host.request({"type": "guest", "name": "host"})
        table_id = (await host.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await subscriber.request({"type": "guest", "name": "sub"})
        await attacker.request({"type": "guest", "name": "flap"})
        await asyncio.sleep(2.2)  # the creation's own pushes are out, and their beat over
        await subscriber.request({"type": "list_tables", "room": "spades"})
        seen = len(subscriber.received)
        for _ in range(40):
            await attacker.request({"type": "watch", "table": table_id})
            await attacker.request({"type": "unwatch", "table": table_id})

        def updates() -> list[dict[str, Any]]:
            return [m["table"] for m in subscriber.received[seen:]
                    if m.get("type") == "table_update" and m["table"]["id"] == table_id]

        assert len(updates()) == 1 and updates()[0]["watchers"] == 1  # the first, at once
        await wait_for(lambda: len(updates()) == 2, timeout=3)
        assert updates()[1]["watchers"] == 0  # then the table as the beat left it
        await asyncio.sleep(1.2)
        assert len(updates()) == 2

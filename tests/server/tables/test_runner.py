"""What the runner adds to the machine, over a real socket: the store's answer and closing."""

from __future__ import annotations

import gc
import random
import weakref

from tests.server.conftest import choose, url, wait_for
from tests.server.test_seats import solo_table
from trickroom.server.client import ServerError, TrickroomClient


async def test_an_action_the_store_refuses_is_not_acknowledged_and_changes_nothing(app):
    async with TrickroomClient.connect(url(app)) as player:
        table_id, _ = await solo_table(player, rules={"target": 500})
        machine = app.lobby.tables[table_id].machine
        await wait_for(lambda: machine.state.game.to_act == 0 and bool(
            [m for m in player.received if m.get("type") == "prompt"]))
        prompt = [m for m in player.received if m.get("type") == "prompt"][-1]
        before = (len(machine.state.game.actions), repr(machine.state.game.view(None)),
                  machine.log.seq)
        real = app.store.persist

        async def disk_full(records, fence=None):
            raise OSError("disk full")

        app.store.persist = disk_full
        try:
            action = choose(prompt, random.Random(1))
            try:
                await player.act(table_id, action)
                raise AssertionError("an unstored action was acknowledged")
            except ServerError as exc:
                assert exc.code == "unavailable" and exc.reply["retry_after"] > 0
            assert (len(machine.state.game.actions), repr(machine.state.game.view(None)),
                    machine.log.seq) == before
        finally:
            app.store.persist = real
        await player.act(table_id, action)  # the store is back: the same action goes in
        seat, done = machine.state.game.actions[before[0]]
        assert (seat, done.to_wire()) == (0, action)


async def test_a_table_that_closed_leaves_the_lobby_and_answers_no_such_table(app):
    async with TrickroomClient.connect(url(app)) as host:
        await host.request({"type": "guest", "name": "host"})
        await host.request({"type": "list_tables", "room": "spades"})
        created = await host.request({"type": "create_table", "room": "spades",
                                      "rules": {"target": 10, "mercy": 10}})
        table_id = created["table"]["id"]
        await host.request({"type": "watch", "table": table_id})
        await host.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await wait_for(lambda: any(m.get("type") == "table_update" and m["removed"]
                                   for m in host.received), 30)
        removed = next(m for m in host.received if m.get("type") == "table_update"
                       and m["removed"])
        assert removed["table"]["id"] == table_id and removed["table"]["state"] == "closed"
        assert table_id not in app.lobby.tables
        closed = [m["event"] for m in host.received if m.get("type") == "event"
                  and m["event"]["type"] == "closed"]
        assert closed and "every player has left" in closed[0]["reason"]
        try:
            await host.request({"type": "sit", "table": table_id})
            raise AssertionError("a closed table took a seat")
        except ServerError as exc:
            assert exc.code == "no_such_table"
        listing = await host.request({"type": "list_tables", "room": "spades"})
        assert listing["tables"] == []
        record = await app.store.game((closed and created["table"]["id"] + "-") or "")
        assert record is None  # (no game by a made-up id; the real one is reviewable below)
        game_id = next(m["event"]["game_id"] for m in host.received if m.get("type") == "event"
                       and m["event"]["type"] == "game_started")
        assert (await app.store.game(game_id))["result"]["finished"]


async def test_a_closed_tables_memory_goes_at_once_not_at_the_next_full_collection(app):
    """A table's objects (its machine, event log, timers, robots) form no reference cycle
    once it has closed: reference counting frees them as it closes. Objects left in a
    cycle wait for a full collection, which comes only after the heap has grown by a
    quarter; until then a server's memory swells by every game played since the last one."""
    async with TrickroomClient.connect(url(app)) as host:
        await host.request({"type": "guest", "name": "host"})
        created = await host.request({"type": "create_table", "room": "spades",
                                      "rules": {"target": 10, "mercy": 10}})
        table_id = created["table"]["id"]
        await host.request({"type": "watch", "table": table_id})
        runner = weakref.ref(app.lobby.tables[table_id])
        machine = weakref.ref(app.lobby.tables[table_id].machine)
        gc.collect()
        gc.disable()
        try:
            await host.request({"type": "fill_robots", "table": table_id, "level": "random"})
            await wait_for(lambda: table_id not in app.lobby.tables, 30)
            await host.request({"type": "ping"})  # the table's task has ended meanwhile
            assert runner() is None and machine() is None
        finally:
            gc.enable()

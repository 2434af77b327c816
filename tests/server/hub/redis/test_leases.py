"""A node paused past its lease (SIGSTOP, a long GC, a VM migration) wakes up still thinking
it runs its tables: the fencing token refuses its write, nothing of it is stored, and the
table plays on at the node that took it over."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from tests.server.conftest import url, wait_for
from tests.server.test_seats import solo_table
from trickroom.server.client import ServerError, TrickroomClient


async def test_a_paused_owner_s_write_is_refused_by_the_fencing_token(cluster):
    old, new = await cluster.node(), await cluster.node()
    async with TrickroomClient.connect(url(old)) as player:
        table, _ = await solo_table(player, rules={"target": 100, "mercy": 100},
                                    level="heuristic", name="p")
        machine = old.lobby.tables[table].machine
        await wait_for(lambda: machine.state.game is not None and machine.state.game.to_act == 0)
        game_id = machine.state.game_id
        stored = len(machine.state.game.actions)  # the robots wait for seat 0 now

        # The old owner stops: no renewals, no scans (as under SIGSTOP). Its lease expires
        # and the other node takes the table over from the store.
        for task in old.hub.leases._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await wait_for(lambda: table in new.lobby.tables, 15)
        assert new.hub.leases.epochs[table] > old.hub.leases.epochs[table]

        # It wakes up believing its lease still good, and a player's action reaches it.
        old.hub.leases.renewed_at = time.monotonic()
        prompt = next(m for m in reversed(player.received) if m.get("type") == "prompt")
        with pytest.raises(ServerError, match="moved to another server"):
            await player.act(table, prompt["legal"][0])
        assert len(machine.state.game.actions) == stored  # undone: acknowledged to no one
        await wait_for(lambda: table not in old.lobby.tables)  # it let the table go

    # The table lives on at the new owner (its robot plays the absent seat meanwhile), and
    # what the store holds is the new owner's: a prefix of its game, nothing of the old's.
    runner = new.lobby.tables[table]
    assert runner.machine.state.game_id == game_id
    await wait_for(lambda: len(runner.machine.state.game.actions) > stored + 2)
    held = [(a["seat"], a) for a in (await new.store.unfinished_game(table)).actions]
    mine = [(seat, action.to_wire()) for seat, action in runner.machine.state.game.actions]
    assert [(s, {k: v for k, v in a.items() if k != "seat"}) for s, a in held] == \
        mine[:len(held)]


async def test_a_node_stops_though_its_scan_swallowed_the_cancellation(cluster, monkeypatch):
    """redis-py (8.1) may swallow a cancellation that lands in a command: the call returns as
    if nothing happened. The take-over scan, cancelled so at stop, ends all the same (it ran
    on, and the node's stop waited for it until the test's own bound)."""
    node = await cluster.node()
    leases = node.hub.leases
    entered = asyncio.Event()

    async def swallowing_scan() -> None:
        entered.set()
        with contextlib.suppress(asyncio.CancelledError):  # as redis-py may
            await asyncio.sleep(3600)

    monkeypatch.setattr(leases, "scan", swallowing_scan)
    await entered.wait()
    cluster.nodes.remove(node)  # stopped here, not again at the end
    stopping = asyncio.ensure_future(node.stop())
    done, _ = await asyncio.wait([stopping], timeout=30)  # a failure bound only
    assert done, "the node's stop waited on its take-over scan"
    await stopping

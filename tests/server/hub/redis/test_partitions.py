"""A node cut off from Redis but not from PostgreSQL, and the reverse (issue 31): through a
fault proxy in front of each service, while the service itself keeps running.

* Cut off from Redis alone, a node proves its leases by the store (no table's epoch moved)
  and its tables play on: Redis is on no move's path.
* If another node, still on Redis, takes the table over meanwhile (the cut-off node's
  leases expired there), the store's fence refuses the cut-off node's next write: the
  table plays on at the new node, and the store holds one game, with no move twice.
* Cut off from PostgreSQL alone, a node refuses every move with ``unavailable`` and the
  request's id, keeps its leases (no other node takes the table), and plays on once
  PostgreSQL answers again.
"""

from __future__ import annotations

import asyncio
import random

import asyncpg
import pytest

from tests.server.conftest import play_until_over, url, wait_for
from tests.server.hub.conftest import LEASE
from tests.server.test_seats import solo_table
from tests.services import POSTGRES
from trickroom.server.client import ServerError, TrickroomClient


def through(proxy, service: str) -> str:
    return {"redis": f"redis://127.0.0.1:{proxy.port}/0",
            "postgres": f"postgresql://postgres@127.0.0.1:{proxy.port}/test"}[service]


async def stored_actions(cluster, game_id: str) -> list[tuple[int, int]]:
    """(index, seat) of every move PostgreSQL holds for a game."""
    schema = cluster.store.split("schema=")[1]
    conn = await asyncpg.connect(POSTGRES, server_settings={"search_path": schema})
    try:
        rows = await conn.fetch("SELECT idx, seat FROM actions WHERE game_id = $1 "
                                "ORDER BY idx", game_id)
        return [(row["idx"], row["seat"]) for row in rows]
    finally:
        await conn.close()


async def a_node_behind_a_redis_proxy_and_another(cluster, fault_proxy):
    """A node that reaches Redis through a fault proxy (to cut it off), and one that does
    not: the proxy and the two nodes."""
    redis = await fault_proxy(6379)
    return redis, await cluster.node(redis=through(redis, "redis")), await cluster.node()


async def test_a_node_cut_off_from_redis_alone_plays_on(cluster, fault_proxy):
    redis = await fault_proxy(6379)
    node = await cluster.node(redis=through(redis, "redis"))
    async with TrickroomClient.connect(url(node)) as player:
        table, _ = await solo_table(player, rules={"target": 500, "mercy": None},
                                    level="heuristic", name="p")
        runner = node.lobby.tables[table]
        await wait_for(lambda: runner.machine.state.game is not None)
        game = runner.machine.state.game

        redis.cut()
        cut_at = len(game.actions)
        # Three leases without Redis: the robots' and the player's moves go on, stored
        # (play_until_over fails on any refusal but a turn already gone by).
        playing = asyncio.create_task(play_until_over(player, table, random.Random(1)))
        await asyncio.wait({playing}, timeout=3 * LEASE["lease_seconds"])
        if playing.done():  # the whole game, played while Redis was away
            assert playing.result()["event"]["type"] == "game_over"
        else:  # no refusal, no closed socket so far
            playing.cancel()
        assert len(game.actions) > cut_at + 8
        assert table in node.lobby.tables  # still this node's
        assert not [m for m in player.received if m.get("type") == "error"]
        redis.restore()
        for _ in range(100):  # its lease is set again in Redis at the next renewal
            if await node.hub.leases.owner(table, fresh=True) == node.hub.node.number:
                break
            await asyncio.sleep(0.1)
        assert await node.hub.leases.owner(table, fresh=True) == node.hub.node.number


async def test_a_table_taken_over_from_a_node_cut_off_from_redis_is_stored_once(
        cluster, fault_proxy):
    redis, cut_off, other = await a_node_behind_a_redis_proxy_and_another(cluster, fault_proxy)
    async with TrickroomClient.connect(url(cut_off)) as player:
        table, token = await solo_table(player, rules={"target": 500, "mercy": None},
                                        level="heuristic", name="p")
        machine = cut_off.lobby.tables[table].machine
        await wait_for(lambda: machine.state.game is not None)
        game_id = machine.state.game_id
        redis.cut()
        # The other node sees the lease expire and takes the table over from the store;
        # the cut-off node's next write is refused by the fence, and it lets the table go.
        await wait_for(lambda: table in other.lobby.tables, 20)
        await wait_for(lambda: table not in cut_off.lobby.tables, 20)
        errors = [m for m in player.received if m.get("type") == "error"]
        assert all(e.get("id") is not None for e in errors), errors
    redis.restore()

    new = other.lobby.tables[table].machine
    await wait_for(lambda: len(new.state.game.actions) > 8)
    async with new_lock(other, table):
        held = await stored_actions(cluster, game_id)
        assert [idx for idx, _ in held] == list(range(len(held)))  # one move an index
        assert [seat for _, seat in held] == [s for s, _ in new.state.game.actions][:len(held)]

    # The player comes back through the node it knew, and plays on at the table's node.
    async with TrickroomClient.connect(url(other)) as back:
        await back.request({"type": "resume", "token": player.session})
        snapshot = await back.request({"type": "rejoin", "table": table, "seat_token": token})
        assert snapshot["type"] == "snapshot"


def new_lock(node, table: str):
    return node.lobby.tables[table].lock


async def test_a_node_cut_off_from_postgresql_refuses_moves_keeps_its_tables_and_resumes(
        cluster, fault_proxy):
    pg = await fault_proxy(5432)
    schema = cluster.store.split("schema=")[1]
    node = await cluster.node(store=f"{through(pg, 'postgres')}?schema={schema}")
    other = await cluster.node()
    async with TrickroomClient.connect(url(node)) as player:
        table, _ = await solo_table(player, rules={"target": 500, "mercy": None},
                                    level="heuristic", name="p")
        runner = node.lobby.tables[table]
        await wait_for(lambda: runner.machine.state.game is not None
                       and runner.machine.state.game.to_act == 0
                       and any(m.get("type") == "prompt" for m in player.received))
        prompt = next(m for m in reversed(player.received) if m.get("type") == "prompt")
        before = len(runner.machine.state.game.actions)
        pg.cut()
        with pytest.raises(ServerError) as refused:
            await player.act(table, prompt["legal"][0])
        assert refused.value.code == "unavailable" and refused.value.reply["id"] is not None
        assert len(runner.machine.state.game.actions) == before  # nothing changed
        await asyncio.sleep(1.5 * LEASE["lease_seconds"])  # past an expiry: still renewed
        assert table not in other.lobby.tables and table in node.lobby.tables
        pg.restore()
        await player.act(table, prompt["legal"][0])  # the same move, now stored
        assert runner.machine.state.game.actions[before][0] == 0  # (robots play on after)


async def test_a_node_that_finds_a_table_lost_proves_its_leases_while_that_table_is_busy(
        cluster, fault_proxy):
    # A move of the table's waits on the node's proof of its leases (its write's fence);
    # the proof, by the store (Redis being away), finds that another node took the table.
    # Letting the table go must not wait for that move: the node would never prove its
    # leases again, and answer nothing for any of its tables (a woken node hung for good).
    redis, cut_off, other = await a_node_behind_a_redis_proxy_and_another(cluster, fault_proxy)
    async with TrickroomClient.connect(url(cut_off)) as player:
        table, _ = await solo_table(player, rules={"target": 500, "mercy": None},
                                    level="heuristic", name="p")
        runner = cut_off.lobby.tables[table]
        await wait_for(lambda: runner.machine.state.game is not None
                       and runner.machine.state.game.to_act == 0)  # the robots wait
        leases = cut_off.hub.leases
        async with runner.lock:  # a move of the table's, in flight
            redis.cut()
            await wait_for(lambda: table in other.lobby.tables, 20)  # taken over
            await wait_for(lambda: table not in leases.epochs, 20)  # found lost, by the store
            await asyncio.sleep(LEASE["lease_seconds"])  # past the proof before
            assert await asyncio.wait_for(leases.prove(), 5)  # and proved again meanwhile
        await wait_for(lambda: table not in cut_off.lobby.tables)  # the move done, it stops
        redis.restore()


async def test_a_player_rejoining_through_a_node_while_redis_restarts_waits_for_it(
        cluster, fault_proxy):
    """Found by the bench (issue 31): a rejoin that reached a node while Redis restarted
    was refused ``unavailable``, an error a seated player saw. A player coming back to a
    table changes nothing twice, so the node waits for Redis (a few seconds at most) and
    answers then."""
    redis, front, owner = await a_node_behind_a_redis_proxy_and_another(cluster, fault_proxy)
    async with TrickroomClient.connect(url(owner)) as player:
        table, token = await solo_table(player, rules={"target": 500, "mercy": None},
                                        level="heuristic", name="p")
        session = player.session
    async with TrickroomClient.connect(url(front)) as back:
        await back.request({"type": "resume", "token": session})
        redis.cut()  # Redis restarting, as this node sees it
        rejoin = asyncio.create_task(back.request(
            {"type": "rejoin", "table": table, "seat_token": token}, timeout=15))
        await asyncio.sleep(1.0)
        assert not rejoin.done()  # waiting, not refused
        redis.restore()
        snapshot = await rejoin
        assert snapshot["type"] == "snapshot" and snapshot["table"] == table

"""Nodes of a cluster killed under load (or its Redis restarted): failover, and nothing
acknowledged lost (DESIGN section 11).

Every node is ``trickroom serve --store postgresql://... --cluster redis://...`` in its own
process on loopback, against the machine's real PostgreSQL (a schema made for the run)
and Redis (a key prefix made for the run): :class:`Services`, removed at the end.
:func:`fault_phase` plays ``tables`` tables of :mod:`bench.acked`'s players (connecting to
any live node) on three nodes, and every ``gap`` seconds kills the node owning the most
tables with SIGKILL and starts it again; for each kill, how long until every table the
dead node owned has a new owner that has stored an action (failover). At the end every
action a player saw acknowledged is checked against PostgreSQL. ``bench.cluster`` runs it
after its load levels; ``tests/cluster`` runs it small.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from rich.console import Console

from bench.acked import ACTIONS_SQL, Run, missing, report_stuck, table_runner, tally
from bench.figures import pct
from bench.harness import Server

POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
CLUSTER_SETTINGS = ["lease_seconds = 1.5", "forward_seconds = 2.0"]


class Services:
    """This run's PostgreSQL schema and Redis key prefix, removed at the end."""

    def __init__(self, redis: str = REDIS) -> None:
        self.schema = f"bench_{secrets.token_hex(4)}"
        self.prefix = f"trbench{secrets.token_hex(4)}"
        self.redis = redis

    @property
    def store(self) -> str:
        return f"{POSTGRES}?schema={self.schema}"

    def node_args(self) -> tuple[str, ...]:
        return ("--cluster", self.redis, "--cluster-prefix", self.prefix)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        conn = await asyncpg.connect(POSTGRES, server_settings={"search_path": self.schema})
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    async def clean(self) -> None:
        conn = await asyncpg.connect(POSTGRES)
        try:
            await conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
        finally:
            await conn.close()
        async with aioredis.from_url(self.redis) as client:
            keys = [k async for k in client.scan_iter(match=f"{self.prefix}:*")]
            if keys:
                await client.delete(*keys)


async def owners(services: Services) -> dict[str, int]:
    """Every table's owning node, from the leases."""
    async with aioredis.from_url(services.redis) as client:
        keys = [k async for k in client.scan_iter(match=f"{services.prefix}:lease:*")]
        values = await client.mget(keys) if keys else []
    return {k.decode().rsplit(":", 1)[1]: int(v) for k, v in zip(keys, values, strict=True)
            if v is not None}


async def node_of_pid(services: Services, pid: int) -> int | None:
    async with aioredis.from_url(services.redis) as client:
        async for key in client.scan_iter(match=f"{services.prefix}:alive:*"):
            if await client.get(key) == str(pid).encode():
                return int(key.decode().rsplit(":", 1)[1])
    return None


async def games_held(services: Services, node: int) -> tuple[dict[str, str], dict[str, int]]:
    """The unfinished games of the tables ``node`` owns (read before it is killed: by
    the time it is started again its leases may have expired), with their action counts."""
    held = [t for t, owner in (await owners(services)).items() if owner == node]
    rows = await services.fetch("SELECT table_id, id FROM games WHERE finished IS NULL")
    games = {r["table_id"]: r["id"] for r in rows if r["table_id"] in held}
    return games, {g: await action_count(services, g) for g in games.values()}


async def failover_time(services: Services, dead: int, killed_at: float,
                        games: dict[str, str], counts: dict[str, int],
                        limit: float = 30.0) -> tuple[float, int]:
    """Seconds from the kill until every unfinished table of the dead node has another
    owner and has stored an action since the kill; and how many tables that was."""
    waiting = set(games)
    while waiting and time.perf_counter() - killed_at < limit:
        now_owners = await owners(services)
        for table_id in list(waiting):
            owner = now_owners.get(table_id)
            game = games[table_id]
            finished = await services.fetch("SELECT 1 FROM games WHERE id = $1 AND "
                                            "finished IS NOT NULL", game)
            if finished or (owner not in (None, dead)
                            and await action_count(services, game) > counts[game]):
                waiting.discard(table_id)
        if waiting:
            await asyncio.sleep(0.05)
    return time.perf_counter() - killed_at, len(games)


async def action_count(services: Services, game_id: str) -> int:
    rows = await services.fetch("SELECT COUNT(*) AS n FROM actions WHERE game_id = $1", game_id)
    return int(rows[0]["n"])


async def fault_phase(services: Services, config: Path, tables: int, kills: int,
                      gap: float, seed: int, console: Console,
                      restart_redis: Callable[[], None] | None = None) -> dict[str, Any]:
    """Kill the busiest node ``kills`` times under load; or, given ``restart_redis``, restart
    the cluster's Redis that many times instead (nothing kept: every lease, queue and
    subscription is gone)."""
    rng = random.Random(seed)
    nodes = [Server(services.store, config, extra=services.node_args()) for _ in range(3)]
    for node in nodes:
        node.start()
    run = Run()
    up = asyncio.Event()
    up.set()

    def any_node() -> str:
        return rng.choice([n for n in nodes if n.alive] or nodes).url

    runners = [asyncio.create_task(table_runner(any_node, up, run, rng))
               for _ in range(tables)]
    failovers: list[float] = []
    moved = 0
    try:
        await asyncio.sleep(2.0)
        for i in range(kills):
            await asyncio.sleep(gap)
            if restart_redis is not None:
                restart_redis()
                console.print(f"  redis restart {i + 1}")
                continue
            # The node that owns the most tables: every kill moves some.
            held = Counter((await owners(services)).values())
            ids = {n.pid: await node_of_pid(services, n.pid) for n in nodes}
            victim = max(nodes, key=lambda n: (held.get(ids[n.pid] or -1, 0), rng.random()))
            dead = ids[victim.pid]
            held_games, counts = (await games_held(services, dead) if dead is not None
                                  else ({}, {}))
            killed_at = time.perf_counter()
            victim.kill()
            victim.start()  # a new node on the same address: clients may come back to it
            if dead is None:
                continue
            took, count = await failover_time(services, dead, killed_at, held_games, counts)
            moved += count
            if count:
                failovers.append(took)
            console.print(f"  kill {i + 1}: node {dead} owned {count} unfinished table(s); "
                          f"all running again after {took:.2f} s")
        run.stopping = True
        try:
            await asyncio.wait_for(asyncio.gather(*runners), 120)
        except TimeoutError:
            console.print("  some tables did not finish within 120 s:")
            report_stuck(run, nodes[0].port, console.print)
    finally:
        for r in runners:
            r.cancel()
        for node in nodes:
            node.stop()
    actions = tally(await services.fetch(ACTIONS_SQL))
    games = {r["id"] for r in await services.fetch("SELECT id FROM games")}
    finished = {r["id"] for r in await services.fetch(
        "SELECT id FROM games WHERE finished IS NOT NULL")}
    lost = missing(run.acked, actions, console.print)
    return {"kills": kills, "failover_max": max(failovers, default=0.0),
            "failover_p50": pct(failovers, 0.5) if failovers else 0.0, "moved": moved,
            "acked_lost": lost, "errors": dict(run.errors), "stalls": run.stalls,
            "unfinished": len(games - finished), "games": len(games),
            "acked": run.acked_count}



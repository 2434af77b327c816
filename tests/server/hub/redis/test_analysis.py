"""Analyses on a cluster (issue 38): the store is the queue every node's workers take jobs
from, so a job asked on a busy node is analysed by an idle one, and any node shows its
progress and result."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack

from tests.server.conftest import http_get, url
from tests.server.test_analysis import finished_game
from trickroom.server import analysis
from trickroom.server.client import TrickroomClient


async def test_a_job_asked_on_a_busy_node_is_taken_by_an_idle_one(cluster, monkeypatch):
    # The idle node looks for other nodes' work every 50 ms, not every second: a job of
    # 200 deals a decision on the compiled engines can end within the second, and the
    # asked node, free again, then took the second job itself.
    monkeypatch.setattr(analysis, "POLL_SECONDS", 0.05)
    asked, idle = await cluster.node(analysis_samples=200), await cluster.node(
        analysis_samples=200)
    async with AsyncExitStack() as stack:
        clients = []
        for i in range(2):  # two address groups: one analysis each at a time
            client = await stack.enter_async_context(
                TrickroomClient.connect(url(asked), local_addr=(f"127.0.0.{40 + i}", 0)))
            await client.request({"type": "guest"})
            clients.append(client)
        games = [await finished_game(c, asked, seed=i, hands=1) for i, c in enumerate(clients)]
        for client, game_id in zip(clients, games, strict=True):
            await client.request({"type": "analyse", "game_id": game_id})
        # A bound, not a timing: the workers run in the idle class, and on a busy machine
        # (a test run's other worker) they wait for the processor.
        async with asyncio.timeout(240):
            while True:
                rows = [await asked.store.analysis(g) for g in games]
                if all(r["state"] == "done" for r in rows):
                    break
                await asyncio.sleep(0.1)
    # One worker a node: the asked node took one job, the idle node the other.
    assert {r["node"] for r in rows} == {asked.analyses.node, idle.analyses.node}
    status, _, body = await http_get(idle, f"/api/games/{games[0]}/analysis")
    assert status == 200 and json.loads(body)["analysis"]["decisions"]

"""A node process stopped past its lease (SIGSTOP), then let go on (SIGCONT), as a host's
first week would (issue 31, bug 2): the paused node served tables it had lost for 11-22 s
after SIGCONT. Now the other node takes the table over while it is stopped, and the
requests waiting in the paused node's sockets, the first thing it reads on waking, get no
view of the lost table: ``moved`` (to the table's node), or a close so that the client
rejoins."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

import pytest

from bench.faults import Services
from bench.harness import LOAD_CONFIG, Server, with_settings
from tests.services import need
from trickroom.server.client import TrickroomClient

LEASE = 1.5


def config(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.toml"
    path.write_text(with_settings(LOAD_CONFIG, [f"lease_seconds = {LEASE}",
                                                "forward_seconds = 2.0",
                                                'node_url = "ws://127.0.0.1:{port}/ws"']))
    return path


@pytest.fixture
async def services():
    need("postgresql")
    need("redis")
    made = Services()
    yield made
    await made.clean()


@pytest.fixture
def nodes(services, tmp_path):
    """Two nodes of one cluster: the one to pause, and the other; stopped after."""
    conf = config(tmp_path)
    paused = Server(services.store, conf, extra=services.node_args())
    other = Server(services.store, conf, extra=services.node_args())
    paused.start()
    try:
        other.start()
        yield paused, other
    finally:
        paused.stop()
        other.stop()


async def owner_epoch(services: Services, table: str) -> int:
    rows = await services.fetch("SELECT epoch FROM table_owners WHERE table_id = $1", table)
    return int(rows[0]["epoch"]) if rows else 0


async def a_long_game(player: TrickroomClient) -> tuple[str, dict]:
    """A guest's table of a long game (no mercy) with three robots: its id and the seat."""
    await player.request({"type": "guest", "name": "p"})
    created = await player.request({"type": "create_table", "room": "spades",
                                    "rules": {"target": 500, "mercy": None}})
    table = created["table"]["id"]
    seated = await player.request({"type": "sit", "table": table, "seat": 0})
    await player.request({"type": "fill_robots", "table": table, "level": "heuristic"})
    return table, seated


async def test_a_node_woken_after_losing_its_table_answers_nothing_for_it(services, nodes):
    paused, other = nodes
    async with TrickroomClient.connect(paused.url) as player:
        table, seated = await a_long_game(player)
        epoch = await owner_epoch(services, table)

        os.kill(paused.pid, signal.SIGSTOP)
        try:
            for _ in range(int(10 * LEASE / 0.1)):  # the other node takes the table
                if await owner_epoch(services, table) > epoch:
                    break
                await asyncio.sleep(0.1)
            assert await owner_epoch(services, table) > epoch, "never taken over"
            # A rejoin waits in the stopped node's socket: the first thing it reads.
            rejoin = {"type": "rejoin", "table": table, "seat_token": seated["seat_token"]}
            answer = asyncio.create_task(player._request(rejoin, 15))
            await asyncio.sleep(0.2)
        finally:
            os.kill(paused.pid, signal.SIGCONT)

        # Never the table as the paused node last had it: the player is sent to the
        # node that runs it now (or its socket closes, for a rejoin from scratch).
        with contextlib.suppress(ConnectionError):
            moved = await answer
            assert moved["type"] == "moved" and moved["url"] == other.url, moved

    # Back through the paused node: sent on, and seated again at the table's node.
    async with TrickroomClient.connect(paused.url) as back:
        await back.request({"type": "resume", "token": player.session})
        snapshot = await back.request(rejoin)
        assert snapshot["type"] == "snapshot" and back.url == other.url


async def test_a_player_rejoining_while_their_tables_node_is_paused_is_not_sent_there(
        services, nodes):
    """Found by the bench (issue 31): a player whose table's node stopped reconnected
    through another node before the lease ran out and was told ``moved`` to the stopped
    node, whose socket never opened; every such round cost a connect timeout, and the
    table waited 7-8 s at a 3 s lease. A lease that missed its renewal is not a place to
    send anyone: the player's rejoin waits for it to expire and is answered by the node
    that takes the table over."""
    paused, other = nodes
    async with TrickroomClient.connect(paused.url) as player:
        table, seated = await a_long_game(player)
        epoch = await owner_epoch(services, table)
        os.kill(paused.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(LEASE / 2)  # a renewal missed, the lease still held
            async with TrickroomClient.connect(other.url, open_timeout=2) as back:
                await back.request({"type": "resume", "token": player.session})
                rejoin = {"type": "rejoin", "table": table,
                          "seat_token": seated["seat_token"]}
                snapshot = await back.request(rejoin, timeout=4 * LEASE)
                assert snapshot["type"] == "snapshot", snapshot
                assert back.url == other.url  # never sent to the stopped node
                assert await owner_epoch(services, table) > epoch  # taken over
        finally:
            os.kill(paused.pid, signal.SIGCONT)

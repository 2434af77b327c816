"""Three nodes, one room: players on different nodes play one table, each seeing only what
their seat may see, and a player who drops rejoins through another node, missing nothing."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

from game.spades import SpadesGame
from server.client import TrickroomClient
from tests.server.conftest import play_until_over, url, wait_for
from tests.server.test_play import audit_hidden_cards


async def test_players_on_three_nodes_play_one_table_to_the_end(cluster):
    nodes = [await cluster.node() for _ in range(3)]
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(nodes[i % 3])))
                   for i in range(4)]
        watcher = await stack.enter_async_context(TrickroomClient.connect(url(nodes[2])))
        for i, client in enumerate(clients):
            await client.request({"type": "guest", "name": f"p{i}"})
        await watcher.request({"type": "guest", "name": "w"})
        created = await clients[1].request({"type": "create_table", "room": "spades",
                                            "rules": {"target": 100, "mercy": 100}})
        table = created["table"]["id"]
        assert table in nodes[1].lobby.tables  # made where it was asked for
        assert table not in nodes[0].lobby.tables and table not in nodes[2].lobby.tables
        for i, client in enumerate(clients):  # three of the four sit through another node
            seated = await client.request({"type": "sit", "table": table, "seat": i})
            assert seated["seat_token"]
        await watcher.request({"type": "watch", "table": table})
        ends = await asyncio.wait_for(asyncio.gather(
            *(play_until_over(c, table, random.Random(i)) for i, c in enumerate(clients))), 120)
        assert len({str(e["event"]) for e in ends}) == 1
        game_id = next(m["event"]["game_id"] for m in clients[0].received
                       if m.get("type") == "event" and m["event"]["type"] == "game_started")
        await wait_for(lambda: any(m.get("event", {}).get("type") == "game_over"
                                   for m in watcher.received))
        stored = await nodes[0].store.game(game_id)  # any node reads the shared store
        assert stored is not None
        audit_hidden_cards(clients, watcher, SpadesGame, stored["record"])
        assert nodes[1].cluster.forwarded == 0  # the owner's own client pays no hop
        assert nodes[0].cluster.forwarded > 0 and nodes[2].cluster.forwarded > 0


async def test_a_player_rejoins_through_another_node_and_misses_nothing(cluster):
    nodes = [await cluster.node() for _ in range(3)]
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(nodes[0])))
                   for _ in range(4)]
        for i, client in enumerate(clients):
            await client.request({"type": "guest", "name": f"p{i}"})
        created = await clients[0].request({"type": "create_table", "room": "spades",
                                            "rules": {"target": 100, "mercy": 100}})
        table = created["table"]["id"]
        tokens = [(await c.request({"type": "sit", "table": table, "seat": i}))["seat_token"]
                  for i, c in enumerate(clients)]
        # Seat 3 plays through node 1; then its socket drops, and it comes back on node 2.
        lost = clients[3]
        session = lost.session
        await lost.ws.close()
        mover = await stack.enter_async_context(TrickroomClient.connect(url(nodes[1])))
        await mover.request({"type": "resume", "token": session})
        await mover.request({"type": "rejoin", "table": table, "seat_token": tokens[3]})
        players = [*clients[:3], mover]
        runs = [asyncio.create_task(play_until_over(c, table, random.Random(i)))
                for i, c in enumerate(players)]
        machine = nodes[0].lobby.tables[table].machine
        await wait_for(lambda: len(machine.game.actions) >= 12, 30)
        last_seq = max(m["seq"] for m in mover.received if "seq" in m)
        session = mover.session
        runs[3].cancel()
        await mover.ws.close()
        await asyncio.sleep(0.3)  # the others (and seat 3's robot) play on meanwhile
        back = await stack.enter_async_context(TrickroomClient.connect(url(nodes[2])))
        await back.request({"type": "resume", "token": session})
        await back.request({"type": "rejoin", "table": table, "seat_token": tokens[3],
                            "last_seq": last_seq})
        await wait_for(lambda: any(m.get("type") == "prompt" or "seq" in m
                                   for m in back.received))
        seqs = sorted(m["seq"] for m in back.received if "seq" in m and m.get("type") == "event")
        assert seqs and seqs[0] == last_seq + 1  # from just after the last one it saw
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # and no gap
        for run in runs:
            run.cancel()

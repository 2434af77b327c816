"""Three nodes, one room: players on different nodes play one table, each seeing only what
their seat may see, and a player who drops rejoins through another node, missing nothing."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

from tests.server.conftest import play_until_over, url, wait_for
from tests.server.test_play import audit_hidden_cards
from trickroom.game.spades import SpadesGame
from trickroom.server.client import TrickroomClient


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
        assert nodes[1].hub.routing.forwarded == 0  # the owner's own client pays no hop
        assert nodes[0].hub.routing.forwarded > 0 and nodes[2].hub.routing.forwarded > 0


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
        await wait_for(lambda: len(machine.state.game.actions) >= 12, 30)
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
        # Every numbered message: events, and the skips that stand for other seats' cards.
        seqs = sorted(m["seq"] for m in back.received if m.get("type") in ("event", "skip"))
        assert seqs and seqs[0] == last_seq + 1  # from just after the last one it saw
        missing = sorted(set(range(seqs[0], seqs[-1] + 1)) - set(seqs))
        assert not missing, (missing, [m for m in back.received if "seq" in m])  # no gap
        for run in runs:
            run.cancel()


async def a_table_and_a_far_player(stack: AsyncExitStack, owner, far_node):
    """A Hearts table made on ``owner`` by a guest there, and a guest ("f") on ``far_node``
    (its requests for the table are forwarded); returns that guest's client and the table."""
    owner_side = await stack.enter_async_context(TrickroomClient.connect(url(owner)))
    far = await stack.enter_async_context(TrickroomClient.connect(url(far_node)))
    await owner_side.request({"type": "guest", "name": "o"})
    await far.request({"type": "guest", "name": "f"})
    made = await owner_side.request({"type": "create_table", "room": "hearts"})
    return far, made["table"]["id"]


async def test_a_node_s_old_idea_of_a_table_s_owner_costs_its_players_nothing(cluster):
    """A node remembers which node runs a remote table; if that memory is old (it missed
    the table's move), the node it asks says so, and the request goes to the real owner,
    instead of the player hearing of no such table."""
    nodes = [await cluster.node() for _ in range(3)]
    async with AsyncExitStack() as stack:
        far, table_id = await a_table_and_a_far_player(stack, nodes[0], nodes[1])
        await far.request({"type": "watch", "table": table_id})
        assert nodes[1].hub.leases._owners[table_id] == nodes[0].hub.node.number
        nodes[1].hub.leases._owners[table_id] = nodes[2].hub.node.number  # a move it never heard of
        seated = await far.request({"type": "sit", "table": table_id, "seat": 1})
        assert seated["seat_token"]
        assert nodes[1].hub.leases._owners[table_id] == nodes[0].hub.node.number  # looked again


async def test_a_request_reaching_a_node_in_the_middle_of_taking_the_table_over_waits_for_it(
        cluster):
    """A node that has the table's lease but is still loading its game (a take-over) does
    not send the request away as not its table: it answers once the table is up, and the
    player sees a pause, not ``unavailable``."""
    nodes = [await cluster.node() for _ in range(2)]
    async with AsyncExitStack() as stack:
        far, table_id = await a_table_and_a_far_player(stack, nodes[0], nodes[1])
        owner = nodes[0]
        runner = owner.lobby.tables.pop(table_id)  # as during a take-over: leased, not up
        owner.hub.leases.taking.add(table_id)

        async def up_again() -> None:
            await asyncio.sleep(0.4)
            owner.lobby.tables[table_id] = runner
            owner.hub.leases.taking.discard(table_id)

        loading = asyncio.create_task(up_again())
        seated = await far.request({"type": "sit", "table": table_id, "seat": 1})
        assert seated["seat_token"]
        await loading
        assert runner.machine.state.seats[1].name == "guest-f"


async def test_a_forwarded_card_is_answered_by_its_table_s_relay_frame_alone(cluster):
    """What a forwarded act costs Redis: the call, and the table's one relay frame, which
    also tells the asking node the act was run (no ``done`` frame of its own)."""
    owner, far = await cluster.node(), await cluster.node()
    ops: list[str] = []
    publish = owner.hub.bus.publish

    def counted(channel: str, data: bytes) -> None:
        ops.append(data.split(b"\n", 1)[0].decode())
        publish(channel, data)

    owner.hub.bus.publish = counted  # type: ignore[method-assign]
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(TrickroomClient.connect(url(owner)))
        player = await stack.enter_async_context(TrickroomClient.connect(url(far)))
        await host.request({"type": "guest", "name": "h"})
        await player.request({"type": "guest", "name": "p"})
        table = (await host.request({"type": "create_table", "room": "spades",
                                     "rules": {"target": 100, "mercy": 100}}))["table"]["id"]
        await player.request({"type": "sit", "table": table, "seat": 1})  # robots: the rest
        await host.request({"type": "fill_robots", "table": table})
        await host.request({"type": "start", "table": table})
        calls = owner.hub.routing.forwarded, far.hub.routing.forwarded
        ops.clear()
        await asyncio.wait_for(play_until_over(player, table, random.Random(1), stop_after=8),
                               60)
        acts = far.hub.routing.forwarded - calls[1]
    assert acts >= 8
    assert ops.count("relay") >= acts
    assert ops.count("done") == 0  # every act's answer rode on its relay frame

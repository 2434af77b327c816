"""Players play on their table's own node (issue 31): a player who sits at, or rejoins, a
table of another node is told where it is (``moved``) and goes there, so no move of theirs
crosses Redis; watchers stay where they are. A node that was paused past its lease answers
nothing for a table it lost: it proves its leases first, lets go of the lost, and sends the
player to the table's new node."""

from __future__ import annotations

import asyncio
import contextlib

from tests.server.conftest import url, wait_for
from tests.server.test_seats import solo_table
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient

NODE_URL = dict(node_url="ws://127.0.0.1:{port}/ws")


async def known_to(asker: App, node: App) -> None:
    """Until ``asker`` reads where ``node`` is (each node writes it at a renewal)."""
    number = node.hub.node.number
    for _ in range(200):
        if await asker.hub.leases.url_of(number) == url(node):
            return
        asker.hub.leases._urls.pop(number, None)
        await asyncio.sleep(0.05)
    raise AssertionError("the node's URL never reached the other")


async def open_table(host: TrickroomClient) -> str:
    """A host opens a table on the node its socket is on."""
    await host.request({"type": "guest", "name": "host"})
    created = await host.request({"type": "create_table", "room": "spades",
                                  "rules": {"target": 200, "mercy": 100}})
    return str(created["table"]["id"])


async def test_a_player_sitting_at_another_nodes_table_is_sent_there(cluster):
    owner, other = await cluster.node(**NODE_URL), await cluster.node(**NODE_URL)
    await known_to(other, owner)
    async with TrickroomClient.connect(url(owner)) as host, \
            TrickroomClient.connect(url(other)) as player:
        table = await open_table(host)
        welcome = await player.request({"type": "guest", "name": "traveller"})

        # What a bot sees on the wire: where to go, for its own request id.
        moved = await player._request({"type": "sit", "table": table, "seat": 1}, 10)
        assert moved["type"] == "moved" and moved["table"] == table
        assert moved["url"] == url(owner) and moved["id"] is not None
        assert owner.lobby.tables[table].machine.state.seats[1].client is None  # not seated

        # The SDK follows it: the seat is taken on the owner, over a socket of the owner.
        forwarded = other.hub.routing.forwarded
        seated = await player.request({"type": "sit", "table": table, "seat": 1})
        assert seated["type"] == "seated" and player.url == url(owner)
        seat = owner.lobby.tables[table].machine.state.seats[1]
        assert seat.client is not None and seat.client in owner.clients
        assert not owner.clients[seat.client].remote  # a socket of the owner's, no stand-in
        assert other.hub.routing.forwarded == forwarded  # nothing crossed Redis

        # Its session came along: the same player, by name.
        assert owner.clients[seat.client].name == welcome["name"]


async def test_a_watcher_stays_on_its_node_and_is_relayed_the_table(cluster):
    owner, other = await cluster.node(**NODE_URL), await cluster.node(**NODE_URL)
    await known_to(other, owner)
    async with TrickroomClient.connect(url(owner)) as host, \
            TrickroomClient.connect(url(other)) as watcher:
        table = await open_table(host)
        await watcher.request({"type": "guest", "name": "rail"})
        snapshot = await watcher.request({"type": "watch", "table": table})
        assert snapshot["type"] == "snapshot" and watcher.url == url(other)
        await host.request({"type": "sit", "table": table, "seat": 0})
        await wait_for(lambda: any(m.get("type") == "event" and m["table"] == table
                                   for m in watcher.received))


async def test_a_node_paused_past_its_lease_answers_nothing_for_a_table_it_lost(cluster):
    old, new = await cluster.node(**NODE_URL), await cluster.node(**NODE_URL)
    await known_to(old, new)
    async with TrickroomClient.connect(url(old)) as player:
        table, token = await solo_table(player, rules={"target": 100, "mercy": 100},
                                        level="heuristic", name="p")
        machine = old.lobby.tables[table].machine
        # The table waits for its player (seat 0): nothing of it writes meanwhile.
        await wait_for(lambda: machine.state.game is not None and machine.state.game.to_act == 0)
        # The old node stops renewing and scanning (as under SIGSTOP); the other takes over.
        for task in old.hub.leases._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await wait_for(lambda: table in new.lobby.tables, 15)
        assert table in old.lobby.tables  # it still thinks the table is its own

        # It wakes (SIGCONT), and its player's rejoin reaches it first: it proves its
        # leases before answering, lets the lost table go and closes its sockets there
        # (code 1012: rejoin), never serving the table as it was.
        rejoin = {"type": "rejoin", "table": table, "seat_token": token}
        with contextlib.suppress(ConnectionError):
            answer = await player._request(rejoin, 10)
            assert answer["type"] == "moved" and answer["url"] == url(new), answer
        assert table not in old.lobby.tables
        assert not any(m.get("type") == "snapshot" for m in player.received)

    # The player comes back through the same node: sent to the table's new one.
    async with TrickroomClient.connect(url(old)) as back:
        await back.request({"type": "resume", "token": player.session})
        answer = await back._request(rejoin, 10)
        assert answer["type"] == "moved" and answer["url"] == url(new), answer
        snapshot = await back.request(rejoin)
        assert snapshot["type"] == "snapshot" and back.url == url(new)
        seat = new.lobby.tables[table].machine.state.seats[0]
        assert seat.client in new.clients and not new.clients[seat.client].remote

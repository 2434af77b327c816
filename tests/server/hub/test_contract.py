"""The hub's contract: what every server promises, whether it is one process or a cluster.

Each test runs twice (tests/server/hub/conftest.py): on a server of one process, whose
"two nodes" are the one process (a cluster of one, ``LocalHub``), and on two nodes joined
by the real Redis over one real PostgreSQL (``RedisHub``). A player may be connected to
either node; what nodes share must not depend on which: listings and their pushes, room
and table chat with the ignore lists, the ranked queue, guest names, the limits, and where
a table's requests run.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import next_pushed, play_until_over, url
from tests.server.refusals import answers, refused
from tests.server.test_duplicate_rooms import board_of, duplicate_table
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.metrics import METRICS
from trickroom.server.tables import board


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    """Wait until ``check`` holds (what one node shares reaches the others soon)."""
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.01)


async def counted(node: App, kind: str, key: str, count: int) -> bool:
    """Whether ``node`` counts ``count`` of something limited for ``key``: its own count,
    and the other nodes' as the hub tells it."""
    here = {"connections": lambda: node.sessions.per_ip.get(key, 0),
            "guests": lambda: node.guests.per_address.get(key, 0),
            "tables-account": lambda: sum(n == key for n, _ in node.lobby.created_by.values())}
    return here[kind]() + await node.hub.count_elsewhere(kind, key) == count


async def guests(stack: AsyncExitStack, *where: tuple[App, str]) -> list[TrickroomClient]:
    """A guest connected to each node, by the name it asks for."""
    clients = []
    for node, name in where:
        client = await stack.enter_async_context(TrickroomClient.connect(url(node)))
        await client.request({"type": "guest", "name": name})
        clients.append(client)
    return clients


async def heard(client: TrickroomClient, wanted: Callable[[dict], bool]) -> None:
    """Wait until the client has received a message ``wanted`` picks."""
    async def received() -> bool:
        return any(wanted(m) for m in client.received)
    await eventually(received)


async def in_room(stack: AsyncExitStack, room: str,
                  *where: tuple[App, str]) -> list[TrickroomClient]:
    """Guests (one a node and name) reading a room's list and chat."""
    clients = await guests(stack, *where)
    for client in clients:
        await client.request({"type": "list_tables", "room": room})
    return clients


def said(client: TrickroomClient, text: str) -> bool:
    return any(m.get("type") == "chat" and m["text"] == text for m in client.received)


# -- tables: where they run, and where their requests go -------------------------------------


async def test_a_table_runs_on_one_node_and_every_node_plays_it(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        host, far = await guests(stack, (a, "host"), (b, "far"))
        table = (await host.request({"type": "create_table", "room": "spades",
                                     "rules": {"target": 100, "mercy": 100}}))["table"]["id"]
        assert sum(table in node.lobby.tables for node in {a, b}) == 1
        seated = await far.request({"type": "sit", "table": table, "seat": 1})
        assert seated["seat_token"]
        await host.request({"type": "fill_robots", "table": table})
        await heard(far, lambda m: (m.get("type") == "prompt" and m["table"] == table)
                           or (m.get("type") == "event"
                               and m["event"]["type"] == "game_started"))
        error = await refused(far, {"type": "sit", "table": "no-such-table"})
        assert error["code"] == "no_such_table"


# -- rooms: listings, chat and ignores ---------------------------------------------------------


async def test_a_table_opened_on_one_node_is_listed_counted_and_pushed_on_every_node(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        maker, looker = await guests(stack, (a, "maker"), (b, "looker"))
        await looker.request({"type": "list_tables", "room": "hearts"})
        table = (await maker.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        await heard(looker, lambda m: m.get("type") == "table_update"
                              and m["table"]["id"] == table and not m["removed"])
        listed = await looker.request({"type": "list_tables", "room": "hearts"})
        assert [t["id"] for t in listed["tables"]] == [table] and listed["total"] == 1
        rooms = await looker.request({"type": "list_rooms"})
        assert next(r for r in rooms["rooms"] if r["name"] == "hearts")["tables"] == 1


async def test_a_player_s_own_tables_are_in_its_list_on_every_node(server):
    """However many tables wait before it, the table a player opened or sits at is in the
    list it is given, on whichever node it is connected (issue 32, item 16)."""
    a, b = await server.nodes(tables_listed=2, waiting_tables_per_address=10)
    async with AsyncExitStack() as stack:
        squatter, host, far = await guests(stack, (a, "squatter"), (a, "host"), (b, "far"))
        for _ in range(3):
            await squatter.request({"type": "create_table", "room": "spades"})
        table = (await host.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await far.request({"type": "sit", "table": table, "seat": 1})

        async def listed(client: TrickroomClient) -> bool:
            reply = await client.request({"type": "list_tables", "room": "spades"})
            return table in [t["id"] for t in reply["tables"]] and reply["total"] == 4
        await eventually(lambda: listed(far))
        assert await listed(host)
        reply = await squatter.request({"type": "list_tables", "room": "spades"})
        assert table not in [t["id"] for t in reply["tables"]]  # not the squatter's


async def test_room_chat_reaches_the_room_s_players_on_every_node(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        speaker, here, there = await in_room(stack, "spades", (a, "speaker"), (a, "here"),
                                             (b, "there"))
        await speaker.request({"type": "chat", "room": "spades", "text": "anyone for spades?"})
        for reader in (here, there):
            await heard(reader, lambda m: m.get("type") == "chat"
                                  and m["text"] == "anyone for spades?")


async def test_room_chat_is_not_shown_to_a_player_who_ignores_the_speaker_on_any_node(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        pest, friend, reader = await in_room(stack, "spades", (a, "pest"), (a, "friend"),
                                             (b, "reader"))
        await reader.request({"type": "ignore", "name": "guest-pest"})
        await pest.request({"type": "chat", "room": "spades", "text": "buy my coins"})
        await friend.request({"type": "chat", "room": "spades", "text": "hello all"})
        await heard(reader, lambda m: m.get("type") == "chat" and m["text"] == "hello all")
        assert not said(reader, "buy my coins")
        assert said(friend, "buy my coins")  # ignored by one player, not by the room


async def test_an_ignore_set_on_one_node_holds_at_a_table_run_by_another(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        pest, host, reader = await guests(stack, (a, "pest"), (a, "host"), (b, "reader"))
        table = (await host.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        for seat, client in enumerate((host, pest, reader)):
            await client.request({"type": "sit", "table": table, "seat": seat})
        await reader.request({"type": "ignore", "name": "guest-pest"})  # said on b
        await pest.request({"type": "chat", "table": table, "text": "you all play badly"})
        await host.request({"type": "chat", "table": table, "text": "good luck"})
        await heard(reader, lambda m: m.get("type") == "chat" and m["text"] == "good luck")
        assert not said(reader, "you all play badly")
        await reader.request({"type": "ignore", "name": "guest-pest", "on": False})
        await pest.request({"type": "chat", "table": table, "text": "sorry"})
        await heard(reader, lambda m: m.get("type") == "chat" and m["text"] == "sorry")


async def test_an_ignore_list_is_bounded_on_every_node(server):
    """One player ignores at most ``ignores_per_player`` others (issue 32, item E: 157,900
    ignores from 10 addresses grew the server by 33 MB): past it, a typed refusal; ignoring
    one already ignored, or showing one again, still works."""
    a = (await server.nodes(ignores_per_player=3))[0]
    async with AsyncExitStack() as stack:
        (reader,) = await guests(stack, (a, "reader"))
        for i in range(3):
            await reader.request({"type": "ignore", "name": f"guest-pest{i}"})
        error = await refused(reader, {"type": "ignore", "name": "guest-pest3"})
        assert error["code"] == "invalid_field" and "3" in error["message"]
        await reader.request({"type": "ignore", "name": "guest-pest0"})  # already: no change
        await reader.request({"type": "ignore", "name": "guest-pest0", "on": False})
        await reader.request({"type": "ignore", "name": "guest-pest3"})


async def test_a_guest_s_ignores_end_with_its_connection(server):
    """A guest's ignore list is its connection's: it does not outlive it on any node (the
    guest resuming its session starts with none)."""
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        (pest,) = await in_room(stack, "spades", (b, "pest"))
        async with TrickroomClient.connect(url(a)) as reader:
            welcome = await reader.request({"type": "guest", "name": "reader"})
            await reader.request({"type": "ignore", "name": "guest-pest"})
        back = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        await back.request({"type": "resume", "token": welcome["session"]})
        await back.request({"type": "list_tables", "room": "spades"})
        await pest.request({"type": "chat", "room": "spades", "text": "hello again"})
        await heard(back, lambda m: m.get("type") == "chat" and m["text"] == "hello again")


async def test_a_registered_player_s_ignores_outlive_its_connection(server):
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        (pest, friend) = await in_room(stack, "spades", (b, "pest"), (b, "friend"))
        async with TrickroomClient.connect(url(a)) as reader:
            await reader.request({"type": "register", "name": "reader", "password": "secret1"})
            await reader.request({"type": "ignore", "name": "guest-pest"})
        back = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await back.request({"type": "login", "name": "reader", "password": "secret1"})
        await back.request({"type": "list_tables", "room": "spades"})
        await pest.request({"type": "chat", "room": "spades", "text": "buy my coins"})
        await friend.request({"type": "chat", "room": "spades", "text": "hello all"})
        await heard(back, lambda m: m.get("type") == "chat" and m["text"] == "hello all")
        assert not said(back, "buy my coins")


async def test_a_registered_player_s_ignores_come_from_the_store_at_each_login(server):
    """The store keeps the list (issue 32, item E): what the shared state lost (a
    restarted Redis, a restarted server) comes back with the next login, on any node."""
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        (pest, friend) = await in_room(stack, "spades", (b, "pest"), (b, "friend"))
        async with TrickroomClient.connect(url(a)) as reader:
            await reader.request({"type": "register", "name": "reader", "password": "secret1"})
            await reader.request({"type": "ignore", "name": "guest-pest"})
            await reader.request({"type": "ignore", "name": "guest-gone"})
            await reader.request({"type": "ignore", "name": "guest-gone", "on": False})
        await a.hub.ignores_dropped("reader")  # what is shared forgot it
        await a.hub.ignore("reader", "guest-friend", True, 200)  # or holds what was undone
        assert await b.hub.ignored_by("guest-pest") == frozenset()
        back = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await back.request({"type": "login", "name": "reader", "password": "secret1"})
        assert await a.hub.ignored_by("guest-pest") == {"reader"}
        await back.request({"type": "list_tables", "room": "spades"})
        await pest.request({"type": "chat", "room": "spades", "text": "buy my coins"})
        await friend.request({"type": "chat", "room": "spades", "text": "hello all"})
        await heard(back, lambda m: m.get("type") == "chat" and m["text"] == "hello all")
        assert not said(back, "buy my coins")


async def test_spectator_chat_at_a_game_in_play_is_the_table_s_choice_on_every_node(server):
    """A spectator on another node than the table's is held to the table's setting, and
    a player there changes it (issue 32, items 15 and 20)."""
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        host, rail = await guests(stack, (a, "host"), (b, "rail"))
        table = (await host.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        await host.request({"type": "sit", "table": table, "seat": 0})
        await host.request({"type": "fill_robots", "table": table})
        await heard(host, lambda m: m.get("type") == "event"
                              and m["event"]["type"] == "game_started")
        await rail.request({"type": "watch", "table": table})
        error = await refused(rail, {"type": "chat", "table": table, "text": "psst"})
        assert error["code"] == "not_seated"
        await host.request({"type": "table_options", "table": table, "spectator_chat": True})
        await rail.request({"type": "chat", "table": table, "text": "well played"})
        await heard(host, lambda m: m.get("type") == "chat" and m["text"] == "well played")
        assert not said(host, "psst")


async def test_an_address_s_waiting_tables_in_a_room_are_counted_over_every_node(server):
    a, b = await server.nodes(waiting_tables_per_address=2)
    async with AsyncExitStack() as stack:
        here, there = await guests(stack, (a, "here"), (b, "there"))
        await here.request({"type": "create_table", "room": "spades"})
        await there.request({"type": "create_table", "room": "spades"})
        for node in (a, b):
            async def both(node: App = node) -> bool:
                return (node.lobby._waiting("spades", "127.0.0.1") + await
                        node.hub.count_elsewhere("waiting-address", "spades 127.0.0.1")) == 2
            await eventually(both)
        for client in (here, there):
            error = await refused(client, {"type": "create_table", "room": "spades"})
            assert error["code"] == "rate_limited" and "waiting" in error["message"]


# -- the ranked queue ------------------------------------------------------------------------


async def test_the_random_queue_is_one_queue_over_every_node(server):
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        clients = []
        for i, node in enumerate((a, b, a, b)):  # four people: four addresses
            client = await stack.enter_async_context(
                TrickroomClient.connect(url(node), local_addr=(f"127.0.0.{10 + i}", 0)))
            await client.request({"type": "register", "name": f"q{i}", "password": "secret-q"})
            await a.store.set_casual_games(f"q{i}", 5)
            clients.append(client)
        for i, client in enumerate(clients[:3]):
            status = await client.request({"type": "queue", "room": "hearts-zone"})
            assert status["queued"] and status["length"] == i + 1
        again = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await again.request({"type": "login", "name": "q0", "password": "secret-q"})
        error = await refused(again, {"type": "queue", "room": "hearts-zone"})
        assert "already in this queue" in error["message"]  # queued on a: the same on b
        await clients[3].request({"type": "queue", "room": "hearts-zone"})
        for client in clients:
            await heard(client, lambda m: m.get("type") == "seated")
        seated = [next(m for m in c.received if m.get("type") == "seated") for c in clients]
        assert len({s["table"] for s in seated}) == 1
        assert sorted(s["seat"] for s in seated) == [0, 1, 2, 3]
        for client in clients:  # every player, on whichever node, is told the game
            await heard(client, lambda m: m.get("type") == "event"
                                  and m["event"]["type"] == "game_started")
        assert (await a.hub.queued("hearts-zone"))[0] == []


async def test_leaving_the_queue_or_closing_the_socket_takes_a_player_out_on_every_node(
        server):
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        clients = []
        for i, node in enumerate((a, b)):
            client = await stack.enter_async_context(TrickroomClient.connect(url(node)))
            await client.request({"type": "register", "name": f"z{i}", "password": "secret-z"})
            await a.store.set_casual_games(f"z{i}", 5)
            await client.request({"type": "queue", "room": "spades-zone"})
            clients.append(client)
        left = await clients[1].request({"type": "unqueue", "room": "spades-zone"})
        assert not left["queued"] and left["length"] == 1
        await clients[0].ws.close()
        await eventually(lambda: _queue_is_empty(b, "spades-zone"))


async def _queue_is_empty(node: App, room: str) -> bool:
    return (await node.hub.queued(room))[0] == []


# -- names and limits --------------------------------------------------------------------------


async def test_two_guests_asking_for_one_name_on_two_nodes_get_two_names(server):
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        second = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        names = [(await c.request({"type": "guest", "name": "ann"}))["name"]
                 for c in (first, second)]
        assert names[0] == "guest-ann" and names[1].startswith("guest-ann-")


async def test_a_look_alike_of_a_resumable_guest_is_not_given_out_on_any_node(server):
    """A guest away from ``guest-Gn7c9c`` may resume it: no node gives out ``guest-gn7c9c``
    (issue 32, item 6)."""
    a, b = await server.nodes()
    async with TrickroomClient.connect(url(a)) as first:
        assert (await first.request({"type": "guest", "name": "Gn7c9c"}))["name"] == \
            "guest-Gn7c9c"
    for node in (a, b):
        async with TrickroomClient.connect(url(node)) as other:
            name = (await other.request({"type": "guest", "name": "gn7c9c"}))["name"]
            assert name.lower() != "guest-gn7c9c"


async def test_an_address_s_sockets_are_capped_over_every_node(server):
    a, b = await server.nodes(connections_per_ip=4)
    sockets = [await connect(url(node)) for node in (a, a, b, b)]
    try:
        for node in {a, b}:
            await eventually(lambda node=node: counted(node, "connections", "127.0.0.1", 4))
        for node in (a, b):
            with pytest.raises(InvalidStatus) as err:
                await connect(url(node))
            assert err.value.response.status_code == 429
        await sockets.pop().close()
        await eventually(lambda: counted(a, "connections", "127.0.0.1", 3))
        sockets.append(await connect(url(a)))  # one went: one more may come, on any node
    finally:
        for ws in sockets:
            await ws.close()


async def test_an_address_group_s_sockets_and_guests_are_counted_as_one_over_every_node(
        server):
    """Two addresses of one IPv6 /64 (behind the host's proxy) are one client on every
    node: the group is made before the hub counts it."""
    a, b = await server.nodes(trusted_proxies=["127.0.0.1"], connections_per_ip=2,
                              guests_per_address=1)
    group = "2001:db8:9:1::/64"
    async with AsyncExitStack() as stack:
        first, second = [await stack.enter_async_context(TrickroomClient.connect(
            url(node), additional_headers={"X-Forwarded-For": address}))
            for node, address in ((a, "2001:db8:9:1::1"), (b, "2001:db8:9:1::2"))]
        for node in {a, b}:
            await eventually(lambda node=node: counted(node, "connections", group, 2))
        for node in (a, b):
            with pytest.raises(InvalidStatus) as err:
                await connect(url(node), additional_headers={"X-Forwarded-For":
                                                             "2001:db8:9:1::3"})
            assert err.value.response.status_code == 429
        await first.request({"type": "guest"})
        await eventually(lambda: counted(b, "guests", group, 1))
        assert (await refused(second, {"type": "guest"}))["code"] == "rate_limited"


async def test_a_guesser_switching_nodes_meets_the_account_s_back_off(server):
    a, b = await server.nodes(login_free_failures=3, login_backoff_seconds=30,
                              password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as owner, \
            TrickroomClient.connect(url(a)) as on_a, TrickroomClient.connect(url(b)) as on_b:
        await owner.request({"type": "register", "name": "bob", "password": "right-one"})
        for i, guesser in enumerate((on_a, on_b, on_a)):  # three free typos, spread
            error = await refused(guesser, {"type": "login", "name": "bob",
                                            "password": f"guess{i}"})
            assert error["code"] == "bad_credentials"
        checked = b.passwords.checked
        error = await refused(on_b, {"type": "login", "name": "bob", "password": "guess3"})
        assert error["code"] == "rate_limited" and error["retry_after"] > 0
        assert b.passwords.checked == checked  # refused without checking the password
        error = await refused(on_b, {"type": "login", "name": "BOB", "password": "right-one"})
        assert error["code"] == "rate_limited"  # the owner waits too, on every node


async def test_a_player_s_open_tables_are_capped_over_every_node(server):
    a, b = await server.nodes(tables_per_account=2, password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        await on_a.request({"type": "register", "name": "tess", "password": "long-enough"})
        await on_b.request({"type": "login", "name": "tess", "password": "long-enough"})
        await on_a.request({"type": "create_table", "room": "spades"})
        await on_b.request({"type": "create_table", "room": "spades"})
        await eventually(lambda: counted(a, "tables-account", "tess", 2))
        error = await refused(on_a, {"type": "create_table", "room": "hearts"})
        assert error["code"] == "rate_limited" and "open tables" in error["message"]




async def test_an_address_guessing_many_accounts_through_two_nodes_is_throttled(server):
    a, b = await server.nodes(login_free_failures_per_address=4, login_backoff_seconds=30,
                              password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        codes = []
        for i in range(6):
            guesser = (on_a, on_b)[i % 2]
            codes.append((await refused(guesser, {"type": "login", "name": f"user{i}",
                                                  "password": "123456"}))["code"])
    assert codes == ["bad_credentials"] * 4 + ["rate_limited"] * 2


async def test_a_good_login_on_one_node_clears_the_account_s_failures_on_all(server):
    a, b = await server.nodes(login_free_failures=2, login_backoff_seconds=0.3,
                              password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        await on_a.request({"type": "register", "name": "cat", "password": "meow-meow"})
        for client in (on_a, on_b):
            await refused(client, {"type": "login", "name": "cat", "password": "woof-woof"})
        await eventually(lambda: _account_waits(b, "cat"))  # closed a moment, on b too
        await eventually(lambda: _account_open(a, "cat"))
        await on_a.request({"type": "login", "name": "cat", "password": "meow-meow"})
        await eventually(lambda: _account_open(b, "cat"))
        error = await refused(on_b, {"type": "login", "name": "cat", "password": "woof"})
        assert error["code"] == "bad_credentials"  # one failure again, not the third


async def _account_waits(node: App, name: str) -> bool:
    return await node.hub.login_wait(name, "elsewhere") > 0


async def _account_open(node: App, name: str) -> bool:
    return await node.hub.login_wait(name, "elsewhere") == 0


async def test_an_address_s_guests_are_capped_over_every_node(server):
    a, b = await server.nodes(guests_per_address=2)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(node)))
                   for node in (a, b, a)]
        await clients[0].request({"type": "guest"})
        await clients[1].request({"type": "guest"})
        await eventually(lambda: counted(a, "guests", "127.0.0.1", 2))
        assert (await refused(clients[2], {"type": "guest"}))["code"] == "rate_limited"
        await clients[1].ws.close()  # b's guest leaves: a's third may come in
        await eventually(lambda: counted(a, "guests", "127.0.0.1", 1))
        await clients[2].request({"type": "guest"})


async def test_an_address_floods_two_nodes_at_its_one_rate(server):
    """More nodes do not buy a flood more messages: past the address's burst, each node's
    sockets wait for the credit the other's spent."""
    rate, burst, each = 40, 40, 80
    a, b = await server.nodes(messages_per_second=1000, message_burst=1000,
                              messages_per_second_per_address=rate,
                              message_burst_per_address=burst)
    delayed = METRICS.messages_delayed._value.get()
    sockets = [await connect(url(node)) for node in (a, b)]
    try:
        for ws in sockets:
            for i in range(each):
                await ws.send(json.dumps({"type": "ping", "id": i}))
        for ws in sockets:
            replies, _ = await answers(ws, each)
            assert [r["id"] for r in replies] == list(range(each))  # all answered, in order
    finally:
        for ws in sockets:
            await ws.close()
    # One budget for the address: of 160 messages, all but its burst wait their turn (two
    # budgets of 40 would have held back 80). A node may hold a few credits over.
    chunk = max(1, min(burst // 4, rate // 10))
    assert METRICS.messages_delayed._value.get() - delayed >= 2 * each - burst - 2 * chunk


async def test_a_sprayed_password_is_counted_over_every_node(server):
    """One password tried over many accounts, half of them on each node (issue 32, item
    1): the nodes count its failures together, so it is checked a few times in all."""
    a, b = await server.nodes(login_free_failures_per_guess=3, password_profile="cheapest")
    stored = a.passwords.ph.hash("own-password")
    for i in range(12):
        await a.store.create_user(f"sprayed{i}", stored)
    codes = []
    async with TrickroomClient.connect(url(a), local_addr=("127.0.0.2", 0)) as on_a, \
            TrickroomClient.connect(url(b), local_addr=("127.0.0.3", 0)) as on_b:
        for i in range(12):
            client = (on_a, on_b)[i % 2]
            codes.append((await refused(client, {"type": "login", "name": f"sprayed{i}",
                                                 "password": "123456"}))["code"])
    assert codes.count("bad_credentials") <= 4 and codes[-4:] == ["rate_limited"] * 4


async def test_signing_out_everywhere_closes_the_account_s_sockets_on_every_node(server):
    """``logout_all`` on one node (issue 32, item D): the account's sockets on the other
    node close too, and its sessions resume nowhere."""
    a, b = await server.nodes(password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as on_a, \
            TrickroomClient.connect(url(b)) as on_b:
        await on_a.request({"type": "register", "name": "ann", "password": "secret-1"})
        await on_b.request({"type": "login", "name": "ann", "password": "secret-1"})
        tokens = [on_a.session, on_b.session]
        assert (await on_b.request({"type": "logout_all"}))["sessions"] == 2
        await on_a.ws.wait_closed()
        assert "signed out" in on_a.ws.close_reason
    for node in (a, b):
        for token in tokens:
            async with TrickroomClient.connect(url(node)) as client:
                error = await refused(client, {"type": "resume", "token": token})
                assert error["code"] == "not_authorized"


async def test_an_address_s_registrations_are_counted_over_every_node(server):
    """20 accounts an hour from one address (issue 32, item 2), whichever node each is
    made on; one refused for another reason (a taken name) is not counted."""
    a, b = await server.nodes(registrations_per_hour_per_address=3,
                              password_profile="cheapest")
    replies = []
    for i, node in enumerate((a, b, a, b, a)):
        async with TrickroomClient.connect(url(node), local_addr=("127.0.0.2", 0)) as client:
            if i == 1:
                await refused(client, {"type": "register", "name": "new0",
                                       "password": "long-enough"})  # name_taken
            try:
                replies.append(await client.request({"type": "register", "name": f"new{i}",
                                                     "password": "long-enough"}))
            except ServerError as exc:
                replies.append(exc.reply)
    assert [r["type"] for r in replies] == ["welcome"] * 3 + ["error"] * 2
    assert {r["code"] for r in replies[3:]} == {"rate_limited"}


async def test_an_address_s_passwords_checked_are_one_budget_over_every_node(server):
    """A flood of logins spread over the nodes gets one address's budget of password
    checks, not one a node (issue 32, items 2-3)."""
    a, b = await server.nodes(password_check_burst_per_address=3,
                              password_checks_per_second_per_address=0.001,
                              login_free_failures=100, login_free_failures_per_address=100,
                              login_free_failures_per_guess=100, password_profile="cheapest")
    async with TrickroomClient.connect(url(a)) as owner:
        await owner.request({"type": "register", "name": "cat", "password": "meow-meow"})
    codes = []
    for i, node in enumerate((a, b, a, b, a)):
        async with TrickroomClient.connect(url(node), local_addr=("127.0.0.7", 0)) as client:
            codes.append((await refused(client, {"type": "login", "name": "cat",
                                                 "password": f"guess-{i}"}))["code"])
    assert codes == ["bad_credentials"] * 3 + ["rate_limited"] * 2


async def test_an_account_s_chat_rate_is_one_over_every_node(server):
    a, b = await server.nodes(chat_burst_per_account=3, chat_per_second_per_account=0.001,
                              password_profile="cheapest")
    async with TrickroomClient.connect(url(a), local_addr=("127.0.0.2", 0)) as on_a, \
            TrickroomClient.connect(url(b), local_addr=("127.0.0.3", 0)) as on_b:
        await on_a.request({"type": "register", "name": "talker", "password": "talk-talk"})
        await on_b.request({"type": "login", "name": "talker", "password": "talk-talk"})
        said = []
        for client in (on_a, on_b, on_a, on_b, on_a):
            try:
                await client.request({"type": "chat", "room": "spades", "text": "hi"})
                said.append("said")
            except ServerError as exc:
                assert exc.code == "rate_limited" and "account" in str(exc), exc.reply
                said.append("refused")
    assert said == ["said"] * 3 + ["refused"] * 2


async def test_an_address_s_chat_rate_is_one_over_every_node(server):
    a, b = await server.nodes(chat_burst_per_address=3, chat_per_second_per_address=0.001)
    async with AsyncExitStack() as stack:
        said = []
        for i, node in enumerate((a, b, a, b, a)):
            client = await stack.enter_async_context(
                TrickroomClient.connect(url(node), local_addr=("127.0.0.4", 0)))
            await client.request({"type": "guest", "name": f"talk{i}"})
            try:
                await client.request({"type": "chat", "room": "spades", "text": "hi"})
                said.append("said")
            except ServerError as exc:
                assert exc.code == "rate_limited", exc.reply
                said.append("refused")
    assert said == ["said"] * 3 + ["refused"] * 2


async def test_everyone_s_failed_logins_are_one_budget_over_every_node(server):
    """A spray over many accounts, passwords and addresses meets one budget of failures,
    whichever node each guess goes to (issue 32, item 1)."""
    a, b = await server.nodes(login_failure_burst=4, login_failures_per_second=0.001,
                              password_profile="cheapest")
    for i in range(8):
        async with TrickroomClient.connect(url(a)) as owner:
            await owner.request({"type": "register", "name": f"p{i}", "password": "own-pass"})
    codes = []
    for i, node in enumerate((a, b) * 4):
        async with TrickroomClient.connect(url(node),
                                           local_addr=(f"127.0.0.{i + 10}", 0)) as client:
            codes.append((await refused(client, {"type": "login", "name": f"p{i}",
                                                 "password": f"guess-{i}"}))["code"])
    assert codes == ["bad_credentials"] * 4 + ["rate_limited"] * 4


async def test_a_private_table_is_listed_on_no_node_and_its_invite_works_from_any(server):
    """Issue 35: a private table's invite seats a friend who reached another node (sent on
    to the table's own), and no node lists it."""
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        ann, bob, eve = await guests(stack, (a, "ann"), (b, "bob"), (b, "eve"))
        made = await ann.request({"type": "create_table", "room": "spades", "private": True})
        table, code = made["table"]["id"], made["invite"]["code"]
        await ann.request({"type": "sit", "table": table, "seat": 0})
        assert (await refused(eve, {"type": "sit", "table": table}))["code"] == "no_such_table"
        assert (await refused(eve, {"type": "watch", "table": table, "invite": code[:-2]}))[
            "code"] == "not_invited"
        assert (await bob.request({"type": "sit", "table": table, "invite": code}))["seat"] == 1
        for node in (a, b):
            tables, total = await node.hub.room_tables("spades", 100)
            assert table not in {t.id for t in tables} and total == 0


async def test_a_friend_s_presence_reaches_followers_on_every_node(server):
    """Issue 35: a player on one node, followed from the other, is seen coming online, at a
    table and going offline; a node that dies takes its players' presence with it."""
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        await ann.request({"type": "register", "name": "ann", "password": "ann-secret"})
        async with TrickroomClient.connect(url(b)) as first:
            await first.request({"type": "register", "name": "bob", "password": "bob-secret"})
        await ann.request({"type": "follow", "name": "bob"})
        friends = await ann.request({"type": "friends"})
        assert friends["players"][0]["online"] is False

        def presence() -> list[dict]:
            return [m for m in ann.received if m.get("type") == "presence"]

        bob = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await bob.request({"type": "login", "name": "bob", "password": "bob-secret"})
        await heard(ann, lambda m: m.get("type") == "presence" and m["online"])
        table = (await bob.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await bob.request({"type": "sit", "table": table})
        await heard(ann, lambda m: m.get("type") == "presence" and m["at"] is not None)
        assert presence()[-1]["at"]["table"] == table
        await bob.ws.close()
        await heard(ann, lambda m: m.get("type") == "presence" and not m["online"])


async def test_a_challenge_reaches_and_is_answered_from_another_node(server):
    """Issue 35: the challenge goes to the player's node, the answer is taken there, and
    the table it opens seats both, each from their own node."""
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        bob = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await ann.request({"type": "register", "name": "ann", "password": "ann-secret"})
        await bob.request({"type": "register", "name": "bob", "password": "bob-secret"})
        sent = await ann.request({"type": "challenge", "room": "spades",
                                  "seats": ["ann", None, "bob", None]})
        await heard(bob, lambda m: m.get("type") == "challenged")
        await bob.request({"type": "answer_challenge", "challenge": sent["challenge"]["id"],
                           "accept": True})
        await heard(ann, lambda m: m.get("type") == "challenge_over")
        over = [m for m in ann.received if m.get("type") == "challenge_over"][-1]
        assert over["outcome"] == "accepted"
        assert (await ann.request({"type": "sit", "table": over["table"]}))["seat"] == 0
        assert (await bob.request({"type": "sit", "table": over["table"]}))["seat"] == 2


async def test_a_bot_hears_its_game_start_and_end_on_another_node(server):
    """Issue 36, item 2: a game's start and end reach every connection of the account,
    on whichever node; ``events`` lists the games in play from any node."""
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        waiting = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        await waiting.request({"type": "register", "name": "robo", "password": "robo-robo"})
        assert (await waiting.request({"type": "events"}))["games"] == []
        player = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await player.request({"type": "login", "name": "robo", "password": "robo-robo"})
        seated = await player.request({"type": "seek", "room": "hearts", "level": "random",
                                       "rules": {"hand_limit": 1}})
        table = seated["table"]
        await heard(waiting, lambda m: m.get("type") == "game_start")
        start = next(m for m in waiting.received if m.get("type") == "game_start")
        assert (start["table"], start["seat"], start["game"]) == (table, 0, "hearts")
        games = (await waiting.request({"type": "events"}))["games"]
        assert [(g["table"], g["seat"], g["game_id"]) for g in games] == [
            (table, 0, start["game_id"])]
        await play_until_over(player, table, random.Random(1))
        await heard(waiting, lambda m: m.get("type") == "game_finish")
        finish = next(m for m in waiting.received if m.get("type") == "game_finish")
        assert finish["game_id"] == start["game_id"] and len(finish["scores"]) == 4
        assert (await waiting.request({"type": "events"}))["games"] == []


async def test_a_bot_plays_a_duplicate_match_at_another_node_s_sandbox(server):
    """Issue 36, items 1 and 4 on every hub: an account upgraded on one node is a BOT on
    the other (the store is shared), and its duplicate match at a sandbox table of one
    node is played from a connection of the other (``moved`` followed), to its result."""
    a, b = await server.nodes(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        opener = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        await opener.request({"type": "register", "name": "robo", "password": "robo-robo"})
        await opener.request({"type": "upgrade_to_bot", "confirm": True})
        made = await opener.request({"type": "create_table", "room": "spades",
                                     "rules": {"hand_limit": 1},
                                     "sandbox": {"seed": 5, "duplicate": True}})
        table = made["table"]["id"]
        await opener.ws.close()
        bot = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        welcome = await bot.request({"type": "login", "name": "robo", "password": "robo-robo"})
        assert welcome["bot"] is True
        await bot.request({"type": "sit", "table": table, "seat": 0})
        await bot.request({"type": "fill_robots", "table": table, "level": "random"})
        await play_until_over(bot, table, random.Random(1))
        await bot.request({"type": "play_again", "table": table})
        await play_until_over(bot, table, random.Random(2))
        await heard(bot, lambda m: m.get("type") == "event"
                    and m["event"]["type"] == "duplicate_result")
        result = next(m["event"] for m in bot.received if m.get("type") == "event"
                      and m["event"]["type"] == "duplicate_result")
        assert result["games"] == 2 and result["deals"] == 1
        robo = next(p for p in result["players"] if p["name"] == "robo")
        assert robo["seats"] == [0, 1]


async def test_a_board_sets_tables_on_two_nodes_hear_each_others_deals(server, monkeypatch):
    """Issue 39 on every hub: a duplicate room's board set played at a table of each node.
    The set is claimed and its deals met in the store, so each table is told how the
    other played its deals, and the set's result: on one node the table that stores a
    deal wakes the other at once; across nodes, the other reads it at its poll (made short
    here)."""
    monkeypatch.setattr(board, "POLL_SECONDS", 0.2)
    a, b = await server.nodes()
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, (a, "ann"), (b, "bob"))
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(1))
        second = await duplicate_table(bob, "spades-duplicate")
        await play_until_over(bob, second, random.Random(2))
        assert first in a.lobby.tables and second in b.lobby.tables
        assert board_of(ann, first)["board_set"] == board_of(bob, second)["board_set"]
        for client, table in ((ann, first), (bob, second)):
            told = [await next_pushed(client, "event",
                                      lambda m: m["event"]["type"] == "board_deal")
                    for _ in range(2)]
            assert sorted(m["event"]["deal"] for m in told) == [0, 1]
            assert all(m["table"] == table for m in told)
            await next_pushed(client, "event", lambda m: m["event"]["type"] == "board_result")

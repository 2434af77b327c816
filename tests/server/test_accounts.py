"""What accounts and guests may do (issue 13): a connection does not churn through guest
sessions, an address holds a bounded number of guests, an account holds one seat, and a
casual game counts once for each account that finished it, not for one playing alone."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

from tests.server.conftest import play_until_over, url, wait_for
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient


async def test_one_connection_may_not_churn_through_guest_sessions(app):
    async with TrickroomClient.connect(url(app)) as client:
        for _ in range(5):
            await client.request({"type": "guest"})
        error = await refused(client, {"type": "guest"})
        assert error["code"] == "rate_limited"
    await wait_for(lambda: not app.guests.per_address)  # closed: every name it held goes


async def test_one_address_holds_a_bounded_number_of_guests(make_app):
    app = await make_app(guests_per_address=3)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        for client in clients[:3]:
            await client.request({"type": "guest"})
        assert (await refused(clients[3], {"type": "guest"}))["code"] == "rate_limited"
        await clients[0].ws.close()
        await wait_for(lambda: app.guests.per_address["127.0.0.1"] == 2)
        await clients[3].request({"type": "guest"})


async def test_one_account_on_four_sockets_gets_one_seat(app):
    async with AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        await sockets[0].request({"type": "register", "name": "farmer", "password": "farm-farm"})
        for s in sockets[1:]:
            await s.request({"type": "login", "name": "farmer", "password": "farm-farm"})
        created = await sockets[0].request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        await sockets[0].request({"type": "sit", "table": table_id, "seat": 0})
        for i, s in enumerate(sockets[1:], 1):
            error = await refused(s, {"type": "sit", "table": table_id, "seat": i})
            assert error["code"] == "seat_taken" and "rejoin" in error["message"]
        seats = app.lobby.tables[table_id].machine.state.seats
        assert [s.kind for s in seats] == ["human", "empty", "empty", "empty"]


async def test_one_account_with_robots_earns_no_casual_games(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "solo", "password": "solo-solo"})
        created = await client.request({"type": "create_table", "room": "spades",
                                        "rules": {"target": 100, "mercy": 100}})
        table_id = created["table"]["id"]
        await client.request({"type": "sit", "table": table_id, "seat": 0})
        await client.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await play_until_over(client, table_id, random.Random(1))
    await wait_for(lambda: app.lobby.tables.get(table_id) is None
                   or app.lobby.tables[table_id].machine.state.phase in ("over", "closed"))
    assert (await app.store.account("solo"))["casual_games"] == 0


async def test_two_accounts_finishing_a_casual_game_count_it_once_each(app):
    async with AsyncExitStack() as stack:
        a, b = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                for _ in range(2)]
        await a.request({"type": "register", "name": "amy", "password": "amy-amy"})
        await b.request({"type": "register", "name": "ben", "password": "ben-ben"})
        created = await a.request({"type": "create_table", "room": "spades",
                                   "rules": {"target": 250, "mercy": 250}})
        table_id = created["table"]["id"]
        await a.request({"type": "sit", "table": table_id, "seat": 0})
        await b.request({"type": "sit", "table": table_id, "seat": 1})
        await a.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await asyncio.gather(play_until_over(a, table_id, random.Random(1)),
                             play_until_over(b, table_id, random.Random(2)))
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        await a.request({"type": "ping"})
    assert (await app.store.account("amy"))["casual_games"] == 1
    assert (await app.store.account("ben"))["casual_games"] == 1

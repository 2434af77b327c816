"""What accounts and guests may do (issue 13): a connection does not churn through guest
sessions, an address holds a bounded number of guests, an account holds one seat, and a
casual game counts once for each account that finished it, not for one playing alone."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

from tests.server.conftest import FAST, play_until_over, url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


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
    async with AsyncExitStack() as stack:  # two people: two addresses
        a, b = [await stack.enter_async_context(
                    TrickroomClient.connect(url(app), local_addr=(f"127.0.0.{20 + i}", 0)))
                for i in range(2)]
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


async def two_of_one_address(app, stack: AsyncExitStack) -> list[TrickroomClient]:
    """One person's two accounts, amy and ben, from one address (127.0.0.1)."""
    clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
               for _ in range(2)]
    for client, name in zip(clients, ("amy", "ben"), strict=True):
        await client.request({"type": "register", "name": name, "password": name * 2})
    return clients


async def casual_table(a: TrickroomClient, b: TrickroomClient) -> tuple[str, list[str]]:
    """A casual Spades game of a full half-target (it counts by its length) with robots."""
    created = await a.request({"type": "create_table", "room": "spades",
                               "rules": {"target": 250, "mercy": 250}})
    table_id = created["table"]["id"]
    tokens = [(await c.request({"type": "sit", "table": table_id, "seat": i}))["seat_token"]
              for i, c in enumerate((a, b))]
    await a.request({"type": "fill_robots", "table": table_id, "level": "random"})
    return table_id, tokens


async def test_two_accounts_of_one_address_group_earn_no_casual_games(app):
    """Issue 32, item 7: two accounts of one person, with two guests, met the "two
    registered accounts finished it" rule alone. Accounts count by address group: two
    from one address are one player, and earn nothing."""
    async with AsyncExitStack() as stack:
        a, b = await two_of_one_address(app, stack)
        table_id, _ = await casual_table(a, b)
        await asyncio.gather(play_until_over(a, table_id, random.Random(1)),
                             play_until_over(b, table_id, random.Random(2)))
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        await a.request({"type": "ping"})
    assert (await app.store.account("amy"))["casual_games"] == 0
    assert (await app.store.account("ben"))["casual_games"] == 0
    record = await app.store.game(table.state.game_id)  # the game kept names no address
    assert record is not None and not any("group" in s for s in record["seats"])
    row = await app.store._fetchone("SELECT seats FROM games WHERE id = ?",
                                    (table.state.game_id,))
    assert row is not None and "127.0.0.1" not in row["seats"]


async def test_a_resumed_game_remembers_the_address_group_each_seat_sat_from(tmp_path):
    """A restart resumes the seats with the groups they sat from: two accounts of one
    address still earn nothing for the game they finish after it."""
    db = tmp_path / "groups.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            a, b = await two_of_one_address(app, stack)
            table_id, tokens = await casual_table(a, b)
            sessions = [a.session, b.session]
            playing = [asyncio.create_task(play_until_over(c, table_id, random.Random(i)))
                       for i, c in enumerate((a, b))]
            await wait_for(lambda: len(app.lobby.tables[table_id].machine.state.game.actions)
                           >= 8)
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
    finally:
        await app.stop()
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        table = app.lobby.tables[table_id].machine
        async with AsyncExitStack() as stack:
            back = []
            for i, session in enumerate(sessions):  # back from two addresses this time
                client = await stack.enter_async_context(
                    TrickroomClient.connect(url(app), local_addr=(f"127.0.0.{30 + i}", 0)))
                await client.request({"type": "resume", "token": session})
                await client.request({"type": "rejoin", "table": table_id,
                                      "seat_token": tokens[i], "last_seq": 0})
                back.append(client)
            await asyncio.wait_for(asyncio.gather(
                *(play_until_over(c, table_id, random.Random(i)) for i, c in enumerate(back))),
                120)
            await wait_for(lambda: table.state.phase == "over")
            await back[0].request({"type": "ping"})
        assert (await app.store.account("amy"))["casual_games"] == 0
        assert (await app.store.account("ben"))["casual_games"] == 0
    finally:
        await app.stop()

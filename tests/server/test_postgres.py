"""The whole server on PostgreSQL: games played, stored, resumed after a restart, and an
outage of the database refused cleanly, never acknowledged unstored (DESIGN section 11)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from tests.server.conftest import FAST, play_until_over, seat_four, url, wait_for
from tests.server.test_seats import solo_table
from tests.services import POSTGRES, Outage
from trickroom.game.spades import SpadesGame
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.store import open_store


async def test_a_game_on_postgresql_is_stored_and_resumes_after_a_restart(schema):
    db = f"{POSTGRES}?schema={schema}"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        table, _ = await seat_four(app, "spades", {"target": 100, "mercy": 100}, clients)
        machine = app.lobby.tables[table].machine
        players = [asyncio.create_task(play_until_over(c, table, random.Random(i)))
                   for i, c in enumerate(clients)]
        await wait_for(lambda: machine.state.game is not None
                       and len(machine.state.game.actions) >= 10)
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    await app.stop()  # robots that took the dropped seats stop; every write is flushed
    played = list(machine.state.game.actions)
    store = open_store(db)
    await store.open()
    try:
        assert await store.action_count(machine.state.game_id) == len(played)
    finally:
        await store.close()

    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        resumed = again.lobby.tables[table].machine
        # The same game, from where it stopped (its robots may already have played on).
        assert resumed.state.game is not None and resumed.state.game_id == machine.state.game_id
        assert resumed.state.game.actions[:len(played)] == played
    finally:
        await again.stop()


@asynccontextmanager
async def app_behind_a_proxy(schema: str) -> AsyncIterator[tuple[App, Outage]]:
    """A server whose PostgreSQL is reached through a fault proxy: to cut it, or to lose
    its answers."""
    outage = Outage(5432)
    await outage.start()
    app = App(load_config(**FAST), f"postgresql://postgres@127.0.0.1:{outage.port}/test"
                                   f"?schema={schema}")
    await app.start("127.0.0.1", 0)
    try:
        yield app, outage
    finally:
        await app.stop()
        await outage.stop()


async def four_at_a_table(app: App, stack: AsyncExitStack) -> tuple[list[TrickroomClient], str]:
    """Four guests at a new short Spades table (a game of 100 points)."""
    clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
               for _ in range(4)]
    table, _ = await seat_four(app, "spades", {"target": 100, "mercy": 100}, clients)
    return clients, table


async def test_a_whole_game_on_postgresql_replays_from_its_stored_record(schema):
    app = App(load_config(**FAST), f"{POSTGRES}?schema={schema}")
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            clients, table = await four_at_a_table(app, stack)
            ends = await asyncio.wait_for(asyncio.gather(
                *(play_until_over(c, table, random.Random(i)) for i, c in enumerate(clients))),
                120)
            game_id = next(m["event"]["game_id"] for m in clients[0].received
                           if m.get("type") == "event" and m["event"]["type"] == "game_started")
        stored = await app.store.game(game_id)
        assert stored is not None
        assert list(SpadesGame.replay(stored["record"]).scores) == ends[0]["event"]["scores"]
    finally:
        await app.stop()


async def test_with_postgresql_away_an_action_is_refused_and_play_resumes_on_its_return(schema):
    async with app_behind_a_proxy(schema) as (app, outage), AsyncExitStack() as stack:
        clients, table = await four_at_a_table(app, stack)
        machine = app.lobby.tables[table].machine
        await wait_for(lambda: any(m.get("type") == "prompt" for c in clients
                                   for m in c.received))
        seat = machine.state.game.to_act
        prompt = next(m for m in clients[seat].received if m.get("type") == "prompt")
        legal = prompt["legal"][0]
        before = len(machine.state.game.actions)
        outage.cut()
        with pytest.raises(ServerError) as refused:
            await clients[seat].act(table, legal)
        assert refused.value.code == "unavailable"  # a pause: send it again
        assert refused.value.reply["id"] is not None
        assert len(machine.state.game.actions) == before  # nothing changed
        outage.restore()
        await clients[seat].act(table, legal)  # the same action, now stored
        assert len(machine.state.game.actions) == before + 1
        assert await app.store.action_count(machine.state.game_id) == before + 1


async def direct_action_count(schema: str, game_id: str) -> int:
    """What PostgreSQL itself holds (read past the node's own connection)."""
    import asyncpg
    conn = await asyncpg.connect(POSTGRES, server_settings={"search_path": schema})
    try:
        return int(await conn.fetchval("SELECT COUNT(*) FROM actions WHERE game_id = $1",
                                       game_id))
    finally:
        await conn.close()


async def test_a_move_the_database_kept_as_it_went_away_stands_once_and_play_goes_on(schema):
    """Issue 31, bug 1: PostgreSQL died mid-commit; the move was in the database, the node
    thought it had failed, and every later write hit a duplicate key for 255 s. Now the
    table reads itself back from the store before its next command: the move stands (once),
    its players rejoin, and the game goes on."""
    async with app_behind_a_proxy(schema) as (app, outage), AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        table, tokens = await seat_four(app, "spades", {"target": 100, "mercy": 100},
                                        clients)
        machine = app.lobby.tables[table].machine
        await wait_for(lambda: any(m.get("type") == "prompt" for c in clients
                                   for m in c.received))
        game_id = machine.state.game_id
        seat = machine.state.game.to_act
        prompt = next(m for m in clients[seat].received if m.get("type") == "prompt")
        await clients[seat].act(table, prompt["legal"][0])  # one move as usual, first
        seat = machine.state.game.to_act
        await wait_for(lambda: any(m.get("type") == "prompt" and m["seq"] > prompt["seq"]
                                   for m in clients[seat].received))
        prompt = next(m for m in reversed(clients[seat].received)
                      if m.get("type") == "prompt")
        before = len(machine.state.game.actions)

        outage.drop_replies()  # the commit reaches the database; its answer never comes
        act = asyncio.create_task(clients[seat].request(
            {"type": "act", "table": table, "action": prompt["legal"][0]}))
        for _ in range(500):
            if await direct_action_count(schema, game_id) == before + 1:
                break
            await asyncio.sleep(0.01)
        assert await direct_action_count(schema, game_id) == before + 1  # it landed
        outage.cut()  # and the node's connection drops before it heard so
        with pytest.raises(ServerError) as refused:
            await act
        assert refused.value.code == "unavailable"
        assert refused.value.reply["id"] is not None
        assert len(machine.state.game.actions) == before  # undone here, for now
        outage.restore()

        # The player sends it again: the table reads itself back, finds the move it
        # undid, and runs again from the store; its sockets close for a rejoin.
        with pytest.raises((ServerError, ConnectionError)):
            await clients[seat].request(
                {"type": "act", "table": table, "action": prompt["legal"][0]})
        await wait_for(lambda: table in app.lobby.tables
                       and app.lobby.tables[table].machine is not machine)
        runner = app.lobby.tables[table]
        assert len(runner.machine.state.game.actions) == before + 1  # once, not twice

        # Each player comes back with its session and its seat; the game goes on.
        again = []
        for old, token in zip(clients, tokens, strict=True):
            client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
            await client.request({"type": "resume", "token": old.session})
            snapshot = await client.request({"type": "rejoin", "table": table,
                                             "seat_token": token})
            assert snapshot["type"] == "snapshot"
            again.append(client)
        # The game goes on: the next player's move is stored, and the store holds
        # exactly the table's game: nothing lost, nothing twice.
        game = runner.machine.state.game
        nxt = again[game.to_act]
        await wait_for(lambda: any(m.get("type") == "prompt" for m in nxt.received))
        prompt = next(m for m in reversed(nxt.received) if m.get("type") == "prompt")
        await nxt.act(table, prompt["legal"][0])
        assert len(game.actions) >= before + 2  # (robots may play a seat not yet back)
        async with runner.lock:
            assert await direct_action_count(schema, game_id) == len(game.actions)


async def test_with_postgresql_away_every_refusal_names_its_request(schema):
    """Issue 31, bug 3: a login during the outage was answered ``{"id": null, "code":
    "internal"}``, so the client waited out its own timeout. Now: ``unavailable``, with
    the request's id and when to try again."""
    async with app_behind_a_proxy(schema) as (app, outage), \
            TrickroomClient.connect(url(app)) as client:
        outage.cut()
        for request in ({"type": "register", "name": "ann", "password": "a long secret"},
                        {"type": "login", "name": "ann", "password": "a long secret"},
                        {"type": "guest", "name": "bob"}):
            with pytest.raises(ServerError) as refused:
                await client.request(request)
            reply = refused.value.reply
            assert reply["code"] == "unavailable", reply
            assert reply["id"] is not None and reply["retry_after"] > 0, reply
        outage.restore()
        assert (await client.request({"type": "guest", "name": "bob"}))["type"] == "welcome"


async def test_postgresql_stopped_under_a_playing_table_and_started_again(own_postgres):
    """The database itself goes (stopped at once, a commit in flight: PostgreSQL of the
    test's own) and comes back: no table is stuck, and what the database holds is the
    table's game, each move once. (Robots play every seat: the player left, and a robot
    took its seat.)"""
    app = App(load_config(**FAST), own_postgres.url)
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as player:
            table, _ = await solo_table(player, rules={"target": 500, "mercy": None},
                                        level="heuristic", name="p")
        runner = app.lobby.tables[table]
        await wait_for(lambda: runner.machine.state.game is not None
                       and len(runner.machine.state.game.actions) > 10)
        await asyncio.to_thread(own_postgres.stop, "immediate")
        await asyncio.sleep(1.0)  # the robots' moves are refused meanwhile, and retried
        await own_postgres.server.start_in_loop()
        game = runner.machine.state.game
        moved_from = len(game.actions)

        def moving() -> bool:  # the table (or, had it to reload, its reloaded self)
            now = app.lobby.tables.get(table)
            return now is not None and (now is not runner or len(
                now.machine.state.game.actions) > moved_from + 4)

        await wait_for(moving, 30)
        now = app.lobby.tables[table]
        async with now.lock:
            held = await app.store.action_count(now.machine.state.game_id)
            assert held == len(now.machine.state.game.actions)  # each move once, none lost
    finally:
        await app.stop()


async def test_a_node_paused_in_a_transaction_does_not_hold_up_the_node_taking_its_tables(
        schema):
    """A node stopped (SIGSTOP) with a transaction open holds its rows' locks: the node
    taking its tables over could write nothing until the paused one woke (the bench saw
    every table of a paused node wait out the whole pause). PostgreSQL ends a node's
    session idle in a transaction after a moment, and the take-over goes through."""
    import asyncpg

    from trickroom.server.store.postgres import PostgresStore

    paused, other = (PostgresStore(f"{POSTGRES}?schema={schema}") for _ in range(2))
    await paused.open()
    await other.open()
    try:
        await paused.take_table("t1")
        stuck = await paused._connect()  # a connection of the node's, as its writer's
        transaction = stuck.transaction()
        await transaction.start()
        await stuck.execute("UPDATE table_owners SET epoch = epoch WHERE table_id = 't1'")
        # ... and the node stops here, its transaction open and the row locked.
        async with asyncio.timeout(30):  # (a bound for a failure only)
            assert await other.take_table("t1") == 2
        with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError,
                            asyncpg.InternalClientError, OSError)):
            await stuck.execute("SELECT 1")  # its session was ended
        stuck.terminate()
    finally:
        await paused.close()
        await other.close()

"""The whole server on PostgreSQL: games played, stored, resumed after a restart, and an
outage of the database refused cleanly, never acknowledged unstored (DESIGN section 11)."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST, play_until_over, seat_four, url, wait_for
from tests.services import POSTGRES, Outage, drop_schema, fresh_name, need
from trickroom.game.spades import SpadesGame
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.store import open_store


@pytest.fixture
async def schema():
    need("postgresql")
    name = fresh_name("t_app")
    yield name
    await drop_schema(name)


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
    outage = Outage(5432)
    await outage.start()
    app = App(load_config(**FAST), f"postgresql://postgres@127.0.0.1:{outage.port}/test"
                                   f"?schema={schema}")
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
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
    finally:
        await app.stop()
        await outage.stop()

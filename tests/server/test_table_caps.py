"""How many tables a player and an address may open, and tables nobody sat at closing after
their creator leaves (issue 13)."""

from __future__ import annotations

from contextlib import AsyncExitStack

from tests.server.conftest import url, wait_for
from tests.server.refusals import refused
from trickroom.server.client import ServerError, TrickroomClient


async def test_one_player_opens_a_bounded_number_of_tables(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for _ in range(3):
            await client.request({"type": "create_table", "room": "spades"})
        error = await refused(client, {"type": "create_table", "room": "spades"})
        assert error["code"] == "rate_limited"
    assert len(app.lobby.tables) == 3


async def test_one_address_opens_a_bounded_number_of_tables(make_app):
    app = await make_app(tables_per_address=4, waiting_tables_per_address=10)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(3)]
        made = 0
        for client in clients:
            await client.request({"type": "guest"})
            for _ in range(2):
                try:
                    await client.request({"type": "create_table", "room": "hearts"})
                    made += 1
                except ServerError as exc:
                    assert exc.code == "rate_limited" and "address" in str(exc)
    assert made == 4


async def test_tables_nobody_sat_at_close_after_their_creator_leaves(make_app):
    app = await make_app(table_idle_seconds=0.2)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for _ in range(3):
            await client.request({"type": "create_table", "room": "spades"})
    await wait_for(lambda: app.lobby.tables == {})
    assert app.lobby.created_by == {}

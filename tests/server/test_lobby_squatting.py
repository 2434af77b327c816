"""Lobby squatting (issue 32, item 16): 100 waiting tables from 10 addresses filled a
room's listed 100 and hid a real player's new table. An address holds few waiting tables
in a room, a player's own tables are always in the list it is given, and waiting tables
nobody sits at close."""

from __future__ import annotations

from contextlib import AsyncExitStack

from tests.server.conftest import url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient


async def squat(stack: AsyncExitStack, app: App, addresses: int, per_address: int,
                room: str = "spades") -> tuple[int, list[TrickroomClient]]:
    """Guests from ``addresses`` loopback addresses (127.0.0.2 on) each open as many waiting
    tables as they may, up to ``per_address`` an address (a guest opens 3 at most); how
    many opened, and the squatters."""
    made, squatters = 0, []
    for a in range(addresses):
        address = f"127.0.0.{a + 2}"
        for g in range((per_address + 2) // 3):
            client = await stack.enter_async_context(
                TrickroomClient.connect(url(app), local_addr=(address, 0)))
            await client.request({"type": "guest", "name": f"squat{a}x{g}"})
            squatters.append(client)
            for _ in range(3):
                try:
                    await client.request({"type": "create_table", "room": room})
                    made += 1
                except ServerError as exc:
                    assert exc.code == "rate_limited", exc.reply
    return made, squatters


async def test_one_address_holds_few_waiting_tables_in_a_room(make_app):
    app = await make_app(waiting_tables_per_address=2)
    async with AsyncExitStack() as stack:
        one, other = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                      for _ in range(2)]
        await one.request({"type": "guest", "name": "one"})
        await other.request({"type": "guest", "name": "other"})
        first = (await one.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await other.request({"type": "create_table", "room": "spades"})
        error = await refused(one, {"type": "create_table", "room": "spades"})
        assert error["code"] == "rate_limited" and "waiting" in error["message"]
        await one.request({"type": "create_table", "room": "hearts"})  # another room's list
        # A table whose game began waits no more: the address may open another.
        await one.request({"type": "sit", "table": first, "seat": 0})
        await one.request({"type": "fill_robots", "table": first})
        await wait_for(lambda: app.lobby.tables[first].machine.state.phase == "playing")
        await other.request({"type": "create_table", "room": "spades"})


async def test_squatters_of_ten_addresses_do_not_hide_a_player_s_new_table(make_app):
    """The attack: ten addresses open every waiting table they may. Each address holds
    only ``waiting_tables_per_address`` of them, and the player who opens a table after
    them finds it in the list it is given, however long the room's list."""
    app = await make_app(tables_listed=10)
    async with AsyncExitStack() as stack:
        made, _ = await squat(stack, app, addresses=10, per_address=10)
        assert made == 10 * app.config.settings.waiting_tables_per_address
        player = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await player.request({"type": "guest", "name": "real"})
        mine = (await player.request({"type": "create_table", "room": "spades"}))["table"]
        listed = await player.request({"type": "list_tables", "room": "spades"})
        assert mine["id"] in [t["id"] for t in listed["tables"]]
        assert listed["total"] == made + 1
        # A table it sits at (not its own) is its own too.
        sat = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await sat.request({"type": "guest", "name": "partner"})
        await sat.request({"type": "sit", "table": mine["id"], "seat": 2})
        listed = await sat.request({"type": "list_tables", "room": "spades"})
        assert mine["id"] in [t["id"] for t in listed["tables"]]


async def test_squatters_waiting_tables_nobody_sits_at_close(make_app):
    """Tables their creators never sat at close after ``table_idle_seconds`` though the
    creators stay connected; a table a player sits at stays."""
    app = await make_app(table_idle_seconds=0.3)
    async with AsyncExitStack() as stack:
        made, _ = await squat(stack, app, addresses=2, per_address=3)
        assert made == 6
        player = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await player.request({"type": "guest", "name": "real"})
        mine = (await player.request({"type": "create_table", "room": "spades"}))["table"]
        await player.request({"type": "sit", "table": mine["id"], "seat": 0})
        await wait_for(lambda: list(app.lobby.tables) == [mine["id"]])
        listed = await player.request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listed["tables"]] == [mine["id"]] and listed["total"] == 1

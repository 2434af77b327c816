"""Spectators' chat (issue 32, items 15 and 20): from 10 addresses with 40 rotating guest
names, a seated player's table got 600 spam lines in 14 s, and the table had no way to
turn spectators' chat off. Now, as on BBO and Lichess, spectators do not chat to the
players of a game in play unless its players let them (a table setting, off by default);
all of a table's spectators share one chat rate, and one account's connections share
one."""

from __future__ import annotations

from contextlib import AsyncExitStack

from tests.server.conftest import FAST, url, wait_for
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config


def lines(client: TrickroomClient) -> list[str]:
    return [m["text"] for m in client.received if m.get("type") == "chat"]


async def spectator(stack: AsyncExitStack, app: App, table: str, name: str,
                    address: str = "127.0.0.1") -> TrickroomClient:
    client = await stack.enter_async_context(
        TrickroomClient.connect(url(app), local_addr=(address, 0)))
    await client.request({"type": "guest", "name": name})
    await client.request({"type": "watch", "table": table})
    return client


async def playing(app: App, table: str) -> None:
    await wait_for(lambda: app.lobby.tables[table].machine.state.phase == "playing")


async def test_spectators_do_not_chat_to_the_players_of_a_game_in_play_by_default(app):
    async with AsyncExitStack() as stack:
        player = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        table, _ = await solo_table(player)
        await playing(app, table)
        rail = await spectator(stack, app, table, "rail")
        other = await spectator(stack, app, table, "other")
        error = await refused(rail, {"type": "chat", "table": table, "text": "play the ace"})
        assert error["code"] == "not_seated" and "spectator" in error["message"]
        await player.request({"type": "chat", "table": table, "text": "thanks, robots"})
        await other.request({"type": "ping"})
        assert lines(player) == lines(other) == ["thanks, robots"]
        listed = await rail.request({"type": "list_tables", "room": "spades"})
        assert [t["spectator_chat"] for t in listed["tables"]] == [False]


async def test_spectators_chat_at_a_table_between_games(app):
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await host.request({"type": "guest", "name": "host"})
        table = (await host.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        await host.request({"type": "sit", "table": table, "seat": 0})
        rail = await spectator(stack, app, table, "rail")
        await rail.request({"type": "chat", "table": table, "text": "may I sit?"})
        await host.request({"type": "ping"})
        assert lines(host) == ["may I sit?"]


async def test_a_table_s_players_may_let_spectators_chat(app):
    async with AsyncExitStack() as stack:
        player = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await player.request({"type": "guest", "name": "host"})
        made = await player.request({"type": "create_table", "room": "spades",
                                     "spectator_chat": True})
        assert made["table"]["spectator_chat"] is True
        table = made["table"]["id"]
        await player.request({"type": "sit", "table": table, "seat": 0})
        await player.request({"type": "fill_robots", "table": table})
        await playing(app, table)
        rail = await spectator(stack, app, table, "rail")
        await rail.request({"type": "chat", "table": table, "text": "nice bid"})
        # Only the players (or the table's opener) change it; a spectator may not.
        error = await refused(rail, {"type": "table_options", "table": table,
                                     "spectator_chat": True})
        assert error["code"] == "not_seated"
        await player.request({"type": "table_options", "table": table,
                              "spectator_chat": False})
        error = await refused(rail, {"type": "chat", "table": table, "text": "and again"})
        assert error["code"] == "not_seated"
        await player.request({"type": "table_options", "table": table,
                              "spectator_chat": True})
        await rail.request({"type": "chat", "table": table, "text": "back again"})
        await player.request({"type": "ping"})
        assert lines(player) == ["nice bid", "back again"]


async def test_forty_spectators_from_ten_addresses_share_one_table_s_chat_rate(make_app):
    """The attack: rotating names and addresses, each under its own limits. The table's
    spectators together say at most ``spectator_chat_burst`` lines at once (then
    ``spectator_chat_per_second``); the rest are refused, and its players still chat."""
    app = await make_app(spectator_chat_burst=4, spectator_chat_per_second=0.01)
    async with AsyncExitStack() as stack:
        player = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await player.request({"type": "guest", "name": "victim"})
        table = (await player.request({"type": "create_table", "room": "spades",
                                       "spectator_chat": True}))["table"]["id"]
        await player.request({"type": "sit", "table": table, "seat": 0})
        await player.request({"type": "fill_robots", "table": table})
        await playing(app, table)
        said = refusals = 0
        for a in range(10):
            for g in range(4):
                rail = await spectator(stack, app, table, f"spam{a}x{g}", f"127.0.0.{a + 2}")
                try:
                    await rail.request({"type": "chat", "table": table, "text": "spam"})
                    said += 1
                except ServerError as exc:
                    assert exc.code == "rate_limited" and "spectators" in str(exc), exc.reply
                    assert exc.reply["retry_after"] > 0
                    refusals += 1
        assert (said, refusals) == (4, 36)
        await player.request({"type": "chat", "table": table, "text": "stop it"})
        await player.request({"type": "ping"})
        assert lines(player) == ["spam"] * 4 + ["stop it"]


async def test_an_account_s_connections_share_one_chat_rate(make_app):
    app = await make_app(chat_burst=3, chat_burst_per_account=4, password_profile="cheapest")
    async with AsyncExitStack() as stack:
        socks = [await stack.enter_async_context(
                 TrickroomClient.connect(url(app), local_addr=(f"127.0.0.{i + 2}", 0)))
                 for i in range(3)]
        await socks[0].request({"type": "register", "name": "talker", "password": "talk-talk"})
        for sock in socks[1:]:
            await sock.request({"type": "login", "name": "talker", "password": "talk-talk"})
        sent = 0
        for sock in socks:
            for _ in range(3):
                try:
                    await sock.request({"type": "chat", "room": "spades", "text": "hi"})
                    sent += 1
                except ServerError as exc:
                    assert exc.code == "rate_limited" and "account" in str(exc), exc.reply
        assert sent == 4


async def test_a_table_s_spectator_chat_setting_survives_a_restart(db):
    """The setting is kept with the game in play: set as the table opened, or changed
    during the game, a restarted server (or a node taking the table over) resumes the
    game with it."""
    settings = {**FAST, "resume_grace_seconds": 60.0}  # the robots wait for the players
    app = App(load_config(**settings), db)
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            tables = {}
            for name, made_with, changed_to in (("opened_on", True, None),
                                                ("turned_on", False, True),
                                                ("turned_off", True, False)):
                host = await stack.enter_async_context(TrickroomClient.connect(url(app)))
                await host.request({"type": "guest", "name": name})
                made = await host.request({"type": "create_table", "room": "spades",
                                           "spectator_chat": made_with})
                table = tables[name] = made["table"]["id"]
                await host.request({"type": "sit", "table": table, "seat": 0})
                await host.request({"type": "fill_robots", "table": table})
                await playing(app, table)
                if changed_to is not None:
                    await host.request({"type": "table_options", "table": table,
                                        "spectator_chat": changed_to})
    finally:
        await app.stop()
    app = App(load_config(**settings), db)
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            for name, allowed in (("opened_on", True), ("turned_on", True),
                                  ("turned_off", False)):
                table = tables[name]
                assert app.lobby.tables[table].machine.state.phase == "playing"
                rail = await spectator(stack, app, table, f"rail-{name}")
                message = {"type": "chat", "table": table, "text": "nice bid"}
                if allowed:
                    await rail.request(message)
                else:
                    assert (await refused(rail, message))["code"] == "not_seated"
                listed = await rail.request({"type": "list_tables", "room": "spades"})
                assert {t["id"]: t["spectator_chat"] for t in listed["tables"]}[table] is allowed
    finally:
        await app.stop()

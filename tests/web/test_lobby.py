"""The lobby shows each table's real state, and a closed table leaves the list."""

from __future__ import annotations

from tests.web.conftest import start_app, ws_url
from tests.web.play import guest_signs_in
from trickroom.server.client import TrickroomClient


async def test_a_playing_table_offers_no_seat_and_a_closed_one_leaves_the_list(web_app,
                                                                               open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p, "looker")
    await p.locator(".room-link", has_text="spades").first.click()
    async with TrickroomClient.connect(ws_url(web_app)) as host:
        await host.request({"type": "guest", "name": "host"})
        long = await host.request({"type": "create_table", "room": "spades",
                                   "rules": {"target": 500}})
        short = await host.request({"type": "create_table", "room": "spades",
                                    "rules": {"target": 10, "mercy": 10}})
        waiting_card = p.locator(f'[data-table="{long["table"]["id"]}"]')
        await waiting_card.get_by_text("pick your seat").wait_for()
        await host.request({"type": "sit", "table": long["table"]["id"], "seat": 0})
        await host.request({"type": "fill_robots", "table": long["table"]["id"]})
        await waiting_card.locator(".state.playing").wait_for()
        assert await waiting_card.get_by_text("pick your seat").count() == 0
        assert await waiting_card.get_by_role("button", name="Sit here").count() == 0

        short_card = p.locator(f'[data-table="{short["table"]["id"]}"]')
        await short_card.wait_for()
        # Four robots: the game plays to its end, and the table closes with nobody at it.
        await host.request({"type": "fill_robots", "table": short["table"]["id"],
                            "level": "random"})
        await short_card.wait_for(state="detached", timeout=30_000)
        assert await waiting_card.count() == 1


async def test_a_room_with_more_tables_than_its_list_says_so(tmp_path, open_page):
    """The server lists at most ``tables_listed`` tables, waiting ones first; the lobby
    shows those and says how many more the room had."""
    app = await start_app(tmp_path, tables_listed=2)
    try:
        async with TrickroomClient.connect(ws_url(app)) as host:
            await host.request({"type": "guest", "name": "host"})
            ids = [(await host.request({"type": "create_table", "room": "spades"}))
                   ["table"]["id"] for _ in range(3)]
            page = await open_page(app)
            p = page.page
            await guest_signs_in(p, "browser")
            await p.locator(".room-link", has_text="spades").first.click()
            await p.locator(".list-cut").wait_for()
            assert "3 tables open" in await p.locator(".list-cut").inner_text()
            assert "listed 2 of them" in await p.locator(".list-cut").inner_text()
            shown = [await c.get_attribute("data-table") for c in
                     await p.locator(".table-card").all()]
            assert shown == ids[:2]  # the longest waiting first
            await page.shot("list-cut")
            page.check()
    finally:
        await app.stop()


async def test_a_bot_account_is_marked_in_the_lobby_at_the_table_and_in_its_profile(
        web_app, open_page):
    """Issue 36, item 1: a program plays as a BOT account, marked as one wherever its name
    shows."""
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p, "looker")
    await p.locator(".room-link", has_text="spades").first.click()
    async with TrickroomClient.connect(ws_url(web_app)) as bot:
        await bot.request({"type": "register", "name": "robo", "password": "robo-robo"})
        await bot.request({"type": "upgrade_to_bot", "confirm": True})
        made = await bot.request({"type": "create_table", "room": "spades"})
        table = made["table"]["id"]
        await bot.request({"type": "sit", "table": table, "seat": 0})
        card = p.locator(f'[data-table="{table}"]')
        await card.locator(".seat-line", has_text="robo").locator(".badge.bot").wait_for()
        await card.get_by_role("button", name="Watch").click()
        seat = p.locator('.seat[data-seat="0"]')
        await seat.locator(".badge.bot", has_text="BOT").wait_for()
        assert "(BOT)" in (await seat.get_attribute("aria-label") or "")
        await p.evaluate("location.hash = '#/player/robo'")
        await p.locator(".profile h1 .badge.bot").wait_for()
        await p.get_by_text("bot ladder").first.wait_for()
    page.check()

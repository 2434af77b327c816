"""The lobby shows each table's real state, and a closed table leaves the list."""

from __future__ import annotations

from server.client import TrickroomClient
from tests.web.conftest import ws_url
from tests.web.play import guest_signs_in


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

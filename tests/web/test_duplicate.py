"""A duplicate room in the browser (issue 39): the table says it is one, and after a hand,
once the other table of the board set has played the same deal, "the field" shows how
the same cards went there."""

from __future__ import annotations

import random

from tests.server.conftest import play_until_over
from tests.web.conftest import ws_url
from tests.web.play import create_table, guest_signs_in, play_to_game_over
from trickroom.server.client import TrickroomClient

SHORT = {"Play to (points)": "10", "Mercy: end when a side falls to minus (empty: off)": "10"}


async def test_the_field_shows_how_the_same_cards_went_at_the_other_table(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p, "ada")
    ada_table = await create_table(p, "spades-duplicate", SHORT)
    await p.locator('[data-action="fill-robots"]').click()
    bar = p.locator(".table-bar")
    await bar.get_by_text("duplicate: the same deals at 2 tables").wait_for()
    field = p.locator(".field-box")
    await field.get_by_text("The same deals are played at 2 tables").wait_for()
    await play_to_game_over(p)
    await p.locator("dialog.game-over").wait_for()
    await p.locator("dialog.game-over").get_by_role("button", name="Look at the table").click()
    # The other table has not played: the field says so, and shows nothing of a deal.
    assert await field.locator(".field-deal").count() == 0

    # Bob plays the same deals at the set's other table, over the socket.
    async with TrickroomClient.connect(ws_url(web_app)) as bob:
        await bob.request({"type": "guest", "name": "bob"})
        made = await bob.request({"type": "create_table", "room": "spades-duplicate",
                                  "rules": {"target": 10, "mercy": 10}})
        table = made["table"]["id"]
        await bob.request({"type": "sit", "table": table, "seat": 0})
        await bob.request({"type": "fill_robots", "table": table})
        await play_until_over(bob, table, random.Random(1))
        deal = field.locator(".field-deal").first
        await deal.wait_for(timeout=15_000)
    text = await deal.inner_text()
    assert "Hand 1" in text and "Elsewhere" in text and "guest-bob" in text, text
    assert await deal.locator("tbody tr").count() == 2  # North–South and East–West
    await page.shot("duplicate-field")
    await page.shot("duplicate-field-phone", phone=True)

    # The set is complete: the review shows each deal at both tables side by side.
    ada_game = web_app.lobby.tables[ada_table].machine.state.game_id
    await p.goto(f"{p.url.split('#')[0]}#/review/{ada_game}")
    side = p.locator(".review-field")
    await side.wait_for(timeout=15_000)
    text = await side.inner_text()
    assert "Table 1" in text and "Table 2" in text and "guest-bob" in text, text
    await page.shot("duplicate-review")
    page.check()

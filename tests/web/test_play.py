"""A guest plays whole games in the browser: Spades with bids, Hearts with the pass."""

from __future__ import annotations

import json
import re

from tests.web.play import create_table, guest_signs_in, play_to_game_over


async def test_guest_plays_spades_to_game_over(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await page.shot("signin")
    await page.shot("signin-phone", phone=True)
    name = await guest_signs_in(p, "ada")
    assert name.startswith("guest-ada")
    await p.locator(".table-list, .empty-note").first.wait_for()
    await page.shot("lobby")
    await page.shot("lobby-phone", phone=True)

    # A target and mercy the first hand reaches, made or set: the game is one hand long.
    rules = {"Play to (points)": "10", "Mercy: end when a side falls to minus (empty: off)": "10"}
    table = await create_table(p, "spades", rules, shot=page.shot)
    await p.get_by_text("Waiting for four players").wait_for()
    await page.shot("waiting")
    await p.get_by_role("button", name="Fill with robots").click()
    await p.locator(".seat .badge.robot").nth(2).wait_for()
    # Each robot has a name of its own (they were all "robot-heuristic"), and says its level.
    robots = [n for n in await p.locator(".seat .seat-name .nm").all_inner_texts()
              if n.startswith("Bot ")]
    assert len(robots) == 3 and len(set(robots)) == 3
    assert await p.locator('.seat .badge.robot[title="heuristic robot"]').count() == 3

    async def bid_shot():
        await page.shot("bid")
        await page.shot("bid-phone", phone=True)

    async def keyboard_play():
        # Once all have bid, each side's contract is on the table (no adding up of seats).
        contract = await p.locator(".contract-line").inner_text()
        assert re.fullmatch(r"North–South bid \d+, have \d+.*, \d+ bags? · "
                            r"East–West bid \d+, have \d+.*, \d+ bags?", contract), contract
        # Keyboard play: arrows move along the legal cards, Enter plays the focused one.
        await page.shot("play")
        await page.shot("play-phone", phone=True)
        await p.locator("body").press("ArrowRight")
        focused = await p.evaluate("document.activeElement.dataset.card")
        assert focused and await p.locator(f'.hand .card.legal[data-card="{focused}"]').count()
        await p.keyboard.press("End")
        focused = await p.evaluate("document.activeElement.dataset.card")
        await p.keyboard.press("Enter")
        gone = f'.trick [data-card="{focused}"], .hand:not(:has([data-card="{focused}"]))'
        await p.locator(gone).first.wait_for()

    async def reload_mid_game():
        # Reloading the page drops the socket: a robot plays the seat meanwhile, and the
        # session and the seat come back from localStorage with the table as it is.
        held = await p.locator(".hand .card").count()
        await p.reload()
        await p.locator(".hand .card").first.wait_for()
        assert await p.locator(".me-name").inner_text() == f"{name} (guest)"
        assert 0 < await p.locator(".hand .card").count() <= held
        assert await p.locator(".seat.me").count() == 1
        await page.shot("after-reload")

    counts = await play_to_game_over(p, shots={"bid": bid_shot, "play": keyboard_play,
                                                 "play6": reload_mid_game})
    assert counts["bids"] >= 1 and counts["plays"] >= 6, counts
    over = p.locator("dialog.game-over")
    await over.wait_for()
    assert "Game over" in await over.inner_text()
    await page.shot("game-over")
    await page.shot("game-over-phone", phone=True)
    scores = await over.locator(".final-scores td.num").all_inner_texts()
    assert len(scores) == 2
    await over.get_by_role("button", name="Look at the table").click()
    await p.get_by_role("button", name="Last trick").click()
    await p.locator(".last-trick .card").nth(3).wait_for()
    await page.shot("last-trick-and-sheet")
    assert await p.locator(".sheet tbody tr").count() >= 1
    game_id = await p.evaluate("() => document.querySelector('.table-page') && "
                               "window.trickroom && location.hash")
    assert table in game_id


async def test_guest_plays_hearts_with_the_pass_to_game_over(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p)
    await create_table(p, "hearts", {"Play to (points)": "14"})
    await p.get_by_role("button", name="Fill with robots").click()

    async def pass_shot():
        await p.locator(".hand .card.legal").nth(0).click()
        await page.shot("pass")
        await page.shot("pass-phone", phone=True)

    async def play_shot():
        await page.shot("play")
        await page.shot("play-phone", phone=True)

    async def drop_socket():
        # The socket drops (no reload): the client reconnects, logs in again and
        # rejoins with the seat token and the last seq; play goes on.
        await p.evaluate("window.trickroom.conn.drop()")
        await p.locator("body[data-conn='reconnected']").wait_for()

    counts = await play_to_game_over(p, shots={"pass": pass_shot, "play3": play_shot,
                                                 "play6": drop_socket})
    # A robot plays our seat while the socket is down, so a few turns may be its.
    assert counts["passes"] >= 1 and counts["plays"] >= 7, (counts, page.console[-20:])
    over = p.locator("dialog.game-over")
    assert len(await over.locator(".final-scores td.num").all_inner_texts()) == 4
    await page.shot("game-over")
    href = await over.get_by_role("link", name="Review the game").get_attribute("href")
    # Escape closes the game-over dialog, and it stays closed when the table is drawn again
    # (it came straight back).
    await p.keyboard.press("Escape")
    await over.wait_for(state="hidden")
    await p.get_by_role("button", name="Last trick").click()
    await p.locator(".last-trick .card").nth(3).wait_for()
    assert not await over.is_visible()
    # One minus sign on the whole score sheet ("−78 → −78", not "−78 → -78").
    assert not re.search(r"(?<![\w-])-\d", await p.locator(".sheet tbody").inner_text())
    await p.evaluate(f"location.hash = {json.dumps(href)}")  # the dialog's review link
    await p.locator(".review .where").wait_for()
    assert "the deal" in await p.locator(".review .where").inner_text()
    json.dumps(counts)

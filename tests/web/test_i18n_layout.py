"""The table in a longer language (issue 37): in the pseudo-locale "en-XA" (English
accented, about 40% longer: web/js/i18n.js) every phase of Spades and Hearts at 360 px
wide keeps its seats, hand and buttons on screen and uncovered (tests/web/layout.py), and
no text is cut or runs out of its box (js/text_cut.js); then a whole game of each is
played at 360 px in it, looked at the same way at each dialog.
"""

from __future__ import annotations

from typing import Any

from tests.web.conftest import base_url, laid_out
from tests.web.layout import layout_problems, text_problems
from tests.web.play import (
    TURN_OR_OVER,
    create_table,
    guest_signs_in,
    play_turn,
)
from tests.web.test_layout import (
    HEARTS_HAND,
    ME,
    SETTLED,
    SPADES_HAND,
    TRICK,
    Table,
    hearts_results,
    report,
    spades_results,
)

PHONES = [(360, 740), (360, 640)]
PSEUDO = "en-XA"


async def pseudo_page(open_page: Any, app: Any, label: str = "") -> Any:
    page = await open_page(app, viewport={"width": 360, "height": 740}, label=label)
    p = page.page
    await p.goto(f"{base_url(app)}?lang={PSEUDO}")
    await p.locator("html[lang='en-XA']").wait_for(state="attached")
    await p.emulate_media(reduced_motion="reduce")
    return page


async def look(page: Any, label: str, failures: list[str], shot: bool = False) -> None:
    p = page.page
    for width, height in PHONES:
        await p.set_viewport_size({"width": width, "height": height})
        await laid_out(p)
        await p.evaluate(SETTLED)
        failures += [f"{label} at {width}x{height}: {x}" for x in await layout_problems(p)]
        failures += [f"{label} at {width}x{height}: {x}" for x in await text_problems(p)]
    if shot:
        await page.shot(label)


async def test_the_page_speaks_the_pseudo_locale_when_asked(web_app, open_page):
    page = await pseudo_page(open_page, web_app)
    p = page.page
    assert await p.evaluate("document.documentElement.lang") == PSEUDO
    # The sign-in page's words are the pseudo-locale's: accented, doubled vowels.
    assert "Þļååý ååš" in await p.locator('form[aria-labelledby="guest-h"] h2').inner_text()
    failures: list[str] = []
    await look(page, "signin", failures)
    await guest_signs_in(p)
    await p.locator(".room-link").first.wait_for()
    await look(page, "lobby", failures)
    assert not failures, report(failures)


async def test_every_phase_of_both_games_fits_a_phone_in_the_pseudo_locale(web_app, open_page):
    failures: list[str] = []
    for game in ("spades", "hearts"):
        page = await pseudo_page(open_page, web_app, game)
        p = page.page
        me = await guest_signs_in(p, ME)
        table = await create_table(p, game, {})
        seat = int(await p.locator(".seat.me").get_attribute("data-seat"))
        t = Table(p, game, table, seat, me)
        await look(page, f"{game}-waiting", failures)
        if game == "spades":
            bids = [None] * 4
            bids[(t.seat + 2) % 4], bids[(t.seat + 3) % 4] = 4, 0
            bid = t.view("bid", bids=bids, legal=[{"type": "bid", "value": v} for v in range(14)])
            await t.snapshot(bid)
            await t.prompt(bid)
            await p.locator(".bid-dialog").wait_for()
            await look(page, "spades-bid", failures)
            follow = [c for c in SPADES_HAND if c.endswith("H")]
            play = t.view("play", bids=[3, 0, 4, 5], trick=t.played(TRICK),
                          leader=(t.seat + 1) % 4, tricks_won=[3, 0, 2, 4],
                          hand_sizes=[13, 12, 12, 12],
                          legal=[{"type": "play", "card": c} for c in follow],
                          illegal=[{"card": c, "reason": "Follow suit: hearts were led."}
                                   for c in SPADES_HAND if c not in follow])
            results = spades_results(4)
        else:
            passing = t.view("pass", legal=[{"type": "pass", "cards": []}])
            await t.snapshot(passing)
            await t.prompt(passing, pass_count=3)
            for card in HEARTS_HAND[-3:]:
                await p.locator(f'.hand .card[data-card="{card}"]').click()
            await p.locator(".pass-dialog .pass-go:enabled").wait_for()
            await look(page, "hearts-pass", failures)
            tricks = t.taken_tricks()
            won, taken = [0] * 4, [0] * 4
            for trick in tricks:
                won[trick["seat"]] += 1
                taken[trick["seat"]] += trick["points"]
            hand = [c for c in HEARTS_HAND if c not in ("2C", "7C", "KC", "QS")]
            play = t.view("play", hand=hand, trick=t.played(["TC", "JC", "AC"]),
                          leader=(t.seat + 1) % 4, tricks=tricks, tricks_won=won,
                          points_taken=taken, hand_sizes=[9, 8, 8, 8],
                          legal=[{"type": "play", "card": c} for c in hand], illegal=[])
            results = hearts_results(4)
        await t.snapshot(play)
        await t.prompt(play)
        await p.locator(".hand .card.legal").first.wait_for()
        await look(page, f"{game}-play", failures)
        scores = results[-1]["scores"]
        await t.snapshot(t.view("hand_over", hand=[], to_act=None, awaiting=[],
                                hand_results=results, scores=scores))
        await p.locator(".hand-summary").wait_for()
        await look(page, f"{game}-summary", failures, shot=True)
        await t.snapshot(t.view("game_over", hand=[], to_act=None, awaiting=[],
                                hand_results=results, scores=scores), state="over")
        await p.locator("dialog.game-over[open]").wait_for()
        await look(page, f"{game}-game-over", failures, shot=True)
    assert not failures, report(failures)


async def test_a_game_of_each_played_at_360_px_in_the_pseudo_locale(web_app, open_page):
    """Robots fill the table; every dialog met on the way (bid, pass, play, the hand
    summary, game over) is looked at once."""
    failures: list[str] = []
    for game, rules in (("spades", {"[target]": "10", "[mercy]": "10"}),
                        ("hearts", {"[target]": "10"})):
        page = await pseudo_page(open_page, web_app, f"played-{game}")
        p = page.page
        await guest_signs_in(p)
        await create_table(p, game, rules)
        await p.locator('[data-action="fill-robots"]').click()
        seen: set[str] = set()
        counts = {"bids": 0, "passes": 0, "plays": 0}
        for _ in range(400):
            await p.wait_for_function(TURN_OR_OVER, timeout=60_000)
            screen = await p.evaluate("""() => {
              const q = (s) => !!document.querySelector(s);
              return q('dialog.game-over[open]') ? 'game-over' : q('.hand-summary') ? 'summary'
                : q('.bid-dialog') ? 'bid' : q('.pass-dialog') ? 'pass'
                : q('.hand .card.legal') ? 'play' : '';
            }""")
            if screen and screen not in seen:
                seen.add(screen)
                await look(page, f"{game}-{screen}", failures)
            if screen == "game-over":
                break
            try:
                await play_turn(p, counts, close_summary=True)
            except Exception as exc:  # the table moved on between looking and clicking
                if "Timeout" not in type(exc).__name__ and "detached" not in str(exc):
                    raise
        assert "game-over" in seen and "play" in seen, (game, seen)
        assert ("bid" if game == "spades" else "pass") in seen, (game, seen)
    assert not failures, report(failures)

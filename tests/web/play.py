"""Playing at a table in the browser the way a person does: dialogs and clicks on legal cards."""

from __future__ import annotations

import time
from typing import Any

from tests.web.conftest import laid_out

TURN_OR_OVER = """() => {
  const t = document.querySelector('.table-page');
  return t && (t.dataset.phase === 'game_over' || t.dataset.myTurn === 'true');
}"""


# The forms and buttons these helpers press, found by what they are rather than by their
# words: the same helpers play in English, Greek and the pseudo-locale (issue 37).
GUEST_FORM = 'form[aria-labelledby="guest-h"]'


async def guest_signs_in(page: Any, name: str | None = None) -> str:
    form = page.locator(GUEST_FORM)
    if name:
        await form.locator('input[name="name"]').fill(name)
    await form.locator('button[type="submit"]').click()
    await page.locator(".me-name").wait_for()
    # "ann (guest)", "ann (επισκέπτης)": the name before the bracket.
    return (await page.locator(".me-name").inner_text()).rsplit(" (", 1)[0]


async def create_table(page: Any, room: str, rules: dict[str, str], shot: Any = None) -> str:
    """Create a table from the lobby's dialog, filling the rule fields by label (or, for a
    key in brackets, "[target]", by the field's name); returns its id."""
    await page.locator(".room-link", has_text=room).first.click()
    await page.locator('[data-action="create-table"]').click()
    dialog = page.locator("dialog.create-dialog")
    await dialog.wait_for()
    for label, value in rules.items():
        field = (dialog.locator(f'[name="{label[1:-1]}"]') if label.startswith("[")
                 else dialog.get_by_label(label))
        await field.fill(value)
    if shot:
        await shot("create-dialog")
    await dialog.locator('button[value="create"]').click()
    await page.locator(".table-page").wait_for()
    return page.url.rsplit("/", 1)[1]


async def robot_table(open_page: Any, app: Any, room: str, rules: dict[str, str],
                      name: str | None = None, reduced_motion: bool = False) -> tuple[Any, Any]:
    """A guest's own table in ``room`` with ``rules`` (by label), the other seats filled with
    robots; returns the wrapped page (for screenshots) and its playwright page."""
    page = await open_page(app)
    p = page.page
    if reduced_motion:
        await p.emulate_media(reduced_motion="reduce")
    await guest_signs_in(p, name)
    await create_table(p, room, rules)
    await p.locator('[data-action="fill-robots"]').click()
    return page, p


CLICK_MS = 5000  # what play_turn saw is on screen: a click that waits longer, waits in vain

# What is on screen for play_turn to answer, in one look.
SCREEN = """() => {
  const q = (selector) => document.querySelector(selector);
  const cards = [...document.querySelectorAll('.hand .card')];
  return {
    phase: q('.table-page')?.dataset.phase,
    summary: !!q('.hand-summary .summary-go'),
    bid: !!q('.bid-dialog'),
    look: !!q('.bid-dialog [data-bid="look"]'),
    bids: [...document.querySelectorAll('.bid-dialog button.bid-btn:enabled')]
      .map(b => b.dataset.bid),
    pass: q('.pass-dialog')?.dataset.count ?? null,
    moon: !!q('.moon-dialog'),
    legal: cards.filter(c => c.classList.contains('legal')).map(c => c.dataset.card),
    chosen: cards.filter(c => c.classList.contains('chosen')).map(c => c.dataset.card),
    // The legal cards are the only playable ones: every other card is marked so.
    marked: cards.every(c => c.classList.contains('legal') !== (c.ariaDisabled === 'true')),
  };
}"""


async def play_turn(page: Any, counts: dict[str, int], bid: int = 3,
                    close_summary: bool = True) -> None:
    """Answer the prompt on screen: a bid, a pass of the cards asked for, the moon, or a
    legal card; then wait until the table shows the answer was taken (so the next look
    never sees this turn again). The page draws what it is sent at its next frame: the
    look waits for it, so what it sees is what the page knows."""
    await laid_out(page)
    screen = await page.evaluate(SCREEN)
    if screen["summary"]:  # the last hand's summary waits to be closed (our turn's dialog below it)
        if not close_summary:  # left open: the caller looks at it before anything is answered
            await page.wait_for_timeout(20)
            return
        await page.locator(".hand-summary .summary-go").click(timeout=CLICK_MS)
        await page.locator(".hand-summary").wait_for(state="detached")
    elif screen["look"]:
        await page.locator('.bid-dialog [data-bid="look"]').click(timeout=CLICK_MS)
        await page.locator('.bid-dialog [data-bid="look"]').wait_for(state="detached")
    elif screen["bid"]:
        value = str(bid) if str(bid) in screen["bids"] else screen["bids"][-1]
        await page.locator(f'.bid-dialog button[data-bid="{value}"]').click(timeout=CLICK_MS)
        await page.locator(".bid-dialog").wait_for(state="detached")
        counts["bids"] += 1
    elif screen["pass"]:
        wanted = int(screen["pass"])
        more = [c for c in screen["legal"] if c not in screen["chosen"]]
        for card in more[:wanted - len(screen["chosen"])]:
            await page.locator(f'.hand .card[data-card="{card}"]').click(timeout=CLICK_MS)
            await page.locator(f'.hand .card.chosen[data-card="{card}"]').wait_for()
        await page.locator(".pass-dialog .pass-go").click(timeout=CLICK_MS)
        await page.locator(".pass-dialog").wait_for(state="detached")
        counts["passes"] += 1
    elif screen["moon"]:
        await page.locator(".moon-dialog button").first.click(timeout=CLICK_MS)
        await page.locator(".moon-dialog").wait_for(state="detached")
    elif screen["legal"] and screen["phase"] == "play":  # (a pass's cards wait for its dialog)
        assert screen["marked"], "a card is marked legal and disabled, or neither"
        card = screen["legal"][0]
        await page.locator(f'.hand .card.legal[data-card="{card}"]').click(timeout=CLICK_MS)
        counts["plays"] += 1
        # Played once the server's event takes it from the hand (or, after a drop, refused
        # because the seat's robot played meanwhile: no longer ours to play).
        await page.locator(f'.hand .card.legal[data-card="{card}"]').wait_for(state="detached")
    else:
        await page.wait_for_timeout(20)


async def _shot_due(page: Any, key: str, counts: dict[str, int]) -> bool:
    """Whether a screenshot hook is due: "bid", "pass", or "playN" (after N cards played)."""
    if key == "bid":
        return bool(await page.locator(".bid-dialog").count())
    if key == "pass":
        return bool(await page.locator(".pass-dialog").count())
    return counts["plays"] >= int(key[4:] or 0) and bool(
        await page.locator(".hand .card.legal").count())


async def play_to_game_over(page: Any, limit: float = 200.0, shots: dict[str, Any] | None = None,
                            bid: int = 3) -> dict[str, int]:
    """Play every turn the prompt gives until the game-over screen; returns what was done."""
    counts = {"bids": 0, "passes": 0, "plays": 0}
    shots = dict(shots or {})
    deadline = time.monotonic() + limit
    while True:
        assert time.monotonic() < deadline, f"the game did not end in {limit}s: {counts}"
        await page.wait_for_function(TURN_OR_OVER, timeout=60_000)
        phase = await page.locator(".table-page").get_attribute("data-phase")
        if phase == "game_over":
            return counts
        for key in list(shots):
            if await _shot_due(page, key, counts):
                await shots.pop(key)()
        try:
            await play_turn(page, counts, bid)
        except Exception as exc:  # the table moved on between looking and clicking: look again
            if "Timeout" not in type(exc).__name__ and "detached" not in str(exc):
                raise


HOLD_AFTER = """(eventType) => {
  const conn = window.trickroom.conn;
  conn.held = [];
  conn.holding = false;
  conn.receive = function (text) {
    if (this.holding) { this.held.push(text); return; }
    Object.getPrototypeOf(this).receive.call(this, text);
    if (text.includes(`"type":"${eventType}"`) || text.includes(`"type": "${eventType}"`)) {
      this.holding = true;
    }
  };
}"""

RELEASE = """() => {
  const conn = window.trickroom.conn;
  delete conn.receive;
  conn.holding = false;
  for (const text of conn.held.splice(0)) conn.receive(text);
}"""


async def hold_after(page: Any, event_type: str) -> None:
    """Freeze the page on the screen an event draws (e.g. "hand_scored", the hand summary):
    from the next such event on, the page keeps what the socket says until release()."""
    await page.evaluate(HOLD_AFTER, event_type)


async def release(page: Any) -> None:
    """Hand the page every message held since hold_after's event, in order; no more holding."""
    await page.evaluate(RELEASE)

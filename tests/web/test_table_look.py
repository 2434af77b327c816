"""The table reads like a card room: the hand on the felt, the trick with its led card and
winner, the trick going to its winner, a hand summary that waits, a phone bid that leaves
the felt in view, received cards named, sound off until asked for, a score sheet that
keeps its newest hand in view."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.web.conftest import LAPTOP, PHONE, laid_out, ws_url
from tests.web.play import (
    TURN_OR_OVER,
    create_table,
    guest_signs_in,
    hold_after,
    play_to_game_over,
    play_turn,
    release,
    robot_table,
)
from trickroom.server.client import TrickroomClient

# Every class a .trick element has had, and whether a won trick was drawn with a
# summary on screen at the same time.
WATCH_TRICKS = """() => {
  window.trickLog = { classes: [], overlap: false, winners: [], led: 0 };
  new MutationObserver(() => {
    for (const t of document.querySelectorAll('.center .trick')) {
      window.trickLog.classes.push(t.className);
      const summary = document.querySelector('.hand-summary');
      if (t.querySelector('.played') && summary) window.trickLog.overlap = true;
      if (t.querySelector('.played.winner')) window.trickLog.winners.push(t.className);
      if (t.querySelector('.played.led .led-tag')) window.trickLog.led += 1;
    }
  }).observe(document.body, { subtree: true, childList: true });
}"""


async def play_until(page: Any, selector: str, limit: float = 90.0) -> None:
    """Take our turns until `selector` is on screen (the hand summary, say)."""
    counts = {"bids": 0, "passes": 0, "plays": 0}
    deadline = time.monotonic() + limit
    turn_or_target = (f"() => document.querySelector({selector!r}) !== null"
                      f" || ({TURN_OR_OVER})()")
    while not await page.locator(selector).count():
        assert time.monotonic() < deadline, f"{selector} never showed: {counts}"
        await page.wait_for_function(turn_or_target, timeout=60_000)
        if await page.locator(selector).count():
            return
        try:
            await play_turn(page, counts, close_summary=False)
        except Exception as exc:  # the table moved on between looking and clicking
            if "Timeout" not in type(exc).__name__ and "detached" not in str(exc):
                raise


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


async def test_spades_hand_on_the_felt_trick_to_its_winner_and_a_summary_that_waits(
        web_app, open_page):
    page, p = await robot_table(open_page, web_app, "spades", {"Play to (points)": "500"},
                                name="ada")
    await p.evaluate(WATCH_TRICKS)
    await p.locator(".bid-dialog").wait_for()
    # The hand is on the felt, with our nameplate.
    assert await p.locator(".felt .my-area .hand .card").count() == 13
    assert await p.locator(".felt .my-area .seat.me").count() == 1

    # On a phone the bid leaves the other seats, and their bids, in view; names are whole.
    await p.set_viewport_size(PHONE)
    await laid_out(p)
    dialog = await p.locator(".bid-dialog").bounding_box()
    for pos in ("top", "left", "right"):
        seat = p.locator(f".seat.pos-{pos}")
        box = await seat.bounding_box()
        assert box and dialog and not overlaps(box, dialog), f"the bid dialog covers the {pos} seat"
        name = seat.locator(".nm")
        assert await name.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), f"{pos} name is cut"
        assert (await name.inner_text()).startswith("Bot "), await name.inner_text()
    await page.shot("bid-phone", phone=True)
    await p.set_viewport_size(LAPTOP)
    await page.shot("bid")

    await play_until(p, ".hand-summary")
    log = await p.evaluate("window.trickLog")
    # Each trick showed its led card; a won trick ringed its winner, then slid to that side.
    assert log["led"] > 0 and log["winners"], log
    assert any("slide-" in c for c in log["classes"]), log["classes"][-5:]
    # The summary comes once the last trick has gone: never drawn over it.
    assert not log["overlap"]
    summary = p.locator(".hand-summary")
    assert "Hand 1 scored" in await summary.inner_text()
    assert await summary.locator("tbody tr").count() == 2
    await page.shot("hand-summary")
    await page.shot("hand-summary-phone", phone=True)
    # It waits for us: the next hand is dealt, and our turn to bid comes; the bid shows
    # whole below the summary (our clock runs), which stays until we close it.
    await p.wait_for_function("() => document.querySelector('.table-page').dataset.phase === 'bid'")
    await p.wait_for_function(TURN_OR_OVER)
    await p.locator(".bid-dialog").wait_for()
    assert await summary.is_visible()
    go = summary.get_by_role("button")
    assert await go.inner_text() == "Close"
    await go.click()
    await p.locator(".hand-summary").wait_for(state="detached")
    assert await p.locator(".bid-dialog").count() == 1


async def test_the_trick_does_not_slide_with_reduced_motion(web_app, open_page):
    _, p = await robot_table(open_page, web_app, "spades", {"Play to (points)": "500"},
                             reduced_motion=True)
    await p.evaluate(WATCH_TRICKS)
    await play_until(p, ".center .trick .played.winner")  # a trick won, on the felt
    log = await p.evaluate("window.trickLog")
    assert log["winners"], "no trick was shown won"
    assert not any("slide-" in c for c in log["classes"])


async def test_sound_is_off_until_turned_on_and_is_remembered(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p)
    await create_table(p, "spades", {})
    sound = p.locator(".sound-toggle")
    assert await sound.get_attribute("aria-pressed") == "false"
    assert await sound.inner_text() == "Sound off"
    await sound.click()
    assert await sound.get_attribute("aria-pressed") == "true"
    assert await p.evaluate("localStorage.getItem('trickroom.sound')") == "on"
    await p.reload()
    await p.locator(".sound-toggle[aria-pressed='true']").wait_for()


async def test_hearts_names_the_cards_received_and_who_passed_them(web_app, open_page):
    page, p = await robot_table(open_page, web_app, "hearts", {"Play to (points)": "100"})
    await p.locator(".pass-dialog").wait_for()
    assert "← Pass 3 cards left" in await p.locator(".pass-dialog h2").inner_text()
    assert "pass left" in await p.locator(".bar-title").inner_text()
    await play_until(p, ".received-note:not([hidden])")
    note = await p.locator(".received-note").inner_text()
    # We pass left, so the cards come from the right-hand seat (East passes to South... etc.).
    assert note.startswith("You received from Bot "), note
    received = p.locator(".hand .card.received")
    assert await received.count() == 3
    assert await received.locator(".new-tag").count() == 3
    for card in await received.all():
        assert (await card.get_attribute("aria-label")).endswith(", received")
    await page.shot("received")
    await page.shot("received-phone", phone=True)
    # Each seat shows the scoring cards it has taken this hand, as the server named them.
    await play_until(p, ".seat .taken .card")
    taken = await p.locator(".seat .taken .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert taken and all(c.endswith("H") or c == "QS" for c in taken), taken
    await page.shot("penalty-cards")


async def test_a_player_who_leaves_after_the_game_keeps_their_name_on_seat_and_sheet(
        web_app, open_page):
    async with TrickroomClient.connect(ws_url(web_app)) as bob:
        await bob.request({"type": "guest", "name": "bob"})
        created = await bob.request({"type": "create_table", "room": "spades",
                                     "rules": {"target": 10}})
        table = created["table"]["id"]
        await bob.request({"type": "sit", "table": table, "seat": 1})

        async def bob_plays() -> None:
            async for message in bob.messages():
                if message["type"] == "prompt" and message["legal"]:
                    await bob.send({"type": "act", "table": table, "action": message["legal"][0]})

        playing = asyncio.create_task(bob_plays())
        page = await open_page(web_app)
        p = page.page
        await guest_signs_in(p, "ada")
        await p.goto(f"{p.url.split('#')[0]}#/table/{table}")
        await p.get_by_role("button", name="Sit here").first.click()
        await p.locator(".seat.me").wait_for()
        await bob.request({"type": "fill_robots", "table": table})
        await play_to_game_over(p)
        watched = await bob.request({"type": "watch", "table": table})
        bob_name = next(s["name"] for s in watched["info"]["seats"] if s["seat"] == 1)
        playing.cancel()
        await bob.request({"type": "stand", "table": table})
        seat = p.locator('.seat[data-seat="1"] .nm')
        await p.locator('.seat[data-seat="1"] .nm', has_text="(left)").wait_for()
        assert await seat.inner_text() == f"{bob_name} (left)"
        assert bob_name in await p.locator(".sheet thead").inner_text()


async def test_a_player_reviews_their_game_from_their_own_seat(web_app, open_page):
    page, p = await robot_table(open_page, web_app, "spades", {"Play to (points)": "10"},
                                name="ada")
    await play_to_game_over(p)
    mine = int(await p.locator(".seat.me").get_attribute("data-seat"))
    await p.locator("dialog.game-over").get_by_role("link", name="Review the game").click()
    await p.locator(".review .where").wait_for()
    # At the table we sat at the bottom; the review shows the game the same way round.
    assert await p.locator(".review-seat.pos-bottom").get_attribute("data-seat") == str(mine)
    me = (await p.locator(".me-name").inner_text()).removesuffix(" (guest)")
    pressed = await p.locator(".seen-from [aria-pressed='true']").inner_text()
    assert pressed == f"{['North', 'East', 'South', 'West'][mine]} · {me}"
    other = (mine + 2) % 4
    await p.locator(".seen-from button").nth(other).click()
    assert await p.locator(".review-seat.pos-bottom").get_attribute("data-seat") == str(other)
    assert await p.locator(".review-seat.pos-top").get_attribute("data-seat") == str(mine)
    await page.shot("review-own-seat")


RECORD_PROMPTS = """() => {
  const conn = window.trickroom.conn;
  const receive = conn.receive.bind(conn);
  conn.receive = (text) => {
    const msg = JSON.parse(text);
    if (msg.type === "prompt") window.lastPrompt = msg;
    receive(text);
  };
}"""


async def test_the_rules_form_and_the_reason_a_card_is_refused_come_from_the_server(
        web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p)
    await p.locator(".room-link", has_text="hearts").first.click()
    await p.get_by_role("button", name="Create table").click()
    dialog = p.locator("dialog.create-dialog")
    # Rules the old hard-coded form never offered are there, under "More rules".
    await dialog.locator("summary", has_text="More rules").click()
    await dialog.get_by_label("The queen of spades breaks hearts").check()
    await dialog.get_by_label("Cards passed").fill("4")
    await page.shot("create-more-rules")
    await dialog.get_by_role("button", name="Create and sit").click()
    await p.locator(".table-page").wait_for()
    table = p.url.rsplit("/", 1)[1]
    async with TrickroomClient.connect(ws_url(web_app)) as watcher:
        await watcher.request({"type": "guest"})
        await p.get_by_role("button", name="Fill with robots").click()
        await p.locator(".pass-dialog").wait_for()
        snapshot = await watcher.request({"type": "watch", "table": table})
    rules = snapshot["view"]["rules"]
    assert rules["queen_breaks_hearts"] is True and rules["pass_count"] == 4
    assert "Pass 4 cards left" in await p.locator(".pass-dialog h2").inner_text()

    # A refused card says why in the engine's words, as the prompt carried them.
    await p.evaluate(RECORD_PROMPTS)
    counts = {"bids": 0, "passes": 0, "plays": 0}
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "never had a card to refuse"
        await p.wait_for_function(TURN_OR_OVER, timeout=60_000)
        refused = p.locator(".hand .card.not-legal")
        prompt = await p.evaluate("window.lastPrompt || null")
        if (prompt and prompt["phase"] == "play" and await refused.count()
                and await p.locator(".table-page[data-my-turn='true']").count()):
            card = await refused.first.get_attribute("data-card")
            reasons = {x["card"]: x["reason"] for x in prompt["illegal"]}
            if card in reasons:
                await refused.first.click(force=True)
                assert await p.locator(".hand-note").inner_text() == reasons[card]
                return
        await play_turn(p, counts)
        # A card played leaves its prompt on screen until the server's event comes: look
        # for a refusal again only on the next prompt.
        await p.evaluate("window.lastPrompt = null")


async def test_a_whole_hand_is_played_by_keyboard_alone(web_app, open_page):
    _, p = await robot_table(open_page, web_app, "spades", {"Play to (points)": "500"})
    active = "() => document.activeElement?.closest('{}') !== null"
    done = {"bid": False, "summary": False, "plays": 0}
    deadline = time.monotonic() + 90
    while not done["summary"]:
        assert time.monotonic() < deadline, done
        await p.wait_for_function(f"() => document.querySelector('.hand-summary') !== null"
                                  f" || ({TURN_OR_OVER})()")
        if await p.locator(".hand-summary").count():
            # The summary takes the focus, or our bid below it does once our turn comes (the
            # clock runs): Shift+Tab goes back to the summary's button. Enter closes it.
            await p.wait_for_function(active.format(".prompt-box"))
            if not await p.evaluate(active.format(".hand-summary")):
                await p.keyboard.press("Shift+Tab")
            await p.wait_for_function(active.format(".hand-summary"))
            await p.keyboard.press("Enter")
            await p.locator(".hand-summary").wait_for(state="detached")
            done["summary"] = True
        elif await p.locator(".bid-dialog").count():
            # The bid dialog takes the focus; Tab walks its choices (Nil, 1, 2, ...).
            await p.wait_for_function(active.format(".bid-dialog"))
            for _ in range(3):
                await p.keyboard.press("Tab")
            assert await p.evaluate("document.activeElement.dataset.bid") == "2"
            await p.keyboard.press("Enter")
            await p.locator(".seat.me .bid", has_text="bid 2").wait_for()
            done["bid"] = True
        elif await p.locator(".table-page[data-phase='play']").count() == 0:
            await p.wait_for_timeout(50)  # the hand is over: its summary comes after the trick
        else:
            # Cards: an arrow brings the focus to the hand's legal cards, Enter plays one.
            before = await p.locator(".hand .card").count()
            await p.keyboard.press("ArrowRight")
            await p.keyboard.press("Enter")
            # (the last card's play may deal the next hand at once: any change will do)
            await p.wait_for_function(
                f"() => document.querySelectorAll('.hand .card').length !== {before}")
            done["plays"] += 1
    assert done["bid"] and done["plays"] == 13
    await p.locator(".bid-dialog").wait_for()


async def test_the_hand_that_ends_the_game_is_scored_on_the_felt_before_the_game_is_over(
        web_app, open_page):
    # To 10 points: the first hand almost always ends the game. Its last card's events
    # (trick, hand scored, game over) share one turn; the client holds the game over back.
    _, p = await robot_table(open_page, web_app, "spades", {"Play to (points)": "10"})
    await hold_after(p, "hand_scored")
    counts = {"bids": 0, "passes": 0, "plays": 0}
    deadline = time.monotonic() + 90
    held = "() => window.trickroom.conn.holding === true"
    while not await p.evaluate(held):
        assert time.monotonic() < deadline, counts
        await p.wait_for_function(f"() => ({held})() || ({TURN_OR_OVER})()")
        if not await p.evaluate(held):
            try:
                await play_turn(p, counts)
            except Exception as exc:  # the table moved on between looking and clicking
                if "Timeout" not in type(exc).__name__ and "detached" not in str(exc):
                    raise
    # The game_over event is held back: the hand's summary shows, the game is not over yet.
    await p.locator(".hand-summary", has_text="Hand 1 scored").wait_for()
    assert await p.locator(".table-page").get_attribute("data-phase") != "game_over"
    await release(p)


def spades_results(hands: int) -> list[dict[str, Any]]:
    """Scored hands as a view's hand_results carries them: North-South make 4, East-West
    are set on 5, hand after hand."""
    results, scores = [], [0, 0]
    for hand in range(hands):
        scores = [scores[0] + 41, scores[1] - 50]
        sides = [{"side": side, "contract": 4 if side == 0 else 5, "tricks": 5 if side == 0 else 4,
                  "made": side == 0, "contract_points": 40 if side == 0 else -50,
                  "bags": 1 - side, "nil_points": 0, "bag_penalty": 0,
                  "points": 41 if side == 0 else -50, "score": scores[side],
                  "bags_total": (hand + 1) * (1 - side)} for side in (0, 1)]
        results.append({"dealer": hand % 4, "bids": [2, 3, 2, 2], "blind": [False] * 4,
                        "tricks_won": [3, 2, 2, 2], "sides": sides, "scores": list(scores)})
    return results


FEED = "(message) => window.trickroom.conn.receive(JSON.stringify(message))"
SHEET_AT_END = """() => { const b = document.querySelector('.sheet-box');
  return b.scrollHeight > b.clientHeight && b.scrollTop + b.clientHeight >= b.scrollHeight - 2; }"""


async def test_the_score_sheet_keeps_its_newest_hand_in_view(web_app, open_page):
    """Eight hands scored, more than the sheet's box shows: the newest stays in view when the
    box is laid out again (a box that fitted its sheet at another width lost its end once),
    a player who scrolls back to an old hand stays there, and a new hand scrolls to it."""
    page = await open_page(web_app)
    p = page.page
    name = await guest_signs_in(p, "ada")
    table = await create_table(p, "spades", {})
    me = p.locator(".seat.me")
    await me.wait_for()
    seat = int(await me.get_attribute("data-seat"))
    # The table as a rejoin's snapshot would give it eight hands into a game.
    info = {"id": table, "room": "spades", "game": "spades", "state": "playing",
            "seating": "fixed_seating", "watchers": 0,
            "seats": [{"seat": s, "name": name if s == seat else f"Bot {s}",
                       "kind": "human" if s == seat else "robot", "away": False}
                      for s in range(4)]}
    results = spades_results(8)
    view = {"game": "spades", "seat": seat, "phase": "bid", "rules": {"target": 1000},
            "hand_no": 8, "dealer": 0, "to_act": (seat + 1) % 4, "awaiting": [(seat + 1) % 4],
            "hand": ["2C", "3D", "AS"], "hand_sizes": [13] * 4, "leader": None, "trick": [],
            "tricks": [], "tricks_won": [0] * 4, "scores": results[-1]["scores"],
            "hand_results": results, "legal": [], "illegal": [], "bids": [None] * 4,
            "blind": [False] * 4, "bags": [8, 0], "spades_broken": False, "sees_hand": True}
    seq = 100
    await p.evaluate(FEED, {"type": "snapshot", "table": table, "seq": seq, "info": info,
                            "view": view, "paused": None, "vote": None})
    await p.locator(".sheet tbody tr").nth(7).wait_for()
    await p.wait_for_function(SHEET_AT_END)

    # The box fits its sheet for a moment (as at a phone's width), then no longer does.
    box = p.locator(".sheet-box")
    await box.evaluate("b => { b.style.maxHeight = 'none'; }")
    await p.wait_for_function("() => document.querySelector('.sheet-box').scrollTop === 0")
    await laid_out(p)
    await box.evaluate("b => { b.style.maxHeight = ''; }")
    await p.wait_for_function(SHEET_AT_END)
    await p.set_viewport_size(PHONE)
    await p.set_viewport_size(LAPTOP)
    await p.wait_for_function(SHEET_AT_END)

    # The player scrolls back to hand 1: the table drawn again (a name changes) leaves the
    # sheet there.
    await box.hover()
    await p.mouse.wheel(0, -5000)
    await p.wait_for_function("() => document.querySelector('.sheet-box').scrollTop === 0")
    renamed = {**info, "seats": [{**s, "name": "Bot Renamed"} if s["seat"] != seat else s
                                 for s in info["seats"]]}
    seq += 1
    await p.evaluate(FEED, {"type": "event", "table": table, "seq": seq,
                            "event": {"type": "table", "info": renamed}})
    await p.locator(".sheet thead", has_text="Bot Renamed").wait_for()
    assert await box.evaluate("b => b.scrollTop") == 0
    # A new hand scored: the sheet goes to it.
    ninth = spades_results(9)[-1]
    seq += 1
    await p.evaluate(FEED, {"type": "event", "table": table, "seq": seq,
                            "event": {"type": "hand_scored", "hand": 8, **ninth},
                            "turn": {"phase": "hand_over", "to_act": None, "awaiting": []}})
    await p.locator(".sheet tbody tr").nth(8).wait_for()
    await p.wait_for_function(SHEET_AT_END)
    await page.shot("sheet-at-its-newest-hand")


async def test_a_duplicate_match_from_the_create_dialog_ends_with_the_result_against_the_field(
        web_app, open_page):
    """Issue 36, item 4, offered to everyone: a player opens a duplicate match from the
    create dialog, plays its two Spades games against robots (moved one seat for the
    second), and the last game's end shows each player against the field."""
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p, "dupe")
    await p.locator(".room-link", has_text="spades").first.click()
    await p.get_by_role("button", name="Create table").click()
    dialog = p.locator("dialog.create-dialog")
    await dialog.get_by_text("More rules").click()
    await dialog.get_by_label("Most hands").fill("1")
    await dialog.get_by_label("Duplicate match", exact=False).check()
    await dialog.get_by_role("button", name="Create and sit").click()
    await p.locator("dialog.invite-dialog").get_by_role("button", name="Done").click()
    await p.get_by_role("button", name="Fill with robots").click()
    await p.get_by_text("duplicate match, 0 of 2 games played").wait_for()
    await play_to_game_over(p)
    over = p.locator("dialog[open]", has_text="Game over")
    assert await over.get_by_role("link", name="Review the game").count() == 0  # not yet
    await over.get_by_role("button", name="Next game of the match (2 of 2)").click()
    await p.get_by_text("duplicate match, 1 of 2 games played").wait_for()
    await p.locator('.seat.me[data-seat="1"]').wait_for()  # one seat on
    await play_to_game_over(p)
    result = p.locator("dialog[open] section.duplicate")
    await result.wait_for()
    rows = await result.locator("tbody tr").all_inner_texts()
    assert len(rows) == 4 and any("guest-dupe" in row for row in rows)
    await page.shot("duplicate-result")
    page.check()

"""The table fits every screen (issue 33): at each size of the matrix, in both games and
in every phase, the four seats, the trick, the whole hand and any button to press are
inside the viewport and uncovered, with 24-character names and six scoring cards taken.

The phases are drawn from the server's own messages (a snapshot, then a prompt), fed to
the page at a table of its own, as a rejoin would bring them: one page per game, each
phase drawn once and measured at every size (page.set_viewport_size), so the whole
matrix costs seconds. tests/web/layout.py does the measuring.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.web.conftest import laid_out
from tests.web.layout import layout_problems
from tests.web.play import (
    TURN_OR_OVER,
    create_table,
    guest_signs_in,
    play_to_game_over,
    robot_table,
)
from tests.web.test_chat_review import finished_game

MATRIX = [(360, 640), (360, 740), (390, 844), (740, 360), (844, 390), (768, 1024),
          (1024, 600), (1280, 720), (1280, 800), (1366, 768), (1920, 1080)]
SCREENS = Path("/work/notes/screens")
SHOT_SIZES = {(360, 740), (740, 360), (1366, 768)}
# The longest names there are, in wide letters.
ME = "MaximilianWolfgangMWM_24"
OTHERS = ["WWWWWWWWWWWWWWWWWWWWWWWW", "Mmmmmmmmmmmmmmmmmmmmmmm_",
          "Wolfgang-Amadeus-Mozart1"]
# A raised card slides down when the screen changes: measure where it comes to rest.
SETTLED = "() => Promise.all(document.getAnimations().map((a) => a.finished))"
FEED = "(message) => window.trickroom.conn.receive(JSON.stringify(message))"

SPADES_HAND = ["2C", "5C", "9C", "QC", "AC", "3D", "TD", "KD", "4H", "JH", "6S", "JS", "AS"]
HEARTS_HAND = ["2C", "7C", "KC", "4D", "8D", "QD", "AD", "3H", "9H", "5S", "TS", "QS", "KS"]
TRICK = ["KH", "QH", "9H"]
RULES = {"spades": {"target": 500}, "hearts": {"target": 100, "pass_count": 3}}


class Table:
    """A table of our own, its other seats named as the longest names go, drawn through
    the page's socket handler with the messages a rejoin would bring."""

    def __init__(self, page: Any, game: str, table: str, seat: int, me: str) -> None:
        self.page, self.game, self.table, self.seat, self.me = page, game, table, seat, me
        self.seq = 1000
        self.names = list(OTHERS)
        self.names.insert(seat, me)

    def info(self, state: str = "playing") -> dict[str, Any]:
        return {"id": self.table, "room": self.game, "game": self.game, "state": state,
                "seating": "fixed_seating", "watchers": 0,
                "seats": [{"seat": s, "name": self.names[s],
                           "kind": "human" if s == self.seat else "robot", "away": False}
                          for s in range(4)]}

    def view(self, phase: str, **extra: Any) -> dict[str, Any]:
        """The view of hand 4 (three scored), ``phase`` in it; ``extra`` overrides."""
        seat = self.seat
        base: dict[str, Any] = {
            "game": self.game, "seat": seat, "phase": phase, "rules": RULES[self.game],
            "hand_no": 3, "dealer": (seat + 1) % 4, "to_act": seat, "awaiting": [seat],
            "hand": SPADES_HAND if self.game == "spades" else HEARTS_HAND,
            "hand_sizes": [13] * 4, "leader": None, "trick": [], "tricks": [],
            "tricks_won": [0] * 4, "legal": [], "illegal": []}
        if self.game == "spades":
            base.update(scores=[-123, 456], hand_results=spades_results(3),
                        bids=[None] * 4, blind=[False] * 4, bags=[8, 3], spades_broken=False,
                        sees_hand=True)
        else:
            base.update(scores=[55, 78, 23, 91], hand_results=hearts_results(3),
                        pass_direction="left", passed=[], received=[],
                        pass_chosen=[False] * 4, points_taken=[0] * 4)
        base.update(extra)
        return base

    async def feed(self, message: dict[str, Any]) -> None:
        await self.page.evaluate(FEED, {"table": self.table, **message})

    async def snapshot(self, view: dict[str, Any], state: str = "playing") -> None:
        self.seq += 1
        await self.feed({"type": "snapshot", "seq": self.seq, "info": self.info(state),
                         "view": view, "paused": None, "vote": None})

    async def prompt(self, view: dict[str, Any], **extra: Any) -> None:
        await self.feed({"type": "prompt", "seq": self.seq, "seat": self.seat,
                         "phase": view["phase"], "legal": view["legal"],
                         "illegal": view["illegal"], "seconds": 30, "hand": view["hand"],
                         "view": view, "pass_count": None, **extra})

    def played(self, cards: list[str]) -> list[dict[str, Any]]:
        """``cards`` played by the seats before ours, the first of them leading."""
        return [{"seat": (self.seat - len(cards) + i) % 4, "card": c} for i, c in enumerate(cards)]

    def taken_tricks(self) -> list[dict[str, Any]]:
        """Six scoring cards taken by us and six by the seat across, in four tricks."""
        across = (self.seat + 2) % 4
        won = [(self.seat, ["2H", "5H", "6H"]), (across, ["7H", "8H", "TH"]),
               (self.seat, ["AH", "QS", "KH"]), (across, ["JH", "4H", "3H"])]
        return [{"seat": s, "trick": i, "leader": s, "cards": ["3C", "4C", "5C", "6C"],
                 "points": sum(13 if c == "QS" else 1 for c in scoring), "scoring": scoring}
                for i, (s, scoring) in enumerate(won)]


def spades_results(hands: int) -> list[dict[str, Any]]:
    results, scores = [], [0, 0]
    for hand in range(hands):
        scores = [scores[0] - 41, scores[1] + 152]
        sides = [{"side": side, "contract": 4 if side == 0 else 5, "tricks": 3 if side == 0 else 10,
                  "made": side == 1, "contract_points": -40 if side == 0 else 50,
                  "bags": 5 * side, "nil_points": 100 * side, "bag_penalty": 0,
                  "points": -41 if side == 0 else 152, "score": scores[side],
                  "bags_total": 5 * side} for side in (0, 1)]
        results.append({"dealer": hand % 4, "bids": [2, 0, 2, 5], "blind": [False] * 4,
                        "tricks_won": [2, 0, 1, 10], "sides": sides, "scores": list(scores)})
    return results


def hearts_results(hands: int) -> list[dict[str, Any]]:
    results, scores = [], [0, 0, 0, 0]
    for hand in range(hands):
        points = [13, 0, 8, 5]
        scores = [a + b for a, b in zip(scores, points, strict=True)]
        results.append({"dealer": hand % 4, "pass_direction": "left", "taken": points,
                        "moon": None, "moon_choice": None, "points": points,
                        "scores": list(scores)})
    return results


async def at_table(open_page: Any, app: Any, game: str) -> tuple[Any, Table]:
    page = await open_page(app)
    p = page.page
    # No transitions (a raised card sliding as the screen changes): each size is measured
    # as soon as it is laid out.
    await p.emulate_media(reduced_motion="reduce")
    me = await guest_signs_in(p, ME)
    assert len(me) == 24, me
    table = await create_table(p, game, {})
    seat = int(await p.locator(".seat.me").get_attribute("data-seat"))
    return page, Table(p, game, table, seat, me)


async def measure(page: Any, label: str, failures: list[str], shots: str | None = None) -> None:
    """Lay the page out at every size of the matrix and note what does not fit."""
    p = page.page
    for width, height in MATRIX:
        await p.set_viewport_size({"width": width, "height": height})
        await laid_out(p)
        await p.evaluate(SETTLED)
        for problem in await layout_problems(p):
            failures.append(f"{label} at {width}x{height}: {problem}")
        if shots and (width, height) in SHOT_SIZES:
            SCREENS.mkdir(parents=True, exist_ok=True)
            await p.screenshot(path=str(SCREENS / f"{shots}-{label}-{width}x{height}.png"))


def report(failures: list[str]) -> str:
    return f"{len(failures)} problems:\n" + "\n".join(failures[:80])


# Screenshots of each phase at three sizes into /work/notes/screens, named after this.
SHOTS = os.environ.get("TRICKROOM_LAYOUT_SHOTS")


async def test_the_spades_table_fits_every_screen_in_every_phase(web_app, open_page):
    page, t = await at_table(open_page, web_app, "spades")
    p = page.page
    failures: list[str] = []
    shots = f"{SHOTS}-spades" if SHOTS else None
    # Bidding: two seats have bid, ours is asked.
    bids = [None] * 4
    bids[(t.seat + 2) % 4], bids[(t.seat + 3) % 4] = 4, 0
    legal = [{"type": "bid", "value": v} for v in range(14)]
    bid = t.view("bid", bids=bids, legal=legal)
    await t.snapshot(bid)
    await t.prompt(bid)
    await p.locator(".bid-dialog").wait_for()
    await measure(page, "bid", failures, shots)
    # Playing: three cards on the trick, ours to follow.
    follow = [c for c in SPADES_HAND if c.endswith("H")]
    play = t.view("play", bids=[3, 0, 4, 5], trick=t.played(TRICK), leader=(t.seat + 1) % 4,
                  tricks_won=[3, 0, 2, 4], hand_sizes=[13, 12, 12, 12],
                  legal=[{"type": "play", "card": c} for c in follow],
                  illegal=[{"card": c, "reason": "Follow suit: hearts were led."}
                           for c in SPADES_HAND if c not in follow])
    await t.snapshot(play)
    await t.prompt(play)
    await p.locator(".hand .card.legal").first.wait_for()
    await measure(page, "play", failures, shots)
    # The hand is scored: its summary waits to be closed.
    await t.snapshot(t.view("hand_over", hand=[], to_act=None, awaiting=[],
                            hand_results=spades_results(4), scores=[-164, 608]))
    await p.locator(".hand-summary").wait_for()
    await measure(page, "summary", failures, shots)
    # Game over: the dialog's ways on; then the table behind it.
    await t.snapshot(t.view("game_over", hand=[], to_act=None, awaiting=[],
                            hand_results=spades_results(4), scores=[-164, 608]), state="over")
    await p.locator("dialog.game-over[open]").wait_for()
    await measure(page, "game-over", failures, shots)
    await p.get_by_role("button", name="Look at the table").click()
    await measure(page, "game-over-table", failures)
    assert not failures, report(failures)


async def test_the_hearts_table_fits_every_screen_in_every_phase(web_app, open_page):
    page, t = await at_table(open_page, web_app, "hearts")
    p = page.page
    failures: list[str] = []
    shots = f"{SHOTS}-hearts" if SHOTS else None
    # The pass: three cards chosen, the button to pass them enabled.
    passing = t.view("pass", legal=[{"type": "pass", "cards": []}])
    await t.snapshot(passing)
    await t.prompt(passing, pass_count=3)
    for card in HEARTS_HAND[-3:]:
        await p.locator(f'.hand .card[data-card="{card}"]').click()
    await p.locator(".pass-dialog .pass-go:enabled").wait_for()
    await measure(page, "pass", failures, shots)
    # Playing, six scoring cards taken by us and six across: three cards on the trick.
    tricks = t.taken_tricks()
    won = [0] * 4
    taken = [0] * 4
    for trick in tricks:
        won[trick["seat"]] += 1
        taken[trick["seat"]] += trick["points"]
    hand = [c for c in HEARTS_HAND if c not in ("2C", "7C", "KC", "QS")]
    follow = [c for c in hand if c.endswith("H")] or hand
    play = t.view("play", hand=hand, trick=t.played(["TC", "JC", "AC"][:3]),
                  leader=(t.seat + 1) % 4, tricks=tricks, tricks_won=won, points_taken=taken,
                  hand_sizes=[9, 8, 8, 8], legal=[{"type": "play", "card": c} for c in follow],
                  illegal=[])
    await t.snapshot(play)
    await t.prompt(play)
    await p.locator(".seat .taken .card").first.wait_for()
    await measure(page, "play", failures, shots)
    # The whole hand in the play: thirteen cards, six scoring cards taken.
    full = t.view("play", tricks=tricks[:2], tricks_won=won, points_taken=taken,
                  legal=[{"type": "play", "card": "2C"}], to_act=t.seat)
    await t.snapshot(full)
    await t.prompt(full)
    await measure(page, "play-13", failures)
    # The hand is scored.
    await t.snapshot(t.view("hand_over", hand=[], to_act=None, awaiting=[],
                            hand_results=hearts_results(4), scores=[68, 78, 31, 96]))
    await p.locator(".hand-summary").wait_for()
    await measure(page, "summary", failures, shots)
    await t.snapshot(t.view("game_over", hand=[], to_act=None, awaiting=[],
                            hand_results=hearts_results(4), scores=[68, 108, 31, 96]),
                     state="over")
    await p.locator("dialog.game-over[open]").wait_for()
    await measure(page, "game-over", failures, shots)
    await p.get_by_role("button", name="Look at the table").click()
    await measure(page, "game-over-table", failures)
    assert not failures, report(failures)


async def test_the_hand_summary_never_hides_our_turn(web_app, open_page):
    """Item 2: the summary of a hand, left open to read, shares the felt with our bid (or
    pass) once our turn comes: the turn's clock runs, so its dialog is whole and uncovered
    at every size, and the summary stays open until we close it."""
    failures: list[str] = []
    for game in ("spades", "hearts"):
        page, t = await at_table(open_page, web_app, game)
        p = page.page
        scored = spades_results(4) if game == "spades" else hearts_results(4)
        await t.snapshot(t.view("hand_over", hand=[], to_act=None, awaiting=[],
                                hand_results=scored, scores=scored[-1]["scores"]))
        await p.locator(".hand-summary").wait_for()
        # The next hand is dealt and our turn comes, the summary still open.
        if game == "spades":
            turn = t.view("bid", hand_no=4, hand_results=scored, scores=scored[-1]["scores"],
                          legal=[{"type": "bid", "value": v} for v in range(14)])
            await t.prompt(turn)
            answer = ".bid-dialog"
        else:
            turn = t.view("pass", hand_no=4, hand_results=scored, scores=scored[-1]["scores"],
                          legal=[{"type": "pass", "cards": []}])
            await t.prompt(turn, pass_count=3)
            answer = ".pass-dialog"
            for card in HEARTS_HAND[:3]:
                await p.locator(f'.hand .card[data-card="{card}"]').click()
        await p.locator(answer).wait_for()
        assert await p.locator(".hand-summary").count() == 1, "the summary waits to be closed"
        for width, height in MATRIX:
            await p.set_viewport_size({"width": width, "height": height})
            await laid_out(p)
            await p.evaluate(SETTLED)
            for problem in await layout_problems(p, buttons=f"{answer} button, .summary-go"):
                failures.append(f"{game} at {width}x{height}: {problem}")
        # Closing the summary leaves the turn's dialog.
        await p.locator(".hand-summary .summary-go").click()
        await p.locator(".hand-summary").wait_for(state="detached")
        assert await p.locator(answer).count() == 1
    assert not failures, report(failures)


async def test_a_refusal_goes_at_the_next_turn_and_robots_have_no_clock(web_app, open_page):
    """Item 9: "It is not your turn." under the hand goes once our turn comes. Item 15: a
    robot's turn (or an away player's, which a robot plays) shows no 30 s clock and no
    gold ring: it moves in a moment."""
    page, t = await at_table(open_page, web_app, "spades")
    p = page.page
    robot = (t.seat + 1) % 4
    waiting = t.view("play", bids=[3, 2, 4, 1], to_act=robot, awaiting=[robot],
                     trick=[], leader=robot)
    await t.snapshot(waiting)
    await p.locator(f'.seat[data-seat="{robot}"]').wait_for()
    assert await p.locator(f'.seat[data-seat="{robot}"].turn').count() == 0, "a robot's gold ring"
    assert await p.locator(f'.seat[data-seat="{robot}"] .timer').count() == 0, "a robot's clock"
    assert await p.locator(".turn-status .countdown").count() == 0, "a robot's countdown"
    # An away player's seat, played by a robot, neither.
    away = (t.seat + 3) % 4
    info = t.info()
    info["seats"][away].update(kind="human", away=True)
    t.seq += 1
    await t.feed({"type": "snapshot", "seq": t.seq, "info": info, "paused": None, "vote": None,
                  "view": t.view("play", bids=[3, 2, 4, 1], to_act=away, awaiting=[away])})
    await p.locator(f'.seat[data-seat="{away}"].away').wait_for()
    assert await p.locator(f'.seat[data-seat="{away}"].turn').count() == 0
    assert await p.locator(f'.seat[data-seat="{away}"] .timer').count() == 0
    assert await p.locator(".turn-status .countdown").count() == 0
    # A card pressed out of turn says why...
    await t.snapshot(waiting)
    # (pressed once that snapshot is drawn: a card of the hand drawn before it is replaced,
    # and a click on it then lands nowhere, as a busy machine showed)
    await p.locator(f'.seat[data-seat="{away}"].away').wait_for(state="detached")
    await p.locator('.hand .card[data-card="2C"]').click(force=True)
    await p.locator(".hand-note", has_text="It is not your turn.").wait_for()
    # ...until our turn comes: the note goes, and our clock runs.
    mine = t.view("play", bids=[3, 2, 4, 1], legal=[{"type": "play", "card": c}
                                                    for c in SPADES_HAND])
    await t.snapshot(mine)
    await t.prompt(mine)
    await p.locator(".hand .card.legal").first.wait_for()  # the prompt is drawn
    await p.locator(".seat.me.turn .timer").wait_for()
    assert await p.locator(".hand-note").inner_text() == ""


async def test_notices_never_cover_the_hand_or_what_we_must_press(web_app, open_page):
    """Item 3: the notices of a table ("Game on. Chances …", a quit, a substitute) show
    where they cover nothing we need: not our hand, a seat or our turn's dialog."""
    page, t = await at_table(open_page, web_app, "hearts")
    p = page.page
    passing = t.view("pass", legal=[{"type": "pass", "cards": []}], hand_no=0,
                     hand_results=[], scores=[0, 0, 0, 0])
    await t.snapshot(passing)
    t.seq += 1
    await t.feed({"type": "event", "seq": t.seq, "event": {
        "type": "game_started", "game_id": f"{t.table}-1", "rules": RULES["hearts"],
        "system": "openskill", "chances": [0.25, 0.25, 0.25, 0.25]}})
    t.seq += 1
    await t.feed({"type": "event", "seq": t.seq, "event": {
        "type": "substitute", "seat": (t.seat + 1) % 4, "name": OTHERS[0]}})
    await t.snapshot(passing)
    await t.prompt(passing, pass_count=3)
    await p.locator(".pass-dialog").wait_for()
    await p.locator(".toast", has_text="Game on").wait_for(state="attached")
    failures: list[str] = []
    for width, height in MATRIX:
        await p.set_viewport_size({"width": width, "height": height})
        await laid_out(p)
        failures += [f"{width}x{height}: {x}" for x in await layout_problems(p)
                     if x.startswith("the notice")]
    assert not failures, report(failures)



async def test_the_review_on_a_phone_keeps_the_trick_and_next_in_place(review_app, open_page):
    """Item 8: on a phone each tap on "Next" shows its trick on the screen, and "Next" stays
    where the thumb is (the position beside it once changed width, moving it 240 px)."""
    game_id = await finished_game(review_app, "spades", {"target": 10, "mercy": 10})
    page = await open_page(review_app, viewport={"width": 360, "height": 740})
    p = page.page
    await p.goto(f"{p.url.split('#')[0]}#/review/{game_id}")
    await p.locator(".review .where").wait_for()
    next_button = p.get_by_role("button", name="Next ▶")
    boxes = [await next_button.bounding_box()]
    for step in range(1, 4):
        await next_button.click()
        await p.locator(".review .where", has_text=f"trick {step} of").wait_for()
        await laid_out(p)
        boxes.append(await next_button.bounding_box())
        assert boxes[-1] == boxes[0], f"Next moved: {boxes}"
        for card in await p.locator(".review-center .trick .card").all():
            box = await card.bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= 740, (step, box)
        assert await p.locator(".review-center .trick .card").count() == 4


async def test_waiting_to_play_again_goes_once_the_new_game_starts(web_app, open_page):
    """Item 3: "Waiting for the others to play again" is gone once the new game has begun
    (robots say yes at once: the game starts before the server answers our request, and
    the notice stayed over the new game's bidding)."""
    _, p = await robot_table(open_page, web_app, "spades",
                             {"Play to (points)": "10",
                              "Mercy: end when a side falls to minus (empty: off)": "10"})
    await play_to_game_over(p)
    table = p.url.rsplit("/", 1)[1]
    seats = web_app.lobby.tables[table].machine.state.seats
    before = [s.name for s in seats]
    # Issue 35: a rematch with new partners (our vote is the table's: the robots say yes
    # to anything); North stays, the others move one seat on.
    await p.locator("dialog.game-over").get_by_role("button",
                                                    name="Play again, new partners").click()
    await p.locator(".table-page[data-phase='bid']").wait_for()
    await p.wait_for_function(TURN_OR_OVER)  # our first turn of the new game
    await laid_out(p)
    assert await p.locator(".toast", has_text="Waiting for the others").count() == 0
    after = [s.name for s in web_app.lobby.tables[table].machine.state.seats]
    assert after == [before[0], before[3], before[1], before[2]]

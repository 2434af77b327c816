"""What a newcomer tripped on (issue 33): counts said in words, the deciding hand's summary
at game over, Hearts places in the results, ranked eligibility said before the click, the
way back to a seat a robot plays, two tabs, registration refusals in plain words, and room
counts that follow the listing.

The views are pure functions of the table's state: where a state is hard to reach by
playing (a Hearts game ending with four different places), the test draws the page's own
view modules in the browser from a state it builds, the way the table page calls them.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from tests.server.conftest import play_until_over, wait_for
from tests.web.conftest import PHONE, Page, base_url, laid_out, ws_url
from tests.web.play import guest_signs_in, robot_table
from tests.web.test_a11y import Audit
from tests.web.test_ranked import PASSWORD, register_in_browser
from trickroom.server.client import TrickroomClient

# Load one of the client's modules in the page, from the version the page itself loaded.
IMPORT = """async (name) => {
  const base = document.querySelector('script[type=module]').src;
  return import(new URL(name, base).href);
}"""

HEARTS_INFO = """(names) => ({
  id: "t1", room: "hearts", game: "hearts", state: "playing", seating: "fixed_seating", watchers: 0,
  seats: names.map((name, seat) => ({ seat, name, kind: "human", away: false })),
})"""


async def draw(page: Any, script: str, arg: Any = None) -> Any:
    """Run ``script`` (a JS function of (modules, arg)) with the client's modules loaded."""
    return await page.evaluate(f"""async (arg) => {{
      const load = {IMPORT};
      const m = {{}};
      for (const name of ["tableseat.js", "tablebar.js", "gameover.js", "tablestate.js",
                          "dom.js", "counts.js"]) {{
        try {{ Object.assign(m, await load(name)); }} catch (e) {{}}
      }}
      m.heartsInfo = {HEARTS_INFO};
      return ({script})(m, arg);
    }}""", arg)


# -- item 10: plurals ----------------------------------------------------------------------


async def test_one_trick_and_one_bag_are_said_in_the_singular(web_app, open_page):
    page = (await open_page(web_app)).page
    texts = await draw(page, """(m) => {
      const el = document.createElement("div");
      const hearts = {
        ...m.initialState("t1"), seat: 0, info: m.heartsInfo(["ann", "bob", "cat", "dan"]),
        view: { game: "hearts", seat: 0, phase: "play", hand_no: 0, dealer: 3, to_act: 1,
          tricks: [], trick: [], tricks_won: [1, 2, 0, 0], points_taken: [0, 1, 0, 0],
          scores: [0, 0, 0, 0], rules: {}, pass_chosen: [true, true, true, true] },
      };
      m.drawSeat(el, hearts, 0, 0, { sit() {} });
      const seat = el.textContent;
      m.drawSeat(el, hearts, 1, 0, { sit() {} });
      const seat1 = el.textContent;
      const spades = {
        ...m.initialState("t2"), seat: 0,
        info: { ...m.heartsInfo(["ann", "bob", "cat", "dan"]), game: "spades", room: "spades" },
        view: { game: "spades", seat: 0, phase: "play", hand_no: 1, dealer: 0, to_act: 1,
          bids: [3, 4, 2, 1], blind: [false, false, false, false], tricks: [], trick: [],
          tricks_won: [1, 2, 0, 0], scores: [40, 31], bags: [1, 2], rules: { target: 500 } },
      };
      const intents = { toggleSound() {}, toggleLastTrick() {}, openResults() {}, leave() {} };
      m.drawBar(el, spades, intents);
      return { seat, seat1, bar: el.textContent };
    }""")
    assert "1 trick" in texts["seat"] and "1 tricks" not in texts["seat"]
    assert "2 tricks" in texts["seat1"] and "1 pt" in texts["seat1"]
    assert "(1 bag)" in texts["bar"] and "(2 bags)" in texts["bar"]


# A Hearts game just over: bob first, ann second (and up 5.33), cat third, dan fourth; the
# server lists the rating changes in seat order, and a Hearts "loss" is any place but first.
HEARTS_OVER = """(m) => {
  const result = (points, scores) =>
    ({ points, taken: points, moon: null, pass_direction: "left", scores });
  const state = {
    ...m.initialState("t1"), seat: 0, gameId: "g1",
    info: m.heartsInfo(["ann", "bob", "cat", "dan"]),
    names: ["ann", "bob", "cat", "dan"],
    view: { game: "hearts", seat: 0, phase: "game_over", hand_no: 1, dealer: 0, to_act: null,
      tricks: [], trick: [], tricks_won: [0, 0, 0, 0], points_taken: [0, 0, 0, 0],
      scores: [50, 30, 80, 101], rules: { target: 100 },
      hand_results: [result([20, 10, 40, 56], [20, 10, 40, 56]),
                     result([30, 20, 40, 45], [50, 30, 80, 101])] },
    gameOver: { type: "game_over", scores: [50, 30, 80, 101], winners: [1], chances: null,
      ratings: [["ann", 5.33, "loss"], ["bob", 12, "win"], ["cat", -4, "loss"],
                ["dan", -13, "loss"]]
        .map(([player, delta, outcome]) => ({ player, delta, outcome, breakdown: [],
          before: { value: 1500 }, after: { value: 1500 + delta } })) },
  };
  const el = document.createElement("dialog");
  document.body.append(el);
  m.gameOverView(el, { dispatch() {}, playAgain() {}, leave() {} }).draw(state);
  const rows = (sel) => [...el.querySelectorAll(sel)].map((r) => r.textContent);
  const first = (sel, part) =>
    [...el.querySelectorAll(sel)].map((r) => r.querySelector(part).textContent);
  const out = { scores: rows(".final-scores tbody tr"), ratings: rows(".rating-change .rc-head"),
    scoreNames: first(".final-scores tbody tr", "th"),
    ratingNames: first(".rating-change .rc-head", "a"),
    summary: el.querySelector(".final-hand")?.textContent ?? null, text: el.textContent };
  el.close();
  el.remove();
  return out;
}"""


# -- item 11: the deciding hand's summary ------------------------------------------------------


async def test_the_game_over_dialog_shows_how_the_deciding_hand_scored(web_app, open_page):
    page = (await open_page(web_app)).page
    out = await draw(page, HEARTS_OVER)
    assert out["summary"] is not None, out["text"]
    assert "Hand 2" in out["summary"]
    # The hand's points and the totals it led to, seat by seat.
    assert "+30" in out["summary"] and "101" in out["summary"]


# -- item 12: places, not won and lost ---------------------------------------------------------


async def test_hearts_results_say_each_place_in_one_order(web_app, open_page):
    page = (await open_page(web_app)).page
    out = await draw(page, HEARTS_OVER)
    assert out["scoreNames"] == ["bob", "ann", "cat", "dan"]
    assert out["ratingNames"] == out["scoreNames"]
    ann = out["ratings"][1]
    assert "2nd" in ann and "lost" not in ann, ann
    assert "won" in out["ratings"][0]
    assert "3rd" in out["ratings"][2] and "4th" in out["ratings"][3]
    assert "2nd" in out["scores"][1] and "4th" in out["scores"][3]


# -- item 4: ranked eligibility, said before the click -----------------------------------------


async def test_a_ranked_room_says_why_a_newcomer_may_not_sit_and_the_profile_says_the_rule(
        web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await register_in_browser(p, web_app, "newt")
    await p.locator(".room-link", has_text="spades-zone").first.click()
    why = p.locator(".eligibility")
    await why.filter(has_text="finish 5 casual games first (0 so far)").wait_for()
    assert "two registered players" in await why.inner_text()
    # Nothing to click that the server would refuse: no table, no queue.
    assert await p.get_by_role("button", name="Create table").is_disabled()
    assert await p.get_by_role("button", name="Join the queue").is_disabled()
    audit = Audit(page)
    await audit("ranked-not-yet")
    assert await p.locator(".table-card").count() == 0
    # A casual room's table is anyone's.
    await p.locator(".room-link", has_text="hearts").first.click()
    await p.locator(".room-head h2", has_text="hearts").wait_for()
    assert await p.get_by_role("button", name="Create table").is_enabled()
    assert await p.locator(".eligibility").count() == 0

    # A whole casual game against robots, over a socket of the same account.
    async with TrickroomClient.connect(ws_url(web_app)) as newt:
        await newt.request({"type": "login", "name": "newt", "password": PASSWORD})
        table = (await newt.request({"type": "create_table", "room": "hearts",
                                     "rules": {"target": 10}}))["table"]["id"]
        await newt.request({"type": "sit", "table": table, "seat": 0})
        await newt.request({"type": "fill_robots", "table": table, "level": "random"})
        await asyncio.wait_for(play_until_over(newt, table, random.Random(5)), 120)
    await p.get_by_role("link", name="Profile").click()
    count = p.locator(".casual-count")
    await count.wait_for()
    text = await count.inner_text()
    assert "0 of 5" in text and "two registered players" in text and "robots" in text, text
    recent = p.locator(".recent-games li")
    await recent.first.wait_for()
    assert "did not count toward ranked play" in await recent.first.inner_text()
    # A Hearts game's outcome is its place (item 12), as its results say it.
    outcome = (await recent.first.locator(".outcome").inner_text()).strip()
    assert re.fullmatch(r"won|(tied )?[1-4](st|nd|rd|th)", outcome), outcome
    # Its review lists the final scores in that order, each with its place.
    await recent.first.get_by_role("link").click()
    head = p.locator(".review-head")
    await head.wait_for()
    final = await head.inner_text()
    assert len(re.findall(r"\((?:won|(?:tied )?[1-4](?:st|nd|rd|th))\)", final)) == 4, final
    await audit("profile-casual-count")
    audit.check()

    # Experienced now: the room offers its seats.
    await web_app.store.set_casual_games("newt", 5)
    await p.get_by_role("link", name="Lobby").click()
    await p.locator(".room-link", has_text="spades-zone").first.click()
    await p.locator(".room-head h2", has_text="spades-zone").wait_for()
    create = p.get_by_role("button", name="Create table")
    await p.wait_for_function("() => [...document.querySelectorAll('.room-actions button')]"
                              ".some((b) => b.textContent === 'Create table' && !b.disabled)")
    assert await create.is_enabled() and await p.locator(".eligibility").count() == 0


# -- item 14: room counts that follow the listing ---------------------------------------------


async def test_room_counts_follow_the_tables_listed(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    await guest_signs_in(p, "counter")
    spades = p.locator(".room-link", has=p.locator(".room-name", has_text="spades")).first
    await p.locator(".empty-note").wait_for()
    assert "0 tables" in await spades.inner_text()
    async with TrickroomClient.connect(ws_url(web_app)) as host:
        await host.request({"type": "guest", "name": "host"})
        await host.request({"type": "create_table", "room": "spades"})
        await p.locator(".table-card").wait_for()
        await spades.filter(has_text="1 table").wait_for(timeout=5000)
        # A table opened in another room is counted there when the player looks.
        await host.request({"type": "create_table", "room": "hearts"})
        hearts = p.locator(".room-link", has=p.locator(".room-name", has_text="hearts")).first
        await hearts.click()
        await p.locator(".table-card").wait_for()
        await hearts.filter(has_text="1 table").wait_for(timeout=5000)


async def test_on_a_phone_the_room_strip_shows_the_room_chosen(web_app, open_page):
    page = await open_page(web_app, viewport=PHONE)
    p = page.page
    await guest_signs_in(p, "phone")
    await p.evaluate("location.hash = '#/room/hearts-points'")
    current = p.locator('.room-link[aria-current="page"]')
    await current.filter(has_text="hearts-points").wait_for()
    await p.locator(".room-head h2", has_text="hearts-points").wait_for()
    await laid_out(p)
    box = await current.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


# -- item 5: back to a seat a robot plays ------------------------------------------------------


async def test_coming_back_after_closing_the_tab_leads_to_the_game_a_robot_plays(
        web_app, open_page):
    # A long game: the robots playing the seat do not finish it while the test looks.
    page, p = await robot_table(open_page, web_app, "hearts", {"Play to (points)": "1000"},
                                name="comer")
    await p.locator(".table-page[data-phase='pass'], .table-page[data-phase='play']").wait_for()
    table = p.url.rsplit("/", 1)[1]
    machine = web_app.lobby.tables[table].machine
    context = p.context
    await p.close()
    await wait_for(lambda: machine.info().seats[0].away)

    back = await context.new_page()
    await back.goto(base_url(web_app))
    # The lobby opens on the game's room, and says the game is on, from any room.
    await back.locator(".room-head h2", has_text="hearts").wait_for()
    banner = back.locator(".my-game")
    await banner.filter(has_text="Your game is on in room hearts").wait_for()
    await back.locator(".room-link", has_text="spades").first.click()
    await back.locator(".room-head h2", has_text="spades").wait_for()
    await banner.filter(has_text="Your game is on in room hearts").wait_for()
    audit = Audit(Page(back, f"{page.name}-back"))
    await audit("lobby-your-game-is-on")
    audit.check()
    await banner.get_by_role("button", name="Back to my seat").click()
    await back.locator(".table-page .seat.me").wait_for()
    await wait_for(lambda: not machine.info().seats[0].away)


# -- item 7: two tabs ---------------------------------------------------------------------------


async def _watching_our_seat_played_by_a_robot(web_app, open_page):
    """An older tab that watches its own seat, played by its robot since the newer tab that
    took the seat closed; returns the wrapped page, the older tab and the table's machine."""
    page, older = await robot_table(open_page, web_app, "hearts", {"Play to (points)": "1000"},
                                    name="twotabs")
    await older.locator(".table-page .seat.me").wait_for()
    table = older.url.rsplit("/", 1)[1]
    machine = web_app.lobby.tables[table].machine
    newer = await older.context.new_page()
    await newer.goto(f"{base_url(web_app)}#/table/{table}")
    await newer.locator(".table-page .seat.me").wait_for()
    # The older tab only watches now.
    await older.locator(".table-page[data-seat='watching']").wait_for()
    await newer.close()
    await wait_for(lambda: machine.info().seats[0].away)
    return page, older, machine


async def test_the_older_tab_offers_the_seat_back_once_the_newer_one_closes(web_app, open_page):
    page, older, machine = await _watching_our_seat_played_by_a_robot(web_app, open_page)
    take = older.get_by_role("button", name="Take my seat back")
    await take.wait_for()
    await page.shot("take-my-seat-back")
    await take.click()
    await older.locator(".table-page .seat.me").wait_for()
    await older.locator(".table-page[data-seat='0']").wait_for()
    await wait_for(lambda: not machine.info().seats[0].away)
    assert await take.count() == 0


# The robot playing our seat redraws it at each move, so a press may straddle a redraw.
WAIT_FOR_A_REDRAW = """(button) => new Promise((done) => {
  new MutationObserver((_, seen) => { seen.disconnect(); done(); })
    .observe(button.parentElement, { childList: true });
})"""


async def test_a_press_on_take_my_seat_back_holds_while_the_robot_moves(web_app, open_page):
    _, older, machine = await _watching_our_seat_played_by_a_robot(web_app, open_page)
    take = older.get_by_role("button", name="Take my seat back")
    await take.wait_for()
    box = await take.bounding_box()
    assert box is not None
    await older.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await older.mouse.down()
    # The seat is drawn again (a robot's move) between the press and the release.
    await take.evaluate(WAIT_FOR_A_REDRAW)
    await older.mouse.up()
    await older.locator(".table-page[data-seat='0']").wait_for()
    await wait_for(lambda: not machine.info().seats[0].away)


# -- item 13: registration in plain words, and names beyond ASCII ------------------------------


REFUSED_OR_IN = """() => document.querySelector('.me-name')
  || document.querySelector('form[aria-labelledby="register-h"] .error')?.textContent"""


async def test_registration_refusals_read_as_sentences_and_jose_registers(web_app, open_page):
    page = await open_page(web_app)
    p = page.page
    register = p.locator("form", has=p.get_by_role("heading", name="Register"))
    error = register.locator(".error")

    async def attempt(name: str, password: str = PASSWORD) -> str:
        await register.get_by_label("Name").fill(name)
        await register.get_by_label("Password (6 or more characters)").fill(password)
        await register.get_by_role("button", name="Register").click()
        # Asked of the page as it is at each look, not of the form's element: an accepted
        # registration takes the form away, maybe before a handle to it could be had.
        await p.wait_for_function(REFUSED_OR_IN)
        if await p.locator(".me-name").count():
            return ""
        return await error.inner_text()

    said = {name: await attempt(name) for name in ("Ann Lee", "admin", "p\u0430ypal")}
    for text in said.values():
        assert "Field" not in text and "field '" not in text and "ASCII" not in text, text
        assert text[0].isupper() and text.endswith("."), text
    assert "spaces" in said["Ann Lee"]
    assert "kept for the server" in said["admin"]
    assert "one alphabet" in said["p\u0430ypal"]
    await page.shot("register-refused")

    async with TrickroomClient.connect(ws_url(web_app)) as other:
        await other.request({"type": "register", "name": "Zoë", "password": PASSWORD})
    assert await attempt("ZOË") == "That name is taken: choose another."

    await attempt("José")
    await p.locator(".me-name", has_text="José").wait_for()

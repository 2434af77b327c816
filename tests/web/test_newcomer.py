"""What a newcomer tripped on (issue 33): counts said in words, the deciding hand's summary
at game over, Hearts places in the results, ranked eligibility said before the click, the
way back to a seat a robot plays, two tabs, registration refusals in plain words, and room
counts that follow the listing.

The views are pure functions of the table's state: where a state is hard to reach by
playing (a Hearts game ending with four different places), the test draws the page's own
view modules in the browser from a state it builds, the way the table page calls them.
"""

from __future__ import annotations

from typing import Any

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
      m.drawBar(el, spades, { toggleSound() {}, toggleLastTrick() {}, openResults() {}, leave() {} });
      return { seat, seat1, bar: el.textContent };
    }""")
    assert "1 trick" in texts["seat"] and "1 tricks" not in texts["seat"]
    assert "2 tricks" in texts["seat1"] and "1 pt" in texts["seat1"]
    assert "(1 bag)" in texts["bar"] and "(2 bags)" in texts["bar"]


# A Hearts game just over: bob first, ann second (and up 5.33), cat third, dan fourth; the
# server lists the rating changes in seat order, and a Hearts "loss" is any place but first.
HEARTS_OVER = """(m) => {
  const result = (points, scores) => ({ points, taken: points, moon: null, pass_direction: "left", scores });
  const state = {
    ...m.initialState("t1"), seat: 0, gameId: "g1", info: m.heartsInfo(["ann", "bob", "cat", "dan"]),
    names: ["ann", "bob", "cat", "dan"],
    view: { game: "hearts", seat: 0, phase: "game_over", hand_no: 1, dealer: 0, to_act: null,
      tricks: [], trick: [], tricks_won: [0, 0, 0, 0], points_taken: [0, 0, 0, 0],
      scores: [50, 30, 80, 101], rules: { target: 100 },
      hand_results: [result([20, 10, 40, 56], [20, 10, 40, 56]), result([30, 20, 40, 45], [50, 30, 80, 101])] },
    gameOver: { type: "game_over", scores: [50, 30, 80, 101], winners: [1], chances: null, ratings: [
      { player: "ann", before: { value: 1500 }, after: { value: 1505.33 }, delta: 5.33, outcome: "loss", breakdown: [] },
      { player: "bob", before: { value: 1500 }, after: { value: 1512 }, delta: 12, outcome: "win", breakdown: [] },
      { player: "cat", before: { value: 1500 }, after: { value: 1496 }, delta: -4, outcome: "loss", breakdown: [] },
      { player: "dan", before: { value: 1500 }, after: { value: 1487 }, delta: -13, outcome: "loss", breakdown: [] },
    ] },
  };
  const el = document.createElement("dialog");
  document.body.append(el);
  m.gameOverView(el, { dispatch() {}, playAgain() {}, leave() {} }).draw(state);
  const rows = (sel) => [...el.querySelectorAll(sel)].map((r) => r.textContent);
  const first = (sel, part) => [...el.querySelectorAll(sel)].map((r) => r.querySelector(part).textContent);
  const out = { scores: rows(".final-scores tbody tr"), ratings: rows(".rating-change .rc-head"),
    scoreNames: first(".final-scores tbody tr", "th"), ratingNames: first(".rating-change .rc-head", "a"),
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

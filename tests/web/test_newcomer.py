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

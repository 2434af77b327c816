// "The field" of a duplicate room's table (issue 39): after a hand, once every other
// table of the board set has played the same deal, how the same cards went there beside
// how they went here (the board_deal events, newest first), and when the set is
// complete each player's margin against the field (board_result). The server sends a
// deal's field only once every table has played it, so nothing here is news to anyone.

import { h, fill } from "./dom.js";
import { t, signed } from "./i18n.js";
import { SEAT_NAMES } from "./cards.js";
import { count } from "./counts.js";

/** One deal: for each of our seats (or sides), what its cards scored here and elsewhere. */
function dealView(state, ev) {
  const spades = state.info?.game === "spades";
  const seats = spades ? [0, 1] : [0, 1, 2, 3];
  const who = (names, seat) => spades ? t("side.names", { a: names[seat], b: names[seat + 2] }) : names[seat];
  // What the cards made at one table: a Spades side's points and tricks (both partners').
  const made = (play, seat) => t("field.scored", { who: who(play.players, seat), points: signed(play.points[seat]),
    tricks: count(spades ? play.tricks[seat] + play.tricks[seat + 2] : play.tricks[seat], "trick") });
  return h("section", { class: "field-deal", "aria-label": t("field.hand", { n: ev.deal + 1 }) },
    h("h3", {}, t("field.hand", { n: ev.deal + 1 })),
    h("table", { class: "field-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("field.cards")),
        h("th", { scope: "col" }, t("field.here")),
        h("th", { scope: "col" }, t("field.elsewhere")),
        h("th", { scope: "col" }, t("field.margin")))),
      h("tbody", {}, seats.map((seat) => h("tr", {},
        h("th", { scope: "row" }, spades ? (seat === 0 ? t("side.ns") : t("side.ew")) : SEAT_NAMES[seat]),
        h("td", {}, made(ev.here, seat)),
        h("td", {}, ev.field.map((there) => made(there, seat)).join(" · ")),
        h("td", { class: `num ${ev.margins[seat] < 0 ? "down" : "up"}` }, signed(ev.margins[seat])))))));
}

/** The set's result: each player's margin over its deals. */
function resultView(ev) {
  return h("section", { class: "field-result", "aria-label": t("field.result") },
    h("h3", {}, t("field.result")),
    h("ul", {}, ev.players.map((p) => h("li", {},
      t("field.player_total", { name: p.name, total: signed(p.total), deals: count(p.deals.length, "deal") })))),
    ev.ratings?.length ? h("ul", {}, ev.ratings.map((r) => h("li", {},
      t("field.rating", { name: r.player, delta: signed(Math.round(r.delta * 10) / 10) })))) : null);
}

/** Draw the field into `el`: hidden at a table of any other room. */
export function drawField(el, state) {
  const duplicate = !!state.info?.duplicate;
  el.hidden = !duplicate;
  if (!duplicate) return;
  const tables = state.info?.board?.tables ?? (state.info?.game === "spades" ? 2 : 4);
  fill(el,
    h("h2", {}, t("field.title")),
    state.boardResult ? resultView(state.boardResult) : null,
    state.field.length ? state.field.map((ev) => dealView(state, ev))
      : h("p", { class: "hint" }, t("field.waiting", { tables })));
}

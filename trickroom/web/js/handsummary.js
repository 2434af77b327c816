// The end-of-hand summary: how the hand just played scored, side by side or player by
// player, as the engine scored it (the hand_scored event). It waits for the player:
// it stays up until they press the button, even when the next hand has been dealt.

import { h } from "./dom.js";
import { count } from "./counts.js";
import { t, num, signed } from "./i18n.js";

const plain = (n) => num(n).replace("-", "−");

function spadesRows(r, names) {
  return r.sides.map((s) => {
    const seats = [s.side, s.side + 2];
    const nils = seats.filter((seat) => r.bids?.[seat] === 0).map((seat) =>
      t(r.blind?.[seat] ? "sum.blind_nil" : "sum.nil", { name: names[seat], made: r.tricks_won?.[seat] === 0 ? "yes" : "no" }));
    const terms = [
      s.made === null ? null : t(s.made ? "sum.bid_took" : "sum.bid_took_set", { bid: s.contract, took: s.tricks }),
      ...nils,
      s.bags ? count(s.bags, "bag") : null,
      s.bag_penalty ? t("sum.bag_penalty", { points: signed(s.bag_penalty) }) : null,
    ].filter(Boolean);
    const side = t("side.names", { a: names[seats[0]], b: names[seats[1]] });
    return h("tr", {},
      h("th", { scope: "row", title: side }, side),
      h("td", { class: "terms" }, terms.join(" · ")),
      h("td", { class: `num ${s.points < 0 ? "down" : "up"}` }, signed(s.points)),
      h("td", { class: "num" }, plain(s.score)));
  });
}

function heartsRows(r, names, scores) {
  return [0, 1, 2, 3].map((seat) => h("tr", {},
    h("th", { scope: "row", title: names[seat] }, names[seat]),
    h("td", { class: "terms" }, r.moon === seat ? t("sum.shot_moon") : t("sum.took", { n: r.taken?.[seat] ?? r.points[seat] })),
    h("td", { class: `num ${r.points[seat] > 0 ? "down" : "up"}` }, signed(r.points[seat])),
    h("td", { class: "num" }, plain(scores[seat]))));
}

/**
 * The summary panel for hand `number` (1-based). `result` is the hand's entry in the
 * view's hand_results; `scores` the running totals after it (a snapshot's results carry
 * none); `next` names what the button leads to ("the next hand"), or is null when our
 * turn's dialog shows below the summary (the button then only closes it).
 */
export function handSummary({ game, number, result, scores, names, onContinue, next }) {
  // The heading and its button stay in view when the table must scroll (a short screen,
  // or our turn's dialog below the summary).
  return h("section", { class: "prompt-panel hand-summary", role: "dialog", "aria-labelledby": "summary-h" },
    h("div", { class: "summary-head" }, h("h2", { id: "summary-h" }, t("sum.title", { n: number })),
      h("button", { type: "button", class: "primary summary-go", onclick: onContinue },
        next ? t("sum.continue", { next }) : t("sum.close"))),
    h("div", { class: "summary-body" }, summaryTable({ game, result, scores, names })));
}

/** The summary's table alone: how one hand scored, side by side or player by player (the
 *  game-over dialog shows the deciding hand's with the final scores). */
export function summaryTable({ game, result, scores, names }) {
  const rows = game === "spades" ? spadesRows(result, names) : heartsRows(result, names, result.scores || scores);
  return h("table", { class: "summary-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, game === "spades" ? t("sum.side") : t("sum.player")),
      h("th", { scope: "col" }, t("sum.this_hand")),
      h("th", { scope: "col", class: "num" }, t("sum.points")),
      h("th", { scope: "col", class: "num" }, t("sum.score")))),
    h("tbody", {}, rows));
}

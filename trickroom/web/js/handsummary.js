// The end-of-hand summary: how the hand just played scored, side by side or player by
// player, as the engine scored it (the hand_scored event). It waits for the player:
// it stays up until they press the button, even when the next hand has been dealt.

import { h } from "./dom.js";
import { count } from "./counts.js";

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
const plain = (n) => (n < 0 ? `−${-n}` : String(n));

function spadesRows(r, names) {
  return r.sides.map((s) => {
    const seats = [s.side, s.side + 2];
    const nils = seats.filter((seat) => r.bids?.[seat] === 0).map((seat) =>
      `${names[seat]} ${r.blind?.[seat] ? "blind nil" : "nil"} ${r.tricks_won?.[seat] === 0 ? "made" : "set"}`);
    const terms = [
      s.made === null ? null : `bid ${s.contract}, took ${s.tricks}${s.made ? "" : " (set)"}`,
      ...nils,
      s.bags ? count(s.bags, "bag") : null,
      s.bag_penalty ? `bag penalty ${signed(s.bag_penalty)}` : null,
    ].filter(Boolean);
    const side = `${names[seats[0]]} & ${names[seats[1]]}`;
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
    h("td", { class: "terms" }, r.moon === seat ? "shot the moon" : `took ${r.taken?.[seat] ?? r.points[seat]}`),
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
    h("div", { class: "summary-head" }, h("h2", { id: "summary-h" }, `Hand ${number} scored`),
      h("button", { type: "button", class: "primary summary-go", onclick: onContinue },
        next ? `Continue to ${next}` : "Close")),
    h("div", { class: "summary-body" }, summaryTable({ game, result, scores, names })));
}

/** The summary's table alone: how one hand scored, side by side or player by player (the
 *  game-over dialog shows the deciding hand's with the final scores). */
export function summaryTable({ game, result, scores, names }) {
  const rows = game === "spades" ? spadesRows(result, names) : heartsRows(result, names, result.scores || scores);
  return h("table", { class: "summary-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, game === "spades" ? "Side" : "Player"),
      h("th", { scope: "col" }, "This hand"),
      h("th", { scope: "col", class: "num" }, "Points"),
      h("th", { scope: "col", class: "num" }, "Score"))),
    h("tbody", {}, rows));
}

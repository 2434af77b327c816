// The game-over dialog, drawn from the table's state: who won, the final scores, in
// ranked rooms the chances the game started with and each rating change, and the way
// on (play again, the review, the table, the lobby). Closed, it stays closed until the
// player asks for the results again.

import { t, num, signed, list } from "./i18n.js";
import { h, fill } from "./dom.js";
import { sideName, heartsPlaces, ratingList } from "./scoresheet.js";
import { summaryTable } from "./handsummary.js";
import { seatNames } from "./tableselectors.js";
import { chancesText } from "./tablebar.js";

/**
 * The dialog `el`; `intents`: dispatch (close_results), playAgain, leave.
 */
export function gameOverView(el, intents) {
  // Escape closes the dialog (the browser's own cancel): it must stay closed, like the button.
  el.addEventListener("cancel", () => intents.dispatch({ type: "close_results" }));

  function scoreRows(state, over, names) {
    const winners = over.winners || [];
    if ((state.view?.game || state.info?.game) === "spades") {
      return [0, 1].map((side) => h("tr", { class: winners.includes(side) ? "won" : null },
        h("th", { scope: "row" }, sideName(names, side)), h("td", { class: "num" }, num(over.scores[side])),
        h("td", {}, winners.includes(side) ? t("over.winners") : "")));
    }
    const places = heartsPlaces(over.scores);
    return [0, 1, 2, 3].sort((a, b) => over.scores[a] - over.scores[b]).map((seat) =>
      h("tr", { class: winners.includes(seat) ? "won" : null }, h("th", { scope: "row" }, names[seat]),
        h("td", { class: "num" }, num(over.scores[seat])), h("td", {}, places[seat])));
  }

  /** The hand that decided the game, scored as every other hand's summary shows it: the
   *  dialog comes as that hand ends, so it shows its summary too. */
  function lastHand(state, names) {
    const v = state.view;
    const n = v?.hand_results?.length || 0;
    if (!n) return null;
    return h("section", { class: "final-hand", "aria-labelledby": "final-hand-h" },
      h("h3", { id: "final-hand-h" }, t("over.last_hand", { n })),
      summaryTable({ game: v.game, result: v.hand_results[n - 1], scores: v.scores, names }));
  }

  /** A duplicate match's result: each player against the field, deal by deal. */
  function duplicateResult(state) {
    const d = state.duplicate;
    if (!d) return null;
    const points = (x) => signed(x);
    return h("section", { class: "duplicate", "aria-labelledby": "duplicate-h" },
      h("h3", { id: "duplicate-h" }, t("over.match_title")),
      h("p", { class: "hint" }, t("over.match_hint", { deals: d.deals, games: d.games })),
      h("table", { class: "final-scores" }, h("caption", {}, t("over.against_field")),
        h("tbody", {}, [...d.players].sort((x, y) => y.total - x.total).map((p) =>
          h("tr", {}, h("th", { scope: "row" }, p.name), h("td", { class: "num" }, points(p.total)))))));
  }

  /** The seat a rating change's player finished in (its name there, or the last seen). */
  function seatOf(state, player) {
    return [0, 1, 2, 3].find((s) => state.info?.seats?.[s]?.name === player || state.names[s] === player) ?? -1;
  }

  let drawn = null; // what the dialog was last drawn from (see draw)

  function draw(state) {
    const over = state.gameOver;
    if (!over || state.resultsClosed) { drawn = null; if (el.open) el.close(); return; }
    const names = seatNames(state);
    // The table's state changes after the end too (players leave, a new game is waited
    // for): the dialog is drawn again only when what it shows has changed, so a breakdown
    // the player has opened stays open and a button stays under their finger.
    const key = JSON.stringify([over, names, state.seat, state.gameId, state.info?.sandbox,
      state.duplicate, state.view?.hand_results?.length, state.view?.game || state.info?.game,
      intents.roomRated?.() ?? null]);
    if (key === drawn && el.open) return;
    drawn = key;
    const winners = over.winners || [];
    const youWon = state.seat != null && winners.includes(state.seat);
    const winnerNames = winners.map((s) => (s === state.seat ? t("over.you") : names[s]));
    const chances = chancesText(state, over.chances);
    const sandbox = state.info?.sandbox;
    const inMatch = sandbox?.duplicate && sandbox.match_played > 0;
    fill(el,
      h("h2", { id: "over-h" }, t("over.title")),
      over.abandoned ? h("p", {}, t("over.abandoned")) : null,
      h("p", { class: "over-headline" }, youWon ? t("over.you_won") : winners.length ? t("over.won", { names: list(winnerNames) })
        : over.abandoned ? t("over.no_winner") : t("over.draw")),
      h("table", { class: "final-scores" }, h("caption", {}, t("over.final_scores")), h("tbody", {}, scoreRows(state, over, names))),
      lastHand(state, names),
      duplicateResult(state),
      over.ratings?.length || chances ? h("section", { class: "ratings" }, h("h3", {}, t("over.rating_changes")),
        chances ? h("p", { class: "chances" }, h("span", { class: "hint" }, t("over.chances_before")), " ", chances) : null,
        over.ratings?.length ? h("ul", {}, ratingList(over.ratings,
          { game: state.view?.game || state.info?.game, scores: over.scores, seatOf: (p) => seatOf(state, p) })) : null) : null,
      h("div", { class: "dialog-actions" },
        state.seat != null ? h("button", { type: "button", class: "primary", onclick: () => intents.playAgain(false) },
          inMatch ? t("over.next_match_game", { n: sandbox.match_played + 1, of: sandbox.match_games }) : t("over.play_again")) : null,
        state.seat != null && !intents.roomRated?.() && !sandbox?.duplicate ? h("button", { type: "button", onclick: () => intents.playAgain(true),
          title: t("over.new_partners_title") }, t("over.new_partners")) : null,
        // A sandbox's games are reviewed once its table closes (its next games deal the same cards).
        state.gameId && !sandbox ? h("a", { class: "button", href: `#/review/${encodeURIComponent(state.gameId)}` }, t("over.review")) : null,
        h("button", { type: "button", onclick: () => intents.dispatch({ type: "close_results" }) }, t("over.look")),
        h("button", { type: "button", onclick: intents.leave }, t("table.back_to_lobby"))));
    if (!el.open) el.showModal();
  }

  return { draw };
}

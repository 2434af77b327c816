// Questions the table page asks of a table's state (tablestate.js): whose turn it is,
// which cards may be pressed and why not, what to show. Pure functions of the state
// (and of the time, where a thing shows for a while); the views and the reducer share them.

import { t } from "./i18n.js";
import { SEAT_NAMES, cardName } from "./cards.js";

export const ACTING = ["bid", "play", "moon"]; // the phases in which one seat acts at a time

/** Whether the game is waiting for our seat. */
export function ourTurn(state) {
  const v = state.view;
  if (!v || state.seat == null || state.paused) return false;
  if (v.phase === "pass") return !v.pass_chosen?.[state.seat];
  return v.to_act === state.seat && ACTING.includes(v.phase);
}

/** Whether a robot plays this seat now: a robot's, or an away player's. */
export function robotPlays(state, seat) {
  const info = state.info?.seats?.[seat];
  return info?.kind === "robot" || !!info?.away;
}

/** The name in a seat: its player's, the last player's who sat there, or the seat's. */
export function seatName(state, seat) {
  return state.info?.seats?.[seat]?.name || state.names[seat] || SEAT_NAMES[seat];
}

/** Every seat's name, the seat's initial added where two share one (robots may). */
export function seatNames(state) {
  const raw = [0, 1, 2, 3].map((s) => seatName(state, s));
  return raw.map((n, s) => (raw.filter((x) => x === n).length > 1 ? t("seat.name_initial", { name: n, initial: SEAT_NAMES[s][0] }) : n));
}

/** The cards we may press now (a pass may take any card), or null when it is not our turn. */
export function legalCards(state) {
  const p = state.prompt;
  if (!p || !ourTurn(state)) return null;
  if (p.phase === "play") return new Set(p.legal.filter((a) => a.type === "play").map((a) => a.card));
  if (p.phase === "pass") return new Set(state.view.hand);
  return new Set();
}

/** Why a card may not be played: the server's reason from the prompt (the rules are the
 *  engine's, not this client's); otherwise it is simply not our move. */
export function whyNot(state, card) {
  const p = state.prompt;
  if (!p || !ourTurn(state)) return t("why.not_your_turn");
  if (p.phase !== "play") return t("why.dialog_first");
  return p.illegal?.find((x) => x.card === card)?.reason || t("why.not_now", { card: cardName(card) });
}

/** The hand just scored has a summary waiting: the player has not closed it, and the
 *  next hand has not gone past its deal. */
export function summaryDue(state) {
  const v = state.view;
  const n = v?.hand_results?.length || 0;
  if (!n || n === state.summaryClosed || state.gameOver) return false;
  return v.phase === "hand_over" || (v.hand_no === n && !v.tricks.length && !v.trick.length);
}

/** The trick just won is still on the table (for `lingerMs` after it was won). */
export function trickShowing(state, now, lingerMs) {
  return !!state.justWon && !state.view?.trick.length && now - state.justWon.at < lingerMs;
}

/** The vote to show: the newest one still open, or closed less than `keepMs` ago. */
export function shownVote(state, now, keepMs = 4000) {
  return state.votes.filter((vote) => !vote.outcome || now - vote.closedAt < keepMs).at(-1) || null;
}

/** Who won a finished game, from its scores (a snapshot of a game over carries no event). */
export function winnersOf(view) {
  if (view.game === "spades") {
    const side = view.scores[0] > view.scores[1] ? 0 : 1;
    return [side, side + 2];
  }
  const low = Math.min(...view.scores);
  return [0, 1, 2, 3].filter((s) => view.scores[s] === low);
}

/** Where a seat sits on screen, 0..3 from the bottom clockwise: our seat at the bottom,
 *  and a watcher sits South's way round (North at the top). */
export function placeOf(state, seat) {
  return (seat - (state.seat ?? 2) + 4) % 4;
}

/** The seat drawn at place `place` (the inverse of placeOf). */
export function seatAt(state, place) {
  return ((state.seat ?? 2) + place) % 4;
}

/** A seat as the table speaks of it: "You" for ours. */
export function who(state, seat) {
  return seat === state.seat ? t("seat.you") : seatName(state, seat);
}

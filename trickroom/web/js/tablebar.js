// The lines above the felt, drawn from the table's state: the bar (the table, the
// scores, each side's chances, the buttons), whose turn it is with its clock, and in
// Spades each side's contract against the tricks it has.

import { h, fill, seconds } from "./dom.js";
import { ourTurn, robotPlays, seatName } from "./tableselectors.js";
import { soundOn } from "./sound.js";
import { count } from "./counts.js";

/** A sandbox table (fixed deals): what it is, and where a duplicate match stands. */
function sandboxText(sandbox) {
  if (!sandbox) return null;
  if (!sandbox.duplicate) return "sandbox (fixed deals)";
  return `duplicate match, ${sandbox.match_played} of ${sandbox.match_games} games played`;
}

/** Ranked rooms: each side's chance of winning, as the room's rating system put it
 *  when the game started (the server sends it; nothing is computed here). */
export function chancesText(state, chances) {
  if (!chances?.length) return null;
  const pct = (p) => `${Math.round(p * 100)}%`;
  if (chances.length === 2) {
    return [0, 1].map((side) => `${side === 0 ? "North–South" : "East–West"} ${pct(chances[side])}`).join(" · ");
  }
  return chances.map((p, seat) => `${seat === state.seat ? "you" : seatName(state, seat)} ${pct(p)}`).join(" · ");
}

function chancesLine(state) {
  const text = chancesText(state, state.chances);
  if (!text) return null;
  const mySide = state.seat == null ? null : state.chances.length === 2 ? state.seat % 2 : state.seat;
  return h("p", { class: "chances" }, h("span", { class: "hint" }, "Chances: "), text,
    mySide != null ? h("span", { class: "hint" }, ` (yours ${Math.round(state.chances[mySide] * 100)}%)`) : null);
}

/**
 * The bar: `intents` holds what its buttons do (toggleSound, toggleLastTrick,
 * openResults, leave).
 */
export function drawBar(el, state, intents) {
  const info = state.info;
  const v = state.view;
  const rules = v?.rules || {};
  let scores = null;
  if (v && v.game === "spades" && v.hand_no >= 0) {
    scores = [0, 1].map((side) => h("span", { class: "team-score" },
      h("span", { class: "hint" }, side === 0 ? "N+S " : "E+W "), h("b", {}, String(v.scores[side])),
      h("span", { class: "hint" }, ` (${count(v.bags?.[side] ?? 0, "bag")})`)));
  }
  fill(el,
    h("div", { class: "bar-title" },
      h("h1", {}, `${info?.game === "hearts" ? "Hearts" : "Spades"} · table ${state.table}`),
      h("span", { class: "hint" }, [info?.room, sandboxText(info?.sandbox), rules.target ? `to ${rules.target}` : null,
        v?.hand_no >= 0 ? `hand ${v.hand_no + 1}` : null,
        v?.game === "hearts" && v.hand_no >= 0 ? (v.pass_direction === "hold" ? "no pass" : `pass ${v.pass_direction}`) : null,
        state.seat == null ? "watching" : null].filter(Boolean).join(" · "))),
    scores ? h("div", { class: "bar-scores" }, scores) : null,
    chancesLine(state),
    h("div", { class: "bar-actions" },
      h("button", { type: "button", class: "sound-toggle", "aria-pressed": String(soundOn()),
        title: "Table sounds (remembered in this browser)", onclick: intents.toggleSound },
      soundOn() ? "Sound on" : "Sound off"),
      h("button", { type: "button", "aria-pressed": String(state.showLastTrick), disabled: state.lastTrick ? null : true,
        onclick: intents.toggleLastTrick }, "Last trick"),
      state.gameOver && state.resultsClosed ? h("button", { type: "button", onclick: intents.openResults }, "Results") : null,
      h("button", { type: "button", onclick: intents.leave }, state.seat == null ? "Back to lobby" : "Leave table")));
}

/** Whose turn it is, in words. */
export function turnText(state) {
  const v = state.view;
  const info = state.info;
  if (!info) return "Loading the table…";
  if (state.paused && v?.phase !== "game_over") return `Paused: ${state.paused}.`;
  if (info.state === "waiting" || !v) {
    const empty = info.seats.filter((s) => s.kind === "empty").length;
    return `Waiting for players: ${count(empty, "seat")} free. The game starts when all four are filled.`;
  }
  if (v.phase === "game_over") return "Game over.";
  if (v.phase === "hand_over") return "Hand over; the next deal is coming.";
  if (v.phase === "pass") {
    const waiting = v.pass_chosen.filter((x) => !x).length;
    if (ourTurn(state)) return `Your turn: choose ${count(state.prompt?.pass_count || v.rules.pass_count || 3, "card")} to pass ${v.pass_direction}.`;
    return `Passing ${v.pass_direction}: waiting for ${count(waiting, "player")}.`;
  }
  if (v.to_act == null) return v.game === "hearts" ? "The 2♣ leads." : "";
  const verb = { bid: "bid", play: "play", moon: "choose how the moon scores" }[v.phase] || "act";
  if (v.to_act === state.seat) return `Your turn to ${verb}.`;
  return `${seatName(state, v.to_act)} to ${verb}.`;
}

/** The turn line, with the clock of whoever is to act (not during the pass: all choose;
 *  not for a robot, which moves in a moment). */
export function drawStatus(el, state, now) {
  const cd = state.countdown;
  const left = cd?.deadline && !robotPlays(state, cd.seat) ? (cd.deadline - now) / 1000 : null;
  fill(el, turnText(state),
    left != null && state.view?.phase !== "pass" ? h("span", { class: `countdown ${left < 8 ? "low" : ""}` }, ` ${seconds(left)}`) : null);
}

/** Spades: each side's contract (its non-nil bids together) against the tricks it has,
 *  so nobody adds up seats; shown once all four have bid. */
export function drawContract(el, state) {
  const v = state.view;
  if (!v || v.game !== "spades" || v.phase !== "play" || v.bids?.some((b) => b == null)) {
    fill(el);
    el.hidden = true;
    return;
  }
  el.hidden = false;
  fill(el, [0, 1].map((side) => {
    const seats = [side, side + 2];
    const bid = seats.reduce((n, s) => n + (v.bids[s] || 0), 0);
    const have = seats.reduce((n, s) => n + v.tricks_won[s], 0);
    const nils = seats.filter((s) => v.bids[s] === 0).map((s) => `${seatName(state, s)} nil`);
    const bags = v.bags?.[side] ?? 0;
    return h("span", { class: "contract" }, h("span", { class: "side-name" }, side === 0 ? "North–South" : "East–West"),
      ` bid ${bid}, have ${have}`,
      nils.length ? ` (${nils.join(", ")})` : "", `, ${count(bags, "bag")}`, side === 0 ? " · " : "");
  }));
}

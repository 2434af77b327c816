// The lines above the felt, drawn from the table's state: the bar (the table, the
// scores, each side's chances, the buttons), whose turn it is with its clock, and in
// Spades each side's contract against the tricks it has.

import { t, num } from "./i18n.js";
import { gameName } from "./games.js";
import { h, fill, seconds } from "./dom.js";
import { ourTurn, robotPlays, seatName } from "./tableselectors.js";
import { soundOn } from "./sound.js";
import { count } from "./counts.js";

/** A sandbox table (fixed deals): what it is, and where a duplicate match stands. */
function sandboxText(sandbox) {
  if (!sandbox) return null;
  if (!sandbox.duplicate) return t("bar.sandbox");
  return t("bar.duplicate", { n: sandbox.match_played, of: sandbox.match_games });
}

/** A duplicate room's table: the same deals at the set's other tables. */
function duplicateText(info) {
  if (!info?.duplicate) return null;
  return t("bar.duplicate_room", { tables: info.board?.tables ?? (info.game === "spades" ? 2 : 4) });
}

/** Ranked rooms: each side's chance of winning, as the room's rating system put it
 *  when the game started (the server sends it; nothing is computed here). */
export function chancesText(state, chances) {
  if (!chances?.length) return null;
  const pct = (p) => num(Math.round(p * 100) / 100, { style: "percent" });
  if (chances.length === 2) {
    return [0, 1].map((side) => t("bar.chance", { who: side === 0 ? t("side.ns") : t("side.ew"), pct: pct(chances[side]) })).join(" · ");
  }
  return chances.map((p, seat) => t("bar.chance", { who: seat === state.seat ? t("over.you") : seatName(state, seat), pct: pct(p) })).join(" · ");
}

function chancesLine(state) {
  const text = chancesText(state, state.chances);
  if (!text) return null;
  const mySide = state.seat == null ? null : state.chances.length === 2 ? state.seat % 2 : state.seat;
  return h("p", { class: "chances" }, h("span", { class: "hint" }, t("bar.chances")), " ", text,
    mySide != null ? [" ", h("span", { class: "hint" }, t("bar.yours", { pct: num(Math.round(state.chances[mySide] * 100) / 100, { style: "percent" }) }))] : null);
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
      h("span", { class: "hint" }, side === 0 ? t("side.ns_short") : t("side.ew_short")), " ", h("b", {}, num(v.scores[side])),
      " ", h("span", { class: "hint" }, t("bar.paren", { text: count(v.bags?.[side] ?? 0, "bag") }))));
  }
  fill(el,
    h("div", { class: "bar-title" },
      h("h1", {}, t("bar.title", { game: gameName(info?.game), table: state.table })),
      h("span", { class: "hint" }, [info?.room, sandboxText(info?.sandbox), duplicateText(info), rules.target ? t("bar.to", { target: rules.target }) : null,
        v?.hand_no >= 0 ? t("bar.hand", { n: v.hand_no + 1 }) : null,
        v?.game === "hearts" && v.hand_no >= 0 ? (v.pass_direction === "hold" ? t("pass.none") : t("pass.short", { direction: v.pass_direction })) : null,
        state.seat == null ? t("bar.watching") : null].filter(Boolean).join(" · "))),
    scores ? h("div", { class: "bar-scores" }, scores) : null,
    chancesLine(state),
    h("div", { class: "bar-actions" },
      h("button", { type: "button", class: "sound-toggle", "aria-pressed": String(soundOn()),
        title: t("bar.sound_title"), onclick: intents.toggleSound },
      soundOn() ? t("bar.sound_on") : t("bar.sound_off")),
      h("button", { type: "button", "aria-pressed": String(state.showLastTrick), disabled: state.lastTrick ? null : true,
        onclick: intents.toggleLastTrick }, t("bar.last_trick")),
      state.gameOver && state.resultsClosed ? h("button", { type: "button", onclick: intents.openResults }, t("bar.results")) : null,
      h("button", { type: "button", onclick: intents.leave }, state.seat == null ? t("table.back_to_lobby") : t("bar.leave"))));
}

/** Whose turn it is, in words. */
export function turnText(state) {
  const v = state.view;
  const info = state.info;
  if (!info) return t("turn.loading");
  if (state.paused && v?.phase !== "game_over") return t("turn.paused", { why: state.paused });
  if (info.state === "waiting" || !v) {
    const empty = info.seats.filter((s) => s.kind === "empty").length;
    return t("turn.waiting", { seats: count(empty, "seat") });
  }
  if (v.phase === "game_over") return t("turn.game_over");
  if (v.phase === "hand_over") return t("turn.hand_over");
  if (v.phase === "pass") {
    const waiting = v.pass_chosen.filter((x) => !x).length;
    if (ourTurn(state)) return t("turn.pass_yours", { cards: count(state.prompt?.pass_count || v.rules.pass_count || 3, "card"), direction: v.pass_direction });
    return t("turn.passing", { direction: v.pass_direction, players: count(waiting, "player") });
  }
  if (v.to_act == null) return v.game === "hearts" ? t("turn.two_leads") : "";
  const phase = ["bid", "play", "moon"].includes(v.phase) ? v.phase : "act";
  if (v.to_act === state.seat) return t("turn.yours", { phase });
  return t("turn.theirs", { name: seatName(state, v.to_act), phase });
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
    const nils = seats.filter((s) => v.bids[s] === 0).map((s) => t("contract.nil", { name: seatName(state, s) }));
    const bags = v.bags?.[side] ?? 0;
    return h("span", { class: "contract" }, h("span", { class: "side-name" }, side === 0 ? t("side.ns") : t("side.ew")),
      " ", nils.length ? t("contract.bid_have_nils", { bid, have, nils: nils.join(", "), bags: count(bags, "bag") })
        : t("contract.bid_have", { bid, have, bags: count(bags, "bag") }), side === 0 ? " · " : "");
  }));
}

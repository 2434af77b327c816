// Messages as the server sends them (docs/protocol.md), for the reducer's tests: a
// table's info, a seat's view, snapshots, events with their turn, skips and prompts.

import { initialState, reduce } from "../../../trickroom/web/js/tablestate.js";

export const TABLE = "Xy12ab";

export function info({ game = "spades", state = "playing", names = ["guest-ann", "Bot Hugo", "Bot Holly", "Bot Hank"] } = {}) {
  return {
    id: TABLE, room: game, game, state, seating: "fixed_seating", watchers: 0,
    seats: names.map((name, seat) => ({ seat, name, kind: name ? (name.startsWith("Bot ") ? "robot" : "human") : "empty", away: false })),
  };
}

/** A Spades view of seat 0 in the play of hand 0, West having led the queen of hearts. */
export function spadesView(fields = {}) {
  return {
    game: "spades", seat: 0, phase: "play", rules: { target: 500, mercy: 200 }, hand_no: 0, dealer: 2,
    to_act: 0, awaiting: [0], hand: ["KS", "2C", "TH", "9H", "5H", "3C"], hand_sizes: [6, 6, 6, 5], leader: 3,
    trick: [{ seat: 3, card: "QH" }], tricks: [], tricks_won: [4, 1, 1, 1], scores: [0, 0], hand_results: [],
    legal: [], illegal: [], bids: [4, 3, 4, 2], blind: [false, false, false, false], bags: [0, 0],
    spades_broken: false, sees_hand: true, ...fields,
  };
}

/** A Hearts view of seat 0 choosing its pass left at the start of hand 0. */
export function heartsView(fields = {}) {
  return {
    game: "hearts", seat: 0, phase: "pass", rules: { target: 100, pass_count: 3 }, hand_no: 0, dealer: 3,
    to_act: 0, awaiting: [0, 1, 2, 3], hand: ["2C", "AH", "KH", "QS", "9D", "4S"], hand_sizes: [13, 13, 13, 13],
    leader: null, trick: [], tricks: [], tricks_won: [0, 0, 0, 0], scores: [0, 0, 0, 0], hand_results: [],
    legal: [], illegal: [], pass_direction: "left", passed: [], received: [],
    pass_chosen: [false, false, false, false], points_taken: [0, 0, 0, 0], ...fields,
  };
}

export const snapshot = (seq, view, tableInfo = info({ game: view?.game })) =>
  ({ type: "snapshot", id: 30, table: TABLE, seq, info: tableInfo, view, paused: null, vote: null });

export const event = (seq, ev, turn = null) =>
  ({ type: "event", table: TABLE, seq, event: ev, ...(turn ? { turn } : {}) });

export const turn = (phase, toAct, awaiting = toAct == null ? [] : [toAct]) => ({ phase, to_act: toAct, awaiting });

export const skip = (seq) => ({ type: "skip", table: TABLE, seq });

const ILLEGAL = [
  { card: "2C", reason: "Follow suit: hearts were led." },
  { card: "3C", reason: "Follow suit: hearts were led." },
  { card: "KS", reason: "Follow suit: hearts were led." },
];

/** Seat 0's prompt to play (the hearts follow suit; the rest are refused, with why). */
export function playPrompt(seq, view = spadesView()) {
  return {
    type: "prompt", table: TABLE, seq, seat: 0, phase: "play", seconds: 30, hand: view.hand, view,
    legal: [{ type: "play", card: "5H" }, { type: "play", card: "9H" }, { type: "play", card: "TH" }],
    pass_count: null, illegal: ILLEGAL,
  };
}

export function passPrompt(seq, view = heartsView()) {
  return { type: "prompt", table: TABLE, seq, seat: 0, phase: "pass", seconds: 30, hand: view.hand, view,
    legal: [], pass_count: 3, illegal: [] };
}

/** The state after each message in turn, the clock at `now` (ms). */
export function after(messages, { state = initialState(TABLE), now = 1000 } = {}) {
  return messages.reduce((s, message) => reduce(s, message, now), state);
}

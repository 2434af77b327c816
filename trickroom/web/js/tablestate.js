// A table as this client knows it: one plain value, and the pure function that moves it on.
//
// `reduce(state, message, now)` takes what happened (a message from the server: a
// snapshot, a numbered event, a skip, a prompt; or something the player did here:
// a card pressed, a dialog closed) and returns the next state. It touches no DOM, no
// socket and no clock (`now`, in milliseconds, is passed in), and it never changes the
// state it is given: it edits a copy. The page (tableview.js) keeps the state, sends
// requests and plays sounds; the views only draw the state.
//
// The server sends a whole view with every prompt and snapshot; between them the
// reducer records what each event says (the trick, bids, tricks won, scores), and
// each event's `turn` says the phase and whose turn it is. It knows no rules: who
// leads, what breaks a suit, which cards score and why a card is refused all come
// from the server; tableselectors.js answers the questions asked of the state.
// Events are numbered (`seq`): one already seen changes nothing, and one after a gap
// is not applied but marks the state `behind`, for the page to rejoin and be sent
// what it missed (docs/protocol.md, "Rules of the road").

import { t } from "./i18n.js";
import { sortHand } from "./cards.js";
import { ACTING, legalCards, ourTurn, seatName, whyNot, winnersOf } from "./tableselectors.js";

const FOUR = () => [null, null, null, null];

/** The state of table `table` before the server has said anything about it. */
export function initialState(table) {
  return {
    table,
    info: null, // TableInfo: seats, state, room (table events, snapshots)
    seat: null, // our seat, or null when watching
    seq: 0, // the last event or skip seen
    behind: false, // an event was missed: rejoin to be sent it
    view: null, // the game as our seat sees it
    prompt: null, // {phase, legal, illegal, pass_count, deadline}: our turn, as prompted
    turnSeconds: 30,
    countdown: null, // {seat, deadline}: the clock of whoever is to act
    gameId: null,
    gameOver: null, // the game_over event (a snapshot's `over`, or its scores and winners)
    lastTrick: null, // the last trick won {seat, leader, cards, points, scoring}
    justWon: null, // that trick as it lay on the table {..., plays, at}, while it lingers
    votes: [], // [{vote, kind, seat, player, voters, cast, deadline, outcome, closedAt}]
    paused: null, // why a ranked game waits (a vote on a dropped player), or null
    openSeats: [], // WoCG: seats a substitute may take
    names: FOUR(), // the last name seen in each seat, for players who have left
    chances: null, // ranked: each side's chance of winning when the game started
    bidWhys: FOUR(), // this hand's robots' reasons for their bids
    // What the player has done here, which the server does not know about.
    chosen: [], // cards chosen for a Hearts pass
    showLastTrick: false,
    resultsClosed: false, // the game-over dialog was closed
    summaryClosed: -1, // the number of hands whose summaries the player has seen
    duplicate: null, // a duplicate match's result (duplicate_result), until the next game
    field: [], // a duplicate room: how the same deals went at the set's other tables (board_deal), newest first
    boardResult: null, // a duplicate room: the last complete board set's result (board_result)
    myVotes: {}, // vote id -> our choice, until the server counts it
    handNote: "", // why the card last pressed may not be played
  };
}

/** The state after `message` (from the server, or the player's own) arrived at `now`. */
export function reduce(state, message, now = 0) {
  const handler = MESSAGES[message.type] || INTENTS[message.type];
  if (!handler) return state;
  const next = structuredClone(state);
  return handler(next, message, now) === UNCHANGED ? state : next;
}

/** What a handler returns when the message changes nothing: reduce then returns the
 *  very state it was given, so the page can tell. */
const UNCHANGED = Symbol("unchanged");

/** A game's view before its first deal. */
function freshView(game, rules, seat) {
  const base = {
    game, seat, phase: "waiting", rules: rules || {}, hand_no: -1, dealer: 0, to_act: null,
    awaiting: [], hand: [], hand_sizes: [0, 0, 0, 0], leader: null, trick: [], tricks: [],
    tricks_won: [0, 0, 0, 0], scores: game === "spades" ? [0, 0] : [0, 0, 0, 0],
    hand_results: [], legal: [],
  };
  if (game === "spades") {
    Object.assign(base, { bids: FOUR(), blind: [false, false, false, false], bags: [0, 0], sees_hand: true });
  } else {
    Object.assign(base, { pass_direction: "left", passed: [], received: [],
      pass_chosen: [false, false, false, false], points_taken: [0, 0, 0, 0] });
  }
  return base;
}

// -- the server's messages ------------------------------------------------------------------
// Each handler edits `s`, already a copy of the state, or returns UNCHANGED.

/** Follow the seat to act with the countdown; a new turn starts the clock again. */
function markTurn(s, now) {
  const v = s.view;
  const seat = v && ACTING.includes(v.phase) ? v.to_act : null;
  if (seat == null) { s.countdown = null; return; }
  if (s.countdown?.seat === seat) return;
  s.countdown = { seat, deadline: now + s.turnSeconds * 1000 };
}

/** Remember who sat where, so the results still name players who have left the table. */
function noteNames(s) {
  s.info?.seats?.forEach((seat) => { if (seat.name) s.names[seat.seat] = seat.name; });
  if (s.info?.chances) s.chances = s.info.chances;
}

/** Take numbered message `seq` if it is the next one: true. One seen already changes
 *  nothing; one after a gap (once a snapshot has given a first number) marks the state
 *  behind, and is not taken: the rejoin sends it again with what came before it. */
function take(s, seq) {
  if (seq <= s.seq) return UNCHANGED;
  if (s.seq > 0 && seq > s.seq + 1) {
    if (s.behind) return UNCHANGED;
    s.behind = true;
    return false;
  }
  s.seq = seq;
  s.behind = false;
  return true;
}

const MESSAGES = {
  snapshot(s, msg, now) {
    s.info = msg.info;
    noteNames(s);
    // The game being (or last) played: its review's link, for a page that came back by a
    // snapshot and so never read the game_started event.
    if (msg.info?.game_id) s.gameId = msg.info.game_id;
    s.seq = msg.seq;
    s.behind = false;
    const v = msg.view;
    if (!v) return;
    s.view = { ...v, hand: sortHand(v.hand || []) };
    if (v.seat != null) s.seat = v.seat;
    if (v.tricks?.length) s.lastTrick = v.tricks.at(-1);
    // A finished game's snapshot carries its end as told (the rating changes with it).
    s.gameOver = v.phase === "game_over" ? (msg.over || { scores: v.scores, winners: winnersOf(v) }) : null;
    // Coming to a table mid-game: only the hand that has just ended gets its summary.
    if (v.phase !== "hand_over") s.summaryClosed = v.hand_results?.length ?? -1;
    markTurn(s, now);
  },

  prompt(s, msg, now) {
    if (msg.seq < s.seq) return UNCHANGED; // a repeat of a turn already past
    if (s.seq > 0 && msg.seq > s.seq) { // it follows events we have not seen
      if (s.behind) return UNCHANGED;
      s.behind = true;
      return;
    }
    s.view = { ...msg.view, hand: sortHand(msg.view.hand || []) };
    s.seat = msg.seat;
    s.turnSeconds = msg.seconds || s.turnSeconds;
    const deadline = msg.seconds ? now + msg.seconds * 1000 : null;
    s.prompt = { phase: msg.phase, legal: msg.legal, pass_count: msg.pass_count, illegal: msg.illegal || [], deadline };
    s.countdown = { seat: msg.seat, deadline };
    s.handNote = ""; // a new turn: why a card was refused before is stale
    if (msg.phase !== "pass") s.chosen = [];
  },

  event(s, msg, now) {
    const taken = take(s, msg.seq);
    if (taken !== true) return taken;
    const ev = msg.event;
    const apply = EVENTS[ev.type];
    if (apply && (s.view || !NEEDS_VIEW.has(ev.type))) apply(s, ev, now);
    const turn = msg.turn;
    if (turn && s.view) {
      // One action's events share the turn it leaves: the hand's last card scores the hand
      // and may end the game. The game is over here once its game_over event is read.
      const phase = turn.phase === "game_over" && ev.type !== "game_over" ? "hand_over" : turn.phase;
      Object.assign(s.view, { phase, to_act: turn.to_act, awaiting: turn.awaiting || [] });
      markTurn(s, now);
    }
    if (s.prompt && !ourTurn(s)) s.prompt = null;
  },

  /** Another seat's private event: its number, and nothing of it. */
  skip(s, msg) {
    const taken = take(s, msg.seq);
    if (taken !== true) return taken;
  },

  /** We play this seat: the server's reply to a sit (or the queue's push), or a rejoin's. */
  seated(s, msg) { s.seat = msg.seat; },

  /** The same player took the seat in another window: this one only watches now. */
  taken_over(s) { s.seat = null; },
};

// -- the table's events ------------------------------------------------------------------------

const NEEDS_VIEW = new Set(["dealt", "bid", "passed", "pass_chosen", "received", "played",
  "trick_won", "hand_scored", "game_over"]);

const EVENTS = {
  table(s, ev) { s.info = ev.info; noteNames(s); },

  game_started(s, ev) {
    s.gameId = ev.game_id;
    s.chances = ev.chances || null;
    const game = s.info?.game || (ev.rules && "pass_cycle" in ev.rules ? "hearts" : "spades");
    s.view = freshView(game, ev.rules, s.seat);
    Object.assign(s, { gameOver: null, lastTrick: null, votes: [], paused: null, openSeats: [], duplicate: null,
      resultsClosed: false, myVotes: {}, summaryClosed: -1 });
  },

  hand_started(s, ev) {
    const v = s.view || (s.view = freshView(s.info?.game, {}, s.seat));
    Object.assign(v, {
      hand_no: ev.hand, dealer: ev.dealer, hand: [], hand_sizes: [13, 13, 13, 13], trick: [],
      tricks: [], tricks_won: [0, 0, 0, 0], leader: null,
    });
    if (v.game === "spades") {
      Object.assign(v, { bids: FOUR(), blind: [false, false, false, false] });
    } else {
      Object.assign(v, { pass_direction: ev.pass_direction || "hold", passed: [], received: [],
        pass_chosen: [false, false, false, false], points_taken: [0, 0, 0, 0] });
    }
    Object.assign(s, { lastTrick: null, chosen: [], bidWhys: FOUR() });
  },

  dealt(s, ev) {
    if (ev.seat !== s.seat) return;
    s.view.hand = sortHand(ev.cards);
    s.view.sees_hand = true;
  },

  bid(s, ev) {
    s.view.bids[ev.seat] = ev.value;
    s.view.blind[ev.seat] = !!ev.blind;
    s.bidWhys[ev.seat] = ev.why || null;
  },

  passed(s, ev) {
    s.view.passed = ev.cards;
    s.view.hand = s.view.hand.filter((c) => !ev.cards.includes(c));
  },

  pass_chosen(s, ev) { s.view.pass_chosen[ev.seat] = true; },

  received(s, ev) {
    s.view.received = ev.cards;
    s.view.hand = sortHand([...s.view.hand, ...ev.cards]);
  },

  played(s, ev) {
    const v = s.view;
    if (!v.trick.length) v.leader = ev.seat;
    v.trick.push({ seat: ev.seat, card: ev.card });
    v.hand_sizes[ev.seat] = Math.max(0, v.hand_sizes[ev.seat] - 1);
    if (ev.seat === s.seat) v.hand = v.hand.filter((c) => c !== ev.card);
  },

  trick_won(s, ev, now) {
    const v = s.view;
    const trick = { seat: ev.seat, trick: ev.trick, leader: ev.leader, cards: ev.cards, points: ev.points,
      scoring: ev.scoring || [] };
    v.tricks.push(trick);
    v.tricks_won[ev.seat] += 1;
    if (v.points_taken) v.points_taken[ev.seat] += ev.points || 0;
    s.lastTrick = trick;
    s.justWon = { ...trick, plays: v.trick, at: now };
    v.trick = [];
    v.leader = null;
    s.showLastTrick = false;
  },

  hand_scored(s, ev) {
    const v = s.view;
    const { type, hand, scores, ...result } = ev;
    v.hand_results.push({ ...result, scores });
    v.scores = scores;
    if (v.game === "spades") v.bags = ev.sides.map((side) => side.bags_total);
  },

  game_over(s, ev, now) {
    // An abandoned game's end carries no turn: the game is over all the same.
    s.view.phase = "game_over";
    s.view.to_act = null;
    s.gameOver = ev;
    markTurn(s, now);
  },

  vote_started(s, ev, now) {
    s.votes.push({ ...ev, cast: {}, deadline: now + (ev.seconds || 30) * 1000, outcome: null });
    if (ev.kind === "wait") s.paused = t("paused.voting", { name: ev.player || seatName(s, ev.seat) });
  },

  vote_cast(s, ev) {
    const vote = s.votes.find((x) => x.vote === ev.vote);
    if (vote) vote.cast[ev.seat] = ev.choice;
  },

  vote_result(s, ev, now) {
    const vote = s.votes.find((x) => x.vote === ev.vote);
    if (vote) Object.assign(vote, { outcome: ev.outcome, closedAt: now });
    if (ev.kind === "wait" || vote?.kind === "wait") {
      const who = vote?.player || seatName(s, ev.seat);
      s.paused = ev.outcome === "wait" ? t("paused.waiting", { name: who }) : null;
    }
    if (ev.outcome === "robot") s.openSeats = s.openSeats.filter((x) => x !== ev.seat);
  },

  // A sandbox's duplicate match is over: each player's result against the field (shown
  // with the match's last game over, until the next game starts).
  duplicate_result(s, ev) { s.duplicate = ev; },

  // A duplicate room: every table of the board set has played a deal (how the same cards
  // went elsewhere), or the set is complete. They may come during a later game.
  board_deal(s, ev) {
    s.field = [ev, ...s.field.filter((x) => x.board_set !== ev.board_set || x.deal !== ev.deal)].slice(0, 12);
  },
  board_result(s, ev) { s.boardResult = ev; },

  // Ranked rooms: a quit (rated at once in WoCG rooms), a substitute, a game resumed.
  quit(s, ev) { if (!s.openSeats.includes(ev.seat)) s.openSeats.push(ev.seat); },
  substitute(s, ev) { s.openSeats = s.openSeats.filter((x) => x !== ev.seat); },
  resumed(s) { s.paused = null; },
};

// -- what the player does here ------------------------------------------------------------------

const INTENTS = {
  /** The seat is gone (the reconnect window passed): watch instead. */
  watching(s) { s.seat = null; },

  /** A card pressed in the hand: chosen for a pass (or no longer), or told why not. */
  press_card(s, msg) {
    const legal = legalCards(s);
    if (!legal || !legal.has(msg.card)) { s.handNote = whyNot(s, msg.card); return; }
    s.handNote = "";
    if (s.prompt.phase !== "pass") return;
    if (s.chosen.includes(msg.card)) s.chosen = s.chosen.filter((c) => c !== msg.card);
    else if (s.chosen.length < (s.prompt.pass_count || 3)) s.chosen.push(msg.card);
  },

  /** The chosen cards went to the server. */
  pass_sent(s) { s.chosen = []; },

  toggle_last_trick(s) { s.showLastTrick = !s.showLastTrick; },
  close_results(s) { s.resultsClosed = true; },
  open_results(s) { s.resultsClosed = false; },
  close_summary(s, msg) { s.summaryClosed = msg.hands; },

  /** Our vote, shown at once; taken back if the server refuses it. */
  vote_chosen(s, msg) { s.myVotes[msg.vote] = msg.choice; },
  vote_refused(s, msg) { delete s.myVotes[msg.vote]; },
};

// A table as this client knows it: the server's view of our seat, kept current
// from numbered events between the full views that snapshots and prompts carry.
//
// The server sends a whole view with every prompt and snapshot; between them
// this reducer records what each event says (the trick, bids, tricks won,
// scores), and each event message's `turn` says the phase and whose turn it is.
// It knows no rules: who leads, what breaks a suit, which cards score and why a
// card is refused all come from the server.

import { sortHand } from "./cards.js";

export function freshView(game, rules, seat) {
  const base = {
    game, seat, phase: "waiting", rules: rules || {}, hand_no: -1, dealer: 0, to_act: null,
    awaiting: [], hand: [], hand_sizes: [0, 0, 0, 0], leader: null, trick: [], tricks: [],
    tricks_won: [0, 0, 0, 0], scores: game === "spades" ? [0, 0] : [0, 0, 0, 0],
    hand_results: [], legal: [],
  };
  if (game === "spades") {
    Object.assign(base, { bids: [null, null, null, null], blind: [false, false, false, false],
      bags: [0, 0], sees_hand: true });
  } else {
    Object.assign(base, { pass_direction: "left", passed: [], received: [],
      pass_chosen: [false, false, false, false], points_taken: [0, 0, 0, 0] });
  }
  return base;
}

export class TableState {
  constructor(id) {
    this.id = id;
    this.info = null; // TableInfo: seats, state, room
    this.seat = null; // our seat, or null when watching
    this.seq = 0;
    this.view = null;
    this.prompt = null; // {phase, legal, pass_count, deadline}
    this.gameId = null;
    this.gameOver = null; // the game_over event
    this.lastTrick = null; // the last completed trick {seat, cards, leader, points}
    this.turnStarted = null; // {seat, at} for the countdown of whoever is to act
    this.turnSeconds = 30;
    this.votes = new Map(); // vote id -> {kind, seat, voters, cast, deadline, outcome}
    this.announcements = []; // [{text, rating, at}]: quits and substitutes, shown briefly
    this.paused = null; // why a ranked game waits (a vote on a dropped player), or null
    this.openSeats = new Set(); // WoCG: seats a substitute may take
    this.names = [null, null, null, null]; // the last name seen in each seat
    this.chances = null; // ranked: each side's chance of winning when the game started
  }

  /** Remember who sat where, so the results still name players who have left the table. */
  noteNames() {
    this.info?.seats?.forEach((s) => { if (s.name) this.names[s.seat] = s.name; });
    if (this.info?.chances) this.chances = this.info.chances;
  }

  announce(text, rating = null) { this.announcements.push({ text, rating, at: Date.now() }); }

  get game() { return this.view?.game || this.info?.game; }

  applySnapshot(msg) {
    this.info = msg.info;
    this.noteNames();
    this.seq = msg.seq;
    if (msg.view) {
      this.view = { ...msg.view, hand: sortHand(msg.view.hand || []) };
      if (this.view.seat != null) this.seat = this.view.seat;
      if (this.view.tricks?.length) this.lastTrick = this.view.tricks.at(-1);
      this.gameOver = this.view.phase === "game_over"
        ? { scores: this.view.scores, winners: winnersOf(this.view) } : null;
      this.markTurn();
    }
  }

  applyPrompt(msg) {
    this.view = { ...msg.view, hand: sortHand(msg.view.hand || []) };
    this.seat = msg.seat;
    this.turnSeconds = msg.seconds || this.turnSeconds;
    this.prompt = {
      phase: msg.phase, legal: msg.legal, pass_count: msg.pass_count, illegal: msg.illegal || [],
      deadline: msg.seconds ? Date.now() + msg.seconds * 1000 : null,
    };
    this.turnStarted = { seat: msg.seat, at: Date.now(), deadline: this.prompt.deadline };
  }

  /** Apply one numbered event and the turn it leaves (the server's `turn`: phase, whose
   *  move, who is still choosing a pass); returns false for an event already seen. */
  applyEvent(seq, ev, turn = null) {
    if (seq <= this.seq) return false;
    this.seq = seq;
    const handler = HANDLERS[ev.type];
    if (handler) handler(this, ev);
    if (turn && this.view) {
      // One action's events share the turn it leaves: the hand's last card scores the hand
      // and may end the game. The game is over here once its game_over event is read.
      const phase = turn.phase === "game_over" && ev.type !== "game_over" ? "hand_over" : turn.phase;
      Object.assign(this.view, { phase, to_act: turn.to_act, awaiting: turn.awaiting || [] });
      this.markTurn();
    }
    if (this.prompt && !this.ourTurn()) this.prompt = null;
    return true;
  }

  /** Whether the game is waiting for our seat. */
  ourTurn() {
    const v = this.view;
    if (!v || this.seat == null || this.paused) return false;
    if (v.phase === "pass") return !v.pass_chosen?.[this.seat];
    return v.to_act === this.seat && ["bid", "play", "moon"].includes(v.phase);
  }

  markTurn() {
    const v = this.view;
    const seat = v && ["bid", "play", "moon"].includes(v.phase) ? v.to_act : null;
    if (seat == null) { this.turnStarted = null; return; }
    if (this.turnStarted?.seat === seat) return;
    this.turnStarted = { seat, at: Date.now(), deadline: Date.now() + this.turnSeconds * 1000 };
  }

  seatName(seat) {
    return this.info?.seats?.[seat]?.name || this.names[seat] || ["North", "East", "South", "West"][seat];
  }
}

function winnersOf(view) {
  if (view.game === "spades") {
    const side = view.scores[0] > view.scores[1] ? 0 : 1;
    return [side, side + 2];
  }
  const low = Math.min(...view.scores);
  return [0, 1, 2, 3].filter((s) => view.scores[s] === low);
}

const HANDLERS = {
  table(t, ev) { t.info = ev.info; t.noteNames(); },

  game_started(t, ev) {
    t.gameId = ev.game_id;
    t.chances = ev.chances || null;
    t.view = freshView(t.info?.game || (ev.rules && "pass_cycle" in ev.rules ? "hearts" : "spades"),
      ev.rules, t.seat);
    t.gameOver = null;
    t.lastTrick = null;
    t.votes.clear();
    t.paused = null;
    t.openSeats.clear();
  },

  hand_started(t, ev) {
    const v = t.view || (t.view = freshView(t.info?.game, {}, t.seat));
    Object.assign(v, {
      hand_no: ev.hand, dealer: ev.dealer, hand: [], hand_sizes: [13, 13, 13, 13], trick: [],
      tricks: [], tricks_won: [0, 0, 0, 0], leader: null,
    });
    t.lastTrick = null;
    if (v.game === "spades") {
      Object.assign(v, { bids: [null, null, null, null], blind: [false, false, false, false] });
    } else {
      Object.assign(v, { pass_direction: ev.pass_direction || "hold", passed: [], received: [],
        pass_chosen: [false, false, false, false], points_taken: [0, 0, 0, 0] });
    }
  },

  dealt(t, ev) {
    if (ev.seat === t.seat && t.view) {
      t.view.hand = sortHand(ev.cards);
      t.view.sees_hand = true;
    }
  },

  bid(t, ev) {
    const v = t.view;
    v.bids[ev.seat] = ev.value;
    v.blind[ev.seat] = !!ev.blind;
  },

  passed(t, ev) {
    const v = t.view;
    v.passed = ev.cards;
    v.hand = v.hand.filter((c) => !ev.cards.includes(c));
  },

  pass_chosen(t, ev) {
    const v = t.view;
    v.pass_chosen[ev.seat] = true;
  },

  received(t, ev) {
    const v = t.view;
    v.received = ev.cards;
    v.hand = sortHand([...v.hand, ...ev.cards]);
  },

  played(t, ev) {
    const v = t.view;
    if (!v.trick.length) v.leader = ev.seat;
    v.trick.push({ seat: ev.seat, card: ev.card });
    v.hand_sizes[ev.seat] = Math.max(0, v.hand_sizes[ev.seat] - 1);
    if (ev.seat === t.seat) v.hand = v.hand.filter((c) => c !== ev.card);
  },

  trick_won(t, ev) {
    const v = t.view;
    const trick = { seat: ev.seat, trick: ev.trick, leader: ev.leader, cards: ev.cards, points: ev.points,
      scoring: ev.scoring || [] };
    v.tricks.push(trick);
    v.tricks_won[ev.seat] += 1;
    if (v.points_taken) v.points_taken[ev.seat] += ev.points || 0;
    t.lastTrick = trick;
    t.justWon = { ...trick, plays: v.trick.slice(), at: Date.now() };
    v.trick = [];
    v.leader = null;
  },

  hand_scored(t, ev) {
    const v = t.view;
    const { type, hand, scores, ...result } = ev;
    v.hand_results.push({ ...result, scores });
    v.scores = scores;
    if (v.game === "spades") v.bags = ev.sides.map((s) => s.bags_total);
  },

  game_over(t, ev) {
    // An abandoned game's end carries no turn: the game is over all the same.
    t.view.phase = "game_over";
    t.view.to_act = null;
    t.gameOver = ev;
    t.markTurn();
  },

  vote_started(t, ev) {
    t.votes.set(ev.vote, { ...ev, cast: {}, deadline: Date.now() + (ev.seconds || 30) * 1000, outcome: null });
    if (ev.kind === "wait") t.paused = `voting on waiting for ${ev.player || t.seatName(ev.seat)}`;
  },

  // Ranked rooms: a quit (rated at once in WoCG rooms), a substitute, a game resumed.
  quit(t, ev) {
    t.openSeats.add(ev.seat);
    t.announce(`${ev.player || t.seatName(ev.seat)} left the game${ev.banned_until ? ` (banned from ranked play until ${new Date(ev.banned_until * 1000).toLocaleString()})` : ""}.`, ev.rating);
  },
  substitute(t, ev) {
    t.openSeats.delete(ev.seat);
    t.announce(`${ev.name} sits in for ${["North", "East", "South", "West"][ev.seat]} as a substitute.`);
  },
  resumed(t) { t.paused = null; },

  vote_cast(t, ev) {
    const vote = t.votes.get(ev.vote);
    if (vote) vote.cast[ev.seat] = ev.choice;
  },

  vote_result(t, ev) {
    const vote = t.votes.get(ev.vote);
    if (vote) { vote.outcome = ev.outcome; vote.closedAt = Date.now(); }
    if (ev.kind === "wait" || vote?.kind === "wait") {
      const who = vote?.player || t.seatName(ev.seat);
      t.paused = ev.outcome === "wait" ? `waiting for ${who} to come back` : null;
    }
    if (ev.outcome === "robot") t.openSeats.delete(ev.seat);
  },
};


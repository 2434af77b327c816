// The table's state in the browser client, as the reducer keeps it (trickroom/web/js/
// tablestate.js): what each message from the server does to it, and what the
// player's own choices do. Run with `node --test tests/web/js` (tests/web/test_reducer.py
// runs it in the suite).

import { test } from "node:test";
import assert from "node:assert/strict";

import { initialState, reduce } from "../../../trickroom/web/js/tablestate.js";
import {
  legalCards, ourTurn, seatNames, shownVote, summaryDue, trickShowing, whyNot,
} from "../../../trickroom/web/js/tableselectors.js";
import {
  TABLE, after, event, heartsView, info, passPrompt, playPrompt, skip, snapshot, spadesView, turn,
} from "./messages.js";

/** Freeze a value and everything in it, so a reducer that edits its input throws. */
function frozen(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    Object.values(value).forEach(frozen);
  }
  return value;
}

// -- numbering: snapshots, events, skips, gaps --------------------------------------------

test("a snapshot gives the table, our seat and the number of the last event", () => {
  const s = after([snapshot(64, spadesView())]);
  assert.equal(s.seq, 64);
  assert.equal(s.seat, 0);
  assert.equal(s.info.state, "playing");
  assert.equal(s.view.phase, "play");
  assert.deepEqual(s.names, ["guest-ann", "Bot Hugo", "Bot Holly", "Bot Hank"]);
});

test("a rejoin snapshot replaces the hand, sorted as the hand is drawn", () => {
  const before = after([snapshot(10, spadesView({ hand: ["AS", "AD"] }))]);
  const s = after([snapshot(64, spadesView())], { state: before });
  // Clubs, diamonds, spades, hearts (the colours alternate), low to high.
  assert.deepEqual(s.view.hand, ["2C", "3C", "KS", "5H", "9H", "TH"]);
  assert.equal(s.seq, 64);
});

test("an event already seen changes nothing", () => {
  const s = after([snapshot(64, spadesView())]);
  assert.equal(reduce(s, event(64, { type: "played", seat: 0, card: "TH" }, turn("play", 1))), s);
  assert.equal(reduce(s, event(12, { type: "played", seat: 0, card: "TH" }, turn("play", 1))), s);
});

test("a skip advances seq without revealing a card", () => {
  const s = after([snapshot(64, spadesView()), skip(65)]);
  assert.equal(s.seq, 65);
  assert.deepEqual(s.view, after([snapshot(64, spadesView())]).view);
});

test("a gap in seq asks for a rejoin and leaves the event for it to send again", () => {
  const start = after([snapshot(64, spadesView())]);
  const s = reduce(start, event(66, { type: "played", seat: 0, card: "TH" }, turn("play", 1)));
  assert.equal(s.behind, true, "the page rejoins when the state is behind");
  assert.equal(s.seq, 64, "the rejoin asks for everything after 64");
  assert.deepEqual(s.view.trick, [{ seat: 3, card: "QH" }], "the event after the gap is not applied");
  // More messages on the way change nothing more: the page asked once.
  assert.equal(reduce(s, skip(67)), s);
  // The rejoin's answer sends the missed numbers in order; the state catches up.
  const caught = after([skip(65), event(66, { type: "played", seat: 0, card: "TH" }, turn("play", 1))], { state: s });
  assert.equal(caught.behind, false);
  assert.equal(caught.seq, 66);
  assert.deepEqual(caught.view.trick.map((p) => p.card), ["QH", "TH"]);
});

test("a snapshot after a gap puts the state right", () => {
  const s = after([snapshot(64, spadesView()), skip(70), snapshot(90, spadesView({ tricks_won: [5, 1, 1, 1] }))]);
  assert.equal(s.behind, false);
  assert.equal(s.seq, 90);
  assert.deepEqual(s.view.tricks_won, [5, 1, 1, 1]);
});

test("before the first snapshot events are taken as they come", () => {
  const s = after([event(3, { type: "table", info: info({ state: "waiting" }) })]);
  assert.equal(s.behind, false);
  assert.equal(s.seq, 3);
  assert.equal(s.info.state, "waiting");
});

// -- turns and prompts -----------------------------------------------------------------------

test("a prompt sets whose turn it is and the legal cards", () => {
  const s = after([snapshot(29, spadesView({ to_act: 3 })), playPrompt(29)]);
  assert.equal(ourTurn(s), true);
  assert.deepEqual([...legalCards(s)].sort(), ["5H", "9H", "TH"]);
  assert.deepEqual(s.countdown, { seat: 0, deadline: 1000 + 30_000 });
});

test("a refused card is explained in the server's words, never the client's own rules", () => {
  const s = after([snapshot(29, spadesView()), playPrompt(29)]);
  assert.equal(whyNot(s, "2C"), "Follow suit: hearts were led.");
  const pressed = reduce(s, { type: "press_card", card: "KS" });
  assert.equal(pressed.handNote, "Follow suit: hearts were led.");
  assert.equal(reduce(pressed, { type: "press_card", card: "9H" }).handNote, "", "a legal card clears the note");
});

test("a card pressed when it is not our turn says so", () => {
  const s = after([snapshot(29, spadesView({ to_act: 3 }))]);
  assert.equal(ourTurn(s), false);
  assert.equal(legalCards(s), null);
  assert.equal(reduce(s, { type: "press_card", card: "9H" }).handNote, "It is not your turn.");
});

test("a prompt from before the last event is a repeat and is ignored", () => {
  const s = after([snapshot(30, spadesView({ to_act: 1 }))]);
  assert.equal(reduce(s, playPrompt(29)), s);
  assert.equal(ourTurn(s), false);
});

test("the event that moves the turn on withdraws the prompt", () => {
  const s = after([snapshot(29, spadesView()), playPrompt(29),
    event(30, { type: "played", seat: 0, card: "TH" }, turn("play", 1))]);
  assert.equal(s.prompt, null);
  assert.equal(ourTurn(s), false);
  assert.equal(s.view.to_act, 1);
});

test("each event's turn says the phase and who acts; the countdown restarts for a new seat", () => {
  const bidding = spadesView({ phase: "bid", to_act: 1, bids: [3, null, null, null], trick: [], leader: null });
  const s1 = after([snapshot(29, bidding)], { now: 0 });
  assert.deepEqual(s1.countdown, { seat: 1, deadline: 30_000 });
  const s2 = after([event(30, { type: "looked", seat: 1 }, turn("bid", 1))], { state: s1, now: 5000 });
  assert.deepEqual(s2.countdown, { seat: 1, deadline: 30_000 }, "the same seat's clock runs on");
  const s3 = after([event(31, { type: "bid", seat: 1, value: 2 }, turn("bid", 2))], { state: s2, now: 7000 });
  assert.equal(s3.view.phase, "bid");
  assert.equal(s3.view.to_act, 2);
  assert.deepEqual(s3.countdown, { seat: 2, deadline: 37_000 });
});

// -- cards and tricks ------------------------------------------------------------------------------

test("a card we play goes on the trick and leaves our hand; another seat's only counts down its hand", () => {
  const s = after([snapshot(29, spadesView()), playPrompt(29),
    event(30, { type: "played", seat: 0, card: "TH" }, turn("play", 1)),
    event(31, { type: "played", seat: 1, card: "4H" }, turn("play", 2))]);
  assert.deepEqual(s.view.trick, [{ seat: 3, card: "QH" }, { seat: 0, card: "TH" }, { seat: 1, card: "4H" }]);
  assert.equal(s.view.hand.includes("TH"), false);
  assert.equal(s.view.hand.length, 5);
  assert.deepEqual(s.view.hand_sizes, [5, 5, 6, 5]);
  assert.equal(s.view.leader, 3);
});

test("a trick_won moves the trick to the winner", () => {
  const plays = [[0, "TH"], [1, "4H"], [2, "JH"]].map(([seat, card], i) =>
    event(30 + i, { type: "played", seat, card }, turn("play", (seat + 1) % 4)));
  const won = event(33, { type: "trick_won", seat: 2, trick: 7, leader: 3, cards: ["QH", "TH", "4H", "JH"],
    points: 0, scoring: [] }, turn("play", 2));
  const s = after([snapshot(29, spadesView()), ...plays, won], { now: 5000 });
  assert.deepEqual(s.view.trick, [], "the felt is cleared for the next lead");
  assert.equal(s.view.leader, null);
  assert.deepEqual(s.view.tricks_won, [4, 1, 2, 1]);
  assert.equal(s.lastTrick.seat, 2);
  assert.deepEqual(s.justWon.plays.map((p) => p.card), ["QH", "TH", "4H", "JH"]);
  assert.equal(s.view.to_act, 2, "the winner leads");
  // The won trick lingers on the felt a while, then is gone.
  assert.equal(trickShowing(s, 5500, 1450), true);
  assert.equal(trickShowing(s, 6500, 1450), false);
});

test("Hearts: a trick's points go to its winner, as the server counted them", () => {
  const view = heartsView({ phase: "play", to_act: 3, trick: [{ seat: 3, card: "QH" }, { seat: 0, card: "TH" },
    { seat: 1, card: "4C" }], leader: 3, hand: ["2C", "AH"], hand_sizes: [12, 12, 13, 12] });
  const s = after([snapshot(33, view), event(34, { type: "played", seat: 2, card: "JH" }, turn("play", 3)),
    event(35, { type: "trick_won", seat: 3, trick: 0, leader: 3, cards: ["QH", "TH", "4C", "JH"], points: 3,
      scoring: ["QH", "TH", "JH"] }, turn("play", 3))]);
  assert.deepEqual(s.view.points_taken, [0, 0, 0, 3]);
  assert.deepEqual(s.view.tricks.at(-1).scoring, ["QH", "TH", "JH"]);
});

test("Hearts: our pass leaves the hand and the cards passed to us join it", () => {
  const s = after([snapshot(3, heartsView()),
    event(4, { type: "passed", seat: 0, cards: ["QS", "AH", "KH"], to_seat: 1 }, turn("pass", 2, [2, 3])),
    event(5, { type: "pass_chosen", seat: 0 }, turn("pass", 2, [2, 3])),
    event(6, { type: "received", seat: 0, cards: ["2D", "JS", "8H"], from_seat: 3 }, turn("play", 0))]);
  assert.deepEqual(s.view.passed, ["QS", "AH", "KH"]);
  assert.deepEqual(s.view.received, ["2D", "JS", "8H"]);
  assert.deepEqual(s.view.hand, ["2C", "2D", "9D", "4S", "JS", "8H"]);
  assert.equal(s.view.phase, "play");
});

test("a pass takes up to its count of cards, a second press puts one back, and it is sent once", () => {
  let s = after([snapshot(2, heartsView()), passPrompt(2)]);
  assert.equal(ourTurn(s), true);
  for (const card of ["QS", "AH", "KH", "9D"]) s = reduce(s, { type: "press_card", card });
  assert.deepEqual(s.chosen, ["QS", "AH", "KH"], "a fourth card is not taken");
  s = reduce(s, { type: "press_card", card: "AH" });
  assert.deepEqual(s.chosen, ["QS", "KH"]);
  s = reduce(s, { type: "pass_sent" });
  assert.deepEqual(s.chosen, []);
});

test("a new hand starts clean: no bids, no tricks, no cards chosen", () => {
  let s = after([snapshot(2, heartsView()), passPrompt(2), { type: "press_card", card: "QS" }]);
  s = after([event(3, { type: "hand_started", hand: 1, dealer: 0, pass_direction: "right" }, turn("pass", 0, [0, 1, 2, 3]))], { state: s });
  assert.deepEqual(s.chosen, []);
  assert.equal(s.view.hand_no, 1);
  assert.equal(s.view.pass_direction, "right");
  assert.deepEqual(s.view.pass_chosen, [false, false, false, false]);
  const spades = after([snapshot(40, spadesView()),
    event(41, { type: "hand_started", hand: 1, dealer: 3 }, turn("bid", 0)),
    event(42, { type: "dealt", seat: 0, cards: ["AS", "2C"] }, turn("bid", 0))]);
  assert.deepEqual(spades.view.bids, [null, null, null, null]);
  assert.deepEqual(spades.view.tricks_won, [0, 0, 0, 0]);
  assert.deepEqual(spades.view.hand, ["2C", "AS"]);
});

test("a dealt event for another seat shows us nothing", () => {
  const before = after([snapshot(40, spadesView())]);
  const s = after([event(41, { type: "dealt", seat: 2, cards: ["AS"] }, turn("bid", 0))], { state: before });
  assert.deepEqual(s.view.hand, before.view.hand);
});

test("a robot's bid keeps its reason for the seat to show", () => {
  const s = after([snapshot(40, spadesView({ phase: "bid", bids: [null, null, null, null], to_act: 3 })),
    event(41, { type: "bid", seat: 3, value: 4, why: "4: about 3.6 tricks expected" }, turn("bid", 0))]);
  assert.equal(s.view.bids[3], 4);
  assert.equal(s.bidWhys[3], "4: about 3.6 tricks expected");
});

// -- the end of a hand and of the game -----------------------------------------------------------

const SPADES_SCORED = { type: "hand_scored", hand: 0, dealer: 3, bids: [4, 3, 0, 4], blind: [false, false, false, false],
  tricks_won: [5, 3, 0, 5], scores: [141, 71], sides: [
    { side: 0, contract: 4, tricks: 5, made: true, contract_points: 40, bags: 1, nil_points: 100, bag_penalty: 0, points: 141, score: 141, bags_total: 1 },
    { side: 1, contract: 7, tricks: 8, made: true, contract_points: 70, bags: 1, nil_points: 0, bag_penalty: 0, points: 71, score: 71, bags_total: 1 }] };

test("a scored hand adds a row to the sheet, the running scores and the bags", () => {
  const s = after([snapshot(69, spadesView()), event(70, SPADES_SCORED, turn("hand_over", null))]);
  assert.equal(s.view.hand_results.length, 1);
  assert.deepEqual(s.view.hand_results[0].scores, [141, 71]);
  assert.equal(s.view.hand_results[0].sides[0].nil_points, 100);
  assert.deepEqual(s.view.scores, [141, 71]);
  assert.deepEqual(s.view.bags, [1, 1]);
  assert.equal(s.view.phase, "hand_over");
});

test("the hand's summary waits until the player closes it, even after the next deal", () => {
  let s = after([snapshot(69, spadesView()), event(70, SPADES_SCORED, turn("hand_over", null))]);
  assert.equal(summaryDue(s), true);
  s = after([event(71, { type: "hand_started", hand: 1, dealer: 0 }, turn("bid", 1))], { state: s });
  assert.equal(summaryDue(s), true);
  s = reduce(s, { type: "close_summary", hands: 1 });
  assert.equal(summaryDue(s), false);
});

test("coming to a table mid-game shows no summary of an old hand", () => {
  const results = [{ ...SPADES_SCORED, type: undefined }];
  assert.equal(summaryDue(after([snapshot(90, spadesView({ hand_no: 1, phase: "bid", tricks: [], trick: [], hand_results: results }))])), false);
  assert.equal(summaryDue(after([snapshot(90, spadesView({ hand_no: 0, phase: "hand_over", hand_results: results }))])), true);
});

test("the hand that ends the game is scored before the game is over", () => {
  // One action's events share its turn: game_over is the turn after the last card, but
  // until the game_over event is read the table shows the hand as over.
  let s = after([snapshot(69, spadesView()), event(70, SPADES_SCORED, turn("game_over", null))]);
  assert.equal(s.view.phase, "hand_over");
  assert.equal(s.gameOver, null);
  s = after([event(71, { type: "game_over", scores: [541, 271], winners: [0, 2] }, turn("game_over", null))], { state: s });
  assert.equal(s.view.phase, "game_over");
  assert.deepEqual(s.gameOver.winners, [0, 2]);
  assert.equal(s.countdown, null);
});

test("a snapshot of a finished game names its winners from the scores", () => {
  const s = after([snapshot(200, spadesView({ phase: "game_over", to_act: null, scores: [312, 520] }))]);
  assert.deepEqual(s.gameOver, { scores: [312, 520], winners: [1, 3] });
});

test("a snapshot of a finished game shows its end as told, rating changes and all", () => {
  // A page reloaded after the end, or a rejoin that could not be sent the events it missed.
  const over = { type: "game_over", scores: [312, 520], winners: [1, 3], abandoned: false, chances: [0.4, 0.6],
    ratings: [{ player: "guest-ann", before: { value: 1500 }, after: { value: 1488 }, breakdown: [{ text: "K", value: 32 }] }] };
  const told = after([snapshot(199, spadesView()), event(200, over, turn("game_over", null))]);
  const s = after([{ ...snapshot(200, spadesView({ phase: "game_over", to_act: null, scores: [312, 520] })), over }],
    { state: told });
  assert.deepEqual(s.gameOver, told.gameOver);
  assert.equal(s.gameOver.ratings[0].after.value, 1488);
});

test("a snapshot gives the game's id, so the end reached by a snapshot links to its review", () => {
  const s = after([snapshot(200, spadesView({ phase: "game_over", to_act: null, scores: [312, 520] }),
    { ...info(), state: "over", game_id: "Xy12ab-1" })]);
  assert.equal(s.gameId, "Xy12ab-1");
});

test("a new game clears the last one's results, votes and choices", () => {
  let s = after([snapshot(200, spadesView({ phase: "game_over", to_act: null, scores: [312, 520] })),
    { type: "close_results" }, { type: "close_summary", hands: 3 }]);
  s = after([event(201, { type: "game_started", game_id: "Xy12ab-2", rules: { target: 300 }, system: null, chances: null })], { state: s });
  assert.equal(s.gameId, "Xy12ab-2");
  assert.equal(s.gameOver, null);
  assert.equal(s.resultsClosed, false);
  assert.equal(s.summaryClosed, -1);
  assert.equal(s.view.hand_no, -1);
  assert.deepEqual(s.view.scores, [0, 0]);
});

// -- ranked rooms: votes, quits ------------------------------------------------------------------------

test("a vote on a dropped player pauses the game, and its result says whether it waits", () => {
  let s = after([snapshot(79, spadesView()), playPrompt(79),
    event(80, { type: "vote_started", vote: "v1", kind: "wait", seat: 1, player: "bob", seconds: 30, voters: [0, 2, 3],
      choices: ["wait", "dont_wait"] })], { now: 0 });
  assert.equal(s.paused, "voting on waiting for bob");
  assert.equal(ourTurn(s), false, "a paused game waits for no one");
  assert.equal(s.prompt, null);
  assert.equal(shownVote(s, 1000).deadline, 30_000);
  s = reduce(s, { type: "vote_chosen", vote: "v1", choice: "wait" });
  assert.equal(s.myVotes.v1, "wait");
  s = after([event(81, { type: "vote_cast", vote: "v1", seat: 0, choice: "wait" }),
    event(82, { type: "vote_result", vote: "v1", kind: "wait", seat: 1, outcome: "wait" })], { state: s, now: 2000 });
  assert.equal(s.paused, "waiting for bob to come back");
  assert.equal(shownVote(s, 5000).outcome, "wait", "the outcome shows a while");
  assert.equal(shownVote(s, 7000), null);
  s = after([event(83, { type: "resumed", seat: 1 })], { state: s });
  assert.equal(s.paused, null);
});

test("a refused vote is taken back", () => {
  const s = after([{ type: "vote_chosen", vote: "v1", choice: "wait" }, { type: "vote_refused", vote: "v1" }]);
  assert.deepEqual(s.myVotes, {});
});

test("a quitter's seat is open to a substitute until one sits", () => {
  let s = after([snapshot(89, spadesView()), event(90, { type: "quit", seat: 3, player: "peter" })]);
  assert.deepEqual(s.openSeats, [3]);
  s = after([event(91, { type: "substitute", seat: 3, name: "subby" })], { state: s });
  assert.deepEqual(s.openSeats, []);
});

// -- seats and names -------------------------------------------------------------------------------

test("a player who leaves keeps their name for the results", () => {
  const s = after([snapshot(5, spadesView()), event(6, { type: "table", info: info({ names: [null, "Bot Hugo", "Bot Holly", "Bot Hank"] }) })]);
  assert.equal(s.info.seats[0].kind, "empty");
  assert.equal(s.names[0], "guest-ann");
});

test("robots of one name are told apart by their seats", () => {
  const s = after([snapshot(5, spadesView(), info({ names: ["ann", "robot", "robot", "bob"] }))]);
  assert.deepEqual(seatNames(s), ["ann", "robot (E)", "robot (S)", "bob"]);
});

test("a watcher has no seat, and a seat taken over in another window is only watched here", () => {
  const watching = after([snapshot(5, spadesView({ seat: null, hand: [] }))]);
  assert.equal(watching.seat, null);
  const s = after([snapshot(5, spadesView()), { type: "taken_over", table: TABLE, seat: 0 }]);
  assert.equal(s.seat, null);
});

// -- purity ----------------------------------------------------------------------------------------

test("the reducer never changes the state or the message it is given", () => {
  const messages = [snapshot(29, spadesView()), playPrompt(29), { type: "press_card", card: "KS" },
    event(30, { type: "played", seat: 0, card: "TH" }, turn("play", 1)), skip(31),
    event(32, { type: "trick_won", seat: 0, trick: 7, leader: 3, cards: ["QH", "TH", "4H", "JH"], points: 0, scoring: [] }, turn("play", 0)),
    event(33, SPADES_SCORED, turn("hand_over", null)), { type: "close_summary", hands: 1 }].map(frozen);
  let s = frozen(initialState(TABLE));
  for (const message of messages) s = frozen(reduce(s, message, 1000));
  assert.equal(s.seq, 33);
  assert.deepEqual(s.view.tricks_won, [5, 1, 1, 1]);
});

test("a message of a kind the table does not keep changes nothing", () => {
  const s = after([snapshot(5, spadesView())]);
  assert.equal(reduce(s, { type: "pong", id: 7 }), s);
});

test("a duplicate room's field keeps each deal once, newest first, and the set's result", () => {
  const play = (points) => ({ players: ["a", "b", "c", "d"], points, tricks: [3, 3, 3, 4] });
  const deal = (n, set = "s1", seq = 10 + n) => event(seq, { type: "board_deal", board_set: set, deal: n, here: play([50, 20, 50, 20]),
    field: [play([30, 40, 30, 40])], margins: [20, -20, 20, -20] });
  const s = after([deal(0), deal(1), deal(0, "s1", 12), deal(0, "s2", 13)]);
  assert.deepEqual(s.field.map((e) => [e.board_set, e.deal]), [["s2", 0], ["s1", 0], ["s1", 1]]);
  assert.equal(s.boardResult, null);
  const done = after([event(14, { type: "board_result", board_set: "s1", tables: 2, deals: 2, players: [], ratings: [] })], { state: s });
  assert.equal(done.boardResult.board_set, "s1");
  assert.equal(done.field.length, 3); // the field stays with the result
});

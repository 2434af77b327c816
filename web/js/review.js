// Game review: any finished game from /api/games/<id>, hand by hand and trick by trick.
//
// A record is rules, seed and actions; the deal itself is not stored when it
// came from the seed. It does not need to be: every card of a hand is played,
// so a seat's 52 plays tell what it held after the pass, and the record's
// passes tell what it held before. Scores are worked out here from the bids,
// tricks and points, and checked against the stored result.

import { h, fill } from "./dom.js";
import { SEAT_NAMES, cardEl, sortHand, trickWinner, cardShort } from "./cards.js";
import { getJSON } from "./net.js";
import { scoreSheet, ratingChange } from "./scoresheet.js";

const OFFSET = { left: 1, across: 2, right: 3, hold: 0 };
const POSITIONS = ["top", "right", "bottom", "left"]; // North at the top

function spadesScore(rules, bids, blind, tricks, scores, bags) {
  const sides = [0, 1].map((side) => {
    const seats = [side, side + 2];
    const contract = seats.reduce((n, s) => n + (bids[s] > 0 ? bids[s] : 0), 0);
    let toward = seats.reduce((n, s) => n + (bids[s] > 0 ? tricks[s] : 0), 0);
    if (rules.nil_tricks_count_for_partner ?? true) toward += seats.reduce((n, s) => n + (bids[s] === 0 ? tricks[s] : 0), 0);
    let made, contractPoints, over;
    if (contract === 0) [made, contractPoints, over] = [null, 0, toward];
    else if (toward >= contract) [made, contractPoints, over] = [true, 10 * contract, toward - contract];
    else [made, contractPoints, over] = [false, -10 * contract, 0];
    let nilPoints = 0;
    for (const s of seats) {
      if (bids[s] !== 0) continue;
      const value = blind[s] ? rules.blind_nil_value ?? 200 : rules.nil_value ?? 100;
      nilPoints += tricks[s] === 0 ? value : -value;
    }
    let bagsTotal = bags[side] + over;
    let penalty = 0;
    const limit = rules.bag_limit === undefined ? 10 : rules.bag_limit;
    if (limit != null) while (bagsTotal >= limit) { bagsTotal -= limit; penalty -= rules.bag_penalty ?? 100; }
    const points = contractPoints + over + nilPoints + penalty;
    return { side, contract, tricks: toward, made, contract_points: contractPoints, bags: over,
      nil_points: nilPoints, bag_penalty: penalty, points, score: scores[side] + points, bags_total: bagsTotal };
  });
  return sides;
}

function heartsPoints(rules, cards) {
  let points = 0;
  for (const c of cards) {
    if (c[1] === "H") points += 1;
    if (c === "QS") points += 13;
    if (c === "JD" && rules.jack_of_diamonds) points += rules.jack_value ?? -10;
  }
  return points;
}

/** Rebuild every hand of a record: deals, bids or passes, tricks with winners, and scores. */
export function reconstruct(record) {
  const rules = record.rules || {};
  const spades = record.game === "spades";
  const hands = [];
  let hand = null;
  const scores = spades ? [0, 0] : [0, 0, 0, 0];
  const bags = [0, 0];
  const cycle = rules.pass_cycle || ["left", "right", "across", "hold"];

  const open = () => {
    const no = hands.length;
    hand = { no, dealer: (record.dealer + no) % 4, bids: [null, null, null, null], blind: [false, false, false, false],
      passes: [null, null, null, null], pass_direction: spades ? null : cycle[no % cycle.length],
      plays: [], tricks: [], moon_choice: null, result: null };
    hands.push(hand);
  };

  const finish = () => {
    const held = [[], [], [], []];
    for (const p of hand.plays) held[p.seat].push(p.card);
    hand.held = held.map(sortHand); // after the pass
    hand.dealt = held.map((cards, seat) => {
      if (spades || hand.pass_direction === "hold") return sortHand(cards);
      const from = (seat - OFFSET[hand.pass_direction] + 4) % 4;
      const received = hand.passes[from] || [];
      return sortHand([...cards.filter((c) => !received.includes(c)), ...(hand.passes[seat] || [])]);
    });
    hand.received = [0, 1, 2, 3].map((seat) => spades || hand.pass_direction === "hold" ? []
      : hand.passes[(seat - OFFSET[hand.pass_direction] + 4) % 4] || []);
    const tricksWon = [0, 0, 0, 0];
    const taken = [[], [], [], []];
    for (const t of hand.tricks) { tricksWon[t.winner] += 1; taken[t.winner].push(...t.plays.map((p) => p.card)); }
    hand.tricks_won = tricksWon;
    if (spades) {
      const bids = hand.bids.map((b) => b ?? 0);
      const sides = spadesScore(rules, bids, hand.blind, tricksWon, scores, bags);
      sides.forEach((s) => { scores[s.side] = s.score; bags[s.side] = s.bags_total; });
      hand.result = { dealer: hand.dealer, bids, blind: hand.blind, tricks_won: tricksWon, sides, scores: [...scores] };
    } else {
      const takenPoints = taken.map((cards) => heartsPoints(rules, cards));
      const pointCards = (cards) => cards.filter((c) => c[1] === "H" || c === "QS").length;
      const shooter = [0, 1, 2, 3].find((s) => pointCards(taken[s]) === 14);
      let points = [...takenPoints];
      let choice = null;
      if (shooter !== undefined) {
        choice = hand.moon_choice || ((rules.moon || "add_to_others") === "subtract_from_shooter" ? "subtract" : "add");
        const jack = taken.map((cards) => (rules.jack_of_diamonds && cards.includes("JD") ? rules.jack_value ?? -10 : 0));
        points = [0, 1, 2, 3].map((s) => (choice === "add" && s !== shooter ? 26 : choice === "subtract" && s === shooter ? -26 : 0) + jack[s]);
      }
      points.forEach((p, s) => { scores[s] += p; });
      hand.result = { dealer: hand.dealer, pass_direction: hand.pass_direction, taken: takenPoints,
        moon: shooter ?? null, moon_choice: choice, points, scores: [...scores] };
    }
  };

  for (const a of record.actions || []) {
    if (!hand || (hand.plays.length === 52 && a.type !== "moon")) {
      if (hand) finish();
      open();
    }
    if (a.type === "bid") { hand.bids[a.seat] = a.value; hand.blind[a.seat] = !!a.blind; }
    else if (a.type === "pass") hand.passes[a.seat] = a.cards;
    else if (a.type === "moon") hand.moon_choice = a.choice;
    else if (a.type === "play") {
      hand.plays.push({ seat: a.seat, card: a.card });
      if (hand.plays.length % 4 === 0) {
        const plays = hand.plays.slice(-4);
        hand.tricks.push({ plays, leader: plays[0].seat, winner: trickWinner(plays, spades) });
      }
    }
  }
  if (hand) {
    if (hand.plays.length === 52) finish();
    else hands.pop(); // an abandoned game's unfinished hand: not every card is known
  }
  return { hands, scores };
}

// -- the page ---------------------------------------------------------------------------

export function mount(main, ctx, params) {
  const root = h("section", { class: "review", "aria-label": "Game review" }, h("p", {}, "Loading the game…"));
  fill(main, root);
  let state = null; // {data, hands, handNo, step}
  let mounted = true;

  getJSON(`/api/games/${encodeURIComponent(params.id)}`).then((data) => {
    if (!mounted) return;
    if (!data) {
      fill(root, h("h1", {}, "Game not found"), h("p", {}, "Only finished games can be reviewed."), h("a", { href: "#/" }, "Back to the lobby"));
      return;
    }
    const { hands, scores } = reconstruct(data.record);
    state = { data, hands, scores, handNo: 0, step: 0 };
    render();
  }).catch((err) => fill(root, h("h1", {}, "Could not load the game"), h("p", {}, err.message)));

  const names = () => {
    const raw = [0, 1, 2, 3].map((s) => state.data.seats?.find((x) => x.seat === s)?.name || SEAT_NAMES[s]);
    // Robots share a name: tell them apart by seat.
    return raw.map((n, s) => (raw.filter((x) => x === n).length > 1 ? `${n} (${SEAT_NAMES[s][0]})` : n));
  };

  function go(delta) {
    const { hands } = state;
    let { handNo, step } = state;
    step += delta;
    if (step > 13) { if (handNo < hands.length - 1) { handNo += 1; step = 0; } else step = 13; }
    if (step < 0) { if (handNo > 0) { handNo -= 1; step = 13; } else step = 0; }
    Object.assign(state, { handNo, step });
    render();
  }

  function seatBox(hand, seat, step) {
    const n = names();
    const played = new Set(hand.tricks.slice(0, step).flatMap((t) => t.plays.map((p) => p.card)));
    const cards = (step === 0 && hand.pass_direction && hand.pass_direction !== "hold" ? hand.dealt : hand.held)[seat];
    const spades = state.data.record.game === "spades";
    const won = hand.tricks.slice(0, step).filter((t) => t.winner === seat).length;
    const bid = hand.bids[seat];
    return h("div", { class: `review-seat pos-${POSITIONS[seat]}`, "data-seat": seat },
      h("div", { class: "seat-name" }, h("span", { class: "dir" }, SEAT_NAMES[seat][0]), h("span", { class: "nm" }, n[seat]),
        state.data.seats?.[seat]?.kind === "robot" ? h("span", { class: "badge robot" }, "robot") : null,
        hand.dealer === seat ? h("span", { class: "badge dealer", title: "Dealer" }, "D") : null),
      h("div", { class: "seat-stats" },
        spades ? h("span", {}, bid === 0 ? (hand.blind[seat] ? "blind nil" : "nil") : `bid ${bid}`) : null,
        h("span", {}, `won ${won}`),
        !spades && hand.passes[seat] ? h("span", { class: "hint" }, `passed ${hand.passes[seat].map(cardShort).join(" ")}`) : null),
      h("div", { class: "mini-hand", "aria-label": `${n[seat]}'s cards` },
        cards.map((c) => cardEl(c, { cls: `mini${played.has(c) ? " gone" : ""}${step === 0 && hand.received[seat]?.includes(c) ? " received" : ""}` }))));
  }

  function render() {
    const { data, hands, handNo, step } = state;
    const n = names();
    const result = data.result || {};
    const game = data.record.game;
    if (!hands.length) {
      fill(root, h("h1", {}, "Game review"), h("p", {}, "This game ended before a hand was finished."));
      return;
    }
    const hand = hands[handNo];
    const trick = step > 0 ? hand.tricks[step - 1] : null;
    const winners = (result.winners || []).map((s) => n[s]);
    const ratings = data.ratings || data.rating_changes || result.ratings || [];
    const matches = JSON.stringify(state.scores) === JSON.stringify(result.scores);
    fill(root,
      h("header", { class: "review-head" },
        h("h1", {}, `${game === "hearts" ? "Hearts" : "Spades"} game review`),
        h("p", { class: "hint" }, [data.room, data.id, data.finished ? new Date(data.finished * 1000).toLocaleString() : null].filter(Boolean).join(" · ")),
        h("p", {}, "Final scores: ", game === "spades"
          ? `${n[0]} & ${n[2]} ${result.scores?.[0]} · ${n[1]} & ${n[3]} ${result.scores?.[1]}`
          : (result.scores || []).map((sc, s) => `${n[s]} ${sc}`).join(" · "),
        winners.length ? h("b", {}, ` · won by ${winners.join(" and ")}`) : null),
        matches ? null : h("p", { class: "hint" }, "(Scores worked out here differ from the stored result; the stored result counts.)")),
      h("nav", { class: "review-controls", "aria-label": "Step through the game" },
        h("button", { type: "button", class: "prev", onclick: () => go(-1), disabled: handNo === 0 && step === 0 ? true : null }, "◀ Previous"),
        h("span", { class: "where", "aria-live": "polite" },
          `Hand ${handNo + 1} of ${hands.length} · `, step === 0 ? "the deal" : `trick ${step} of 13`),
        h("button", { type: "button", class: "next primary", onclick: () => go(1),
          disabled: handNo === hands.length - 1 && step === 13 ? true : null }, "Next ▶")),
      h("div", { class: "hand-picker", role: "group", "aria-label": "Hands" }, hands.map((_, i) =>
        h("button", { type: "button", class: "small", "aria-pressed": String(i === handNo),
          onclick: () => { Object.assign(state, { handNo: i, step: 0 }); render(); } }, `Hand ${i + 1}`))),
      h("div", { class: "review-board" },
        [0, 1, 2, 3].map((seat) => seatBox(hand, seat, step)),
        h("div", { class: "review-center" }, trick
          ? [h("div", { class: "trick" }, trick.plays.map((p) => h("div", { class: `played pos-${POSITIONS[p.seat]}${p.seat === trick.winner ? " winner" : ""}` },
            cardEl(p.card), h("span", { class: "played-by" }, n[p.seat])))),
          h("p", { class: "center-caption" }, `${n[trick.leader]} led; ${n[trick.winner]} won`)]
          : h("p", { class: "center-caption" }, game === "spades" ? `${n[(hand.dealer + 1) % 4]} leads` :
            hand.pass_direction === "hold" ? "No pass this hand" : `Passing ${hand.pass_direction}`))),
      scoreSheet(game, hands.map((x) => x.result).slice(0, handNo + (step === 13 ? 1 : 0)), n,
        { target: data.record.rules?.target, current: step === 13 ? handNo : undefined }),
      ratings.length ? h("section", { class: "ratings" }, h("h2", {}, "Rating changes"), h("ul", {}, ratings.map(ratingChange))) : null);
  }

  const keys = (e) => {
    if (!state || e.target.closest?.("input, textarea, select")) return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(-1); }
  };
  document.addEventListener("keydown", keys);
  return { unmount() { mounted = false; document.removeEventListener("keydown", keys); } };
}

// Game review: any finished game from /api/games/<id>, hand by hand and trick by trick.
//
// The server replays the record through the engine and sends each hand's deal,
// bids or passes, all tricks with their winners and the hand's scoring
// (`hands`, docs/api.md), so the review shows exactly what the engine did.
// This module only arranges it for stepping through.

import { t, date, list } from "./i18n.js";
import { gameName } from "./games.js";
import { h, fill } from "./dom.js";
import { SEAT_NAMES, sortHand, cardShort } from "./cards.js";
import { cardEl } from "./cardface.js";
import { getJSON } from "./net.js";
import { heartsPlaces, scoreSheet, ratingList } from "./scoresheet.js";
import { analysisPanel, dealNotes, trickNotes } from "./analysis.js";
import { count } from "./counts.js";

const OFFSET = { left: 1, across: 2, right: 3, hold: 0 };
// Seen from one seat, as at the table: that seat at the bottom, the next one (in play
// order) on the left. A player sees their own games from their seat; others from South's.
const POSITIONS = ["bottom", "left", "top", "right"];

/** The record's hands in the shape the page steps through. */
export function handsOf(data) {
  const rules = data.record?.rules || {};
  const spades = data.game === "spades" || data.record?.game === "spades";
  const cycle = rules.pass_cycle || ["left", "right", "across", "hold"];
  return (data.hands || []).map((raw, i) => {
    const no = raw.hand ?? i;
    const bids = [null, null, null, null], blind = [false, false, false, false];
    const whys = [null, null, null, null]; // a robot's whole reason for its bid (the table heard only how it chose)
    const passes = [null, null, null, null];
    for (const a of raw.actions || []) {
      if (a.type === "bid") { bids[a.seat] = a.value; blind[a.seat] = !!a.blind; whys[a.seat] = a.why || null; }
      if (a.type === "pass") passes[a.seat] = a.cards;
    }
    const direction = spades ? null : raw.result?.pass_direction || cycle[no % cycle.length];
    const from = (seat) => (seat - OFFSET[direction || "hold"] + 4) % 4;
    const received = [0, 1, 2, 3].map((seat) => (direction && direction !== "hold" ? passes[from(seat)] || [] : []));
    const dealt = raw.dealt.map(sortHand);
    const held = dealt.map((cards, seat) => sortHand([...cards.filter((c) => !(passes[seat] || []).includes(c)), ...received[seat]]));
    const tricks = raw.tricks.map((t) => ({
      plays: t.cards.map((card, k) => ({ seat: (t.leader + k) % 4, card })),
      leader: t.leader, winner: t.seat, points: t.points,
    }));
    let result = null;
    if (raw.result) { const { type, hand, ...rest } = raw.result; result = rest; }
    return { no, dealer: raw.dealer, bids, blind, whys, passes, pass_direction: direction, dealt, held, received, tricks, result };
  });
}

// -- the page ---------------------------------------------------------------------------

/** Hearts' final scores in finishing order, each with its place, as the rating changes
 *  below them are listed: "bob 30 (won) · ann 50 (2nd) · ...". */
function heartsFinal(scores, names) {
  const places = heartsPlaces(scores);
  return [0, 1, 2, 3].filter((s) => scores[s] != null).sort((a, b) => scores[a] - scores[b])
    .map((s) => t("review.final_player", { name: names[s], score: scores[s], place: places[s] })).join(" · ");
}

export function mount(main, ctx, params) {
  const root = h("section", { class: "review", "aria-label": t("review.label") }, h("p", {}, t("review.loading")));
  fill(main, root);
  let state = null; // {data, hands, handNo, step}
  let mounted = true;
  let analysis = null; // the robots' analysis, once the server has it (analysis.js)
  let panel = null;
  let bestLine = null; // the decision whose best line is shown
  // A duplicate room's game, its board set complete: the same deals at the set's other
  // tables, [{slot, data, hands}], shown beside this table's play of each deal.
  const others = [];

  getJSON(`/api/games/${encodeURIComponent(params.id)}`).then((data) => {
    if (!mounted) return;
    if (!data) {
      fill(root, h("h1", {}, t("review.not_found")), h("p", {}, t("review.only_finished")), h("a", { href: "#/" }, t("table.back_to_lobby_long")));
      return;
    }
    const mine = data.seats?.find((x) => x.name && x.name === ctx.me?.name)?.seat;
    state = { data, hands: handsOf(data), handNo: 0, step: 0, from: mine ?? 2 };
    panel = analysisPanel(ctx, data.id, names, (found) => { analysis = found; if (mounted) render(); });
    render();
    for (const other of data.board?.games || []) {
      if (other.slot === data.board.slot || !other.game_id) continue;
      getJSON(`/api/games/${encodeURIComponent(other.game_id)}`).then((found) => {
        if (!found || !mounted) return;
        others.push({ slot: other.slot, data: found, hands: handsOf(found) });
        others.sort((a, b) => a.slot - b.slot);
        render();
      }).catch(() => {});
    }
  }).catch((err) => fill(root, h("h1", {}, t("review.load_failed")), h("p", {}, err.message)));

  const names = () => {
    const raw = [0, 1, 2, 3].map((s) => state.data.seats?.find((x) => x.seat === s)?.name || SEAT_NAMES[s]);
    // Robots share a name: tell them apart by seat.
    return raw.map((n, s) => (raw.filter((x) => x === n).length > 1 ? t("seat.name_initial", { name: n, initial: SEAT_NAMES[s][0] }) : n));
  };

  function go(delta) {
    const { hands } = state;
    let { handNo, step } = state;
    const last = (n) => hands[n].tricks.length;
    step += delta;
    if (step > last(handNo)) { if (handNo < hands.length - 1) { handNo += 1; step = 0; } else step = last(handNo); }
    if (step < 0) { if (handNo > 0) { handNo -= 1; step = last(handNo); } else step = 0; }
    Object.assign(state, { handNo, step });
    render();
  }

  const posOf = (seat) => POSITIONS[(seat - state.from + 4) % 4];

  function seatBox(hand, seat, step) {
    const n = names();
    const played = new Set(hand.tricks.slice(0, step).flatMap((t) => t.plays.map((p) => p.card)));
    const cards = (step === 0 && hand.pass_direction && hand.pass_direction !== "hold" ? hand.dealt : hand.held)[seat];
    const spades = state.data.record.game === "spades";
    const won = hand.tricks.slice(0, step).filter((t) => t.winner === seat).length;
    const bid = hand.bids[seat];
    return h("div", { class: `review-seat pos-${posOf(seat)}`, "data-seat": seat },
      h("div", { class: "seat-name" }, h("span", { class: "dir" }, SEAT_NAMES[seat][0]), h("span", { class: "nm" }, n[seat]),
        state.data.seats?.[seat]?.kind === "robot" ? h("span", { class: "badge robot" }, t("badge.robot")) : null,
        hand.dealer === seat ? h("span", { class: "badge dealer", title: t("badge.dealer") }, t("badge.dealer_short")) : null),
      h("div", { class: "seat-stats" },
        spades ? h("span", hand.whys?.[seat] ? { title: hand.whys[seat] } : {}, bid === 0 ? (hand.blind[seat] ? t("seat.blind_nil") : t("seat.nil")) : t("seat.bid", { n: bid })) : null,
        h("span", {}, t("seat.won", { n: won })),
        !spades && hand.passes[seat] ? h("span", { class: "hint" }, t("review.passed", { cards: hand.passes[seat].map(cardShort).join(" ") })) : null),
      spades && step === 0 && hand.whys?.[seat] ? h("div", { class: "hint bid-why" }, t("review.why", { why: hand.whys[seat] })) : null,
      h("div", { class: "mini-hand", role: "group", "aria-label": t("review.cards_of", { name: n[seat] }) },
        cards.map((c) => cardEl(c, { cls: `mini${played.has(c) ? " gone" : ""}${step === 0 && hand.received[seat]?.includes(c) ? " received" : ""}` }))));
  }

  /** What one table made of our seat's (or side's) cards on a deal: who held them there,
   *  the points and the tricks. `shift`: that table's seats are ours this many places on. */
  function madeAt(table, hand, seat, shift) {
    const game = state.data.record.game;
    const there = (seat - shift + 4) % 4;
    const seatsThere = game === "spades" ? [there, (there + 2) % 4] : [there];
    const who = seatsThere.map((x) => table.seats?.find((y) => y.seat === x)?.name || SEAT_NAMES[x]);
    const points = game === "spades" ? hand.result?.sides?.[there % 2]?.points : hand.result?.points?.[there];
    const tricks = hand.tricks.filter((tr) => seatsThere.includes(tr.winner)).length;
    return t("field.scored", { who: game === "spades" ? t("side.names", { a: who[0], b: who[1] }) : who[0],
      points: points ?? "", tricks: count(tricks, "trick") });
  }

  /** The deal at every table of the set, side by side: our table's and the others'. */
  function fieldSection(handNo) {
    const { data, hands } = state;
    if (!others.length) return null;
    const game = data.record.game;
    const me = data.board.slot;
    const positions = game === "spades" ? [0, 1] : [0, 1, 2, 3];
    return h("section", { class: "review-field", "aria-labelledby": "review-field-h" },
      h("h2", { id: "review-field-h" }, t("review.field_title", { n: handNo + 1 })),
      h("table", { class: "field-table" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("field.cards")),
          h("th", { scope: "col" }, t("review.field_table", { n: me + 1 })),
          others.map((o) => h("th", { scope: "col" }, t("review.field_table", { n: o.slot + 1 }))))),
        h("tbody", {}, positions.map((seat) => h("tr", {},
          h("th", { scope: "row" }, game === "spades" ? (seat === 0 ? t("side.ns") : t("side.ew")) : SEAT_NAMES[seat]),
          h("td", {}, madeAt(data, hands[handNo], seat, 0)),
          others.map((o) => h("td", {}, o.hands[handNo] ? madeAt(o.data, o.hands[handNo], seat, o.slot - me) : "–")))))));
  }

  function render() {
    const { data, hands, handNo, step } = state;
    const n = names();
    const result = data.result || {};
    const game = data.record.game;
    if (!hands.length) {
      fill(root, h("h1", {}, t("review.label")), h("p", {}, t("review.no_hand")));
      return;
    }
    const hand = hands[handNo];
    const trick = step > 0 ? hand.tricks[step - 1] : null;
    const winners = (result.winners || []).map((s) => n[s]);
    const ratings = data.ratings || [];
    const tricks = hand.tricks.length;
    fill(root,
      h("header", { class: "review-head" },
        h("h1", {}, t("review.title", { game: gameName(game) })),
        h("p", { class: "hint" }, [data.room, data.id, data.finished ? date(data.finished * 1000, { dateStyle: "medium", timeStyle: "short" }) : null].filter(Boolean).join(" · ")),
        h("p", {}, t("review.final"), " ", game === "spades"
          ? t("review.final_spades", { ns: t("side.names", { a: n[0], b: n[2] }), ns_score: result.scores?.[0] ?? "",
            ew: t("side.names", { a: n[1], b: n[3] }), ew_score: result.scores?.[1] ?? "" })
          : heartsFinal(result.scores || [], n),
        winners.length ? h("b", {}, " · ", t("review.won_by", { names: list(winners) })) : null),
        result.finished === false ? h("p", { class: "hint" }, t("review.ended_early")) : null),
      h("nav", { class: "review-controls", "aria-label": t("review.step") },
        h("button", { type: "button", class: "prev", onclick: () => go(-1), disabled: handNo === 0 && step === 0 ? true : null }, t("review.previous")),
        // Of a fixed width (two lines on a phone): the buttons beside it never move.
        h("span", { class: "where", "aria-live": "polite" },
          h("span", {}, t("review.hand_of", { n: handNo + 1, of: hands.length })), h("span", { class: "where-sep" }, " · "),
          h("span", {}, step === 0 ? t("review.the_deal") : tricks === 13 ? t("review.trick_of", { n: step, of: 13 })
            : t("review.trick_of_played", { n: step, of: tricks }))),
        h("button", { type: "button", class: "next primary", onclick: () => go(1),
          disabled: handNo === hands.length - 1 && step === tricks ? true : null }, t("review.next"))),
      h("div", { class: "hand-picker", role: "group", "aria-label": t("review.hands") }, hands.map((_, i) =>
        h("button", { type: "button", class: "small", "aria-pressed": String(i === handNo),
          onclick: () => { Object.assign(state, { handNo: i, step: 0 }); render(); } }, t("review.hand", { n: i + 1 })))),
      h("div", { class: "seen-from", role: "group", "aria-label": t("review.seen_from") },
        h("span", { class: "hint" }, t("review.seen_from")), " ", [0, 1, 2, 3].map((seat) =>
          h("button", { type: "button", class: "small", "aria-pressed": String(seat === state.from),
            onclick: () => { state.from = seat; render(); } }, `${SEAT_NAMES[seat]} · ${n[seat]}`))),
      h("div", { class: "review-board" },
        [0, 1, 2, 3].map((seat) => seatBox(hand, seat, step)),
        h("div", { class: "review-center" }, trick
          ? [h("div", { class: "trick" }, trick.plays.map((p) => h("div", { class: `played pos-${posOf(p.seat)}${p.seat === trick.winner ? " winner" : ""}` },
            cardEl(p.card), h("span", { class: "played-by" }, n[p.seat])))),
          h("p", { class: "center-caption" }, t("review.led_won", { leader: n[trick.leader], winner: n[trick.winner] })),
          trickNotes(analysis, handNo, trick, names, bestLine, (index) => { bestLine = bestLine === index ? null : index; render(); })]
          : [h("p", { class: "center-caption" }, game === "spades" ? t("review.leads", { name: n[(hand.dealer + 1) % 4] }) :
            hand.pass_direction === "hold" ? t("review.no_pass") : t("review.passing", { direction: hand.pass_direction })),
          dealNotes(analysis, handNo, names)])),
      scoreSheet(game, hands.map((x) => x.result).slice(0, handNo + (step === tricks ? 1 : 0)).filter(Boolean), n,
        { target: data.record.rules?.target, current: step === tricks ? handNo : undefined }),
      fieldSection(handNo),
      ratings.length ? h("section", { class: "ratings" }, h("h2", {}, t("over.rating_changes")), h("ul", {}, ratingList(ratings,
        { game, scores: result.scores, seatOf: (player) => n.indexOf(player) }))) : null,
      panel?.el ?? null);
  }

  const keys = (e) => {
    if (!state || e.target.closest?.("input, textarea, select")) return;
    if (e.key === "ArrowRight") { e.preventDefault(); go(1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); go(-1); }
  };
  document.addEventListener("keydown", keys);
  return { unmount() { mounted = false; panel?.stop(); document.removeEventListener("keydown", keys); } };
}

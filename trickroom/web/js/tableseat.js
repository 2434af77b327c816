// A seat around the felt, drawn from the table's state: its name and badges, its bid
// and tricks (Spades) or points taken (Hearts), the scoring cards it holds, its clock,
// and a button to sit when the seat may be taken.

import { t } from "./i18n.js";
import { h, fill, seconds, points } from "./dom.js";
import { SEAT_NAMES, cardName } from "./cards.js";
import { cardEl } from "./cardface.js";
import { placeOf, robotPlays } from "./tableselectors.js";
import { count } from "./counts.js";

export const PLACES = ["bottom", "left", "top", "right"]; // placeOf's numbers, as CSS names them

/** The seat's name; a player who left an unfinished or finished game keeps theirs. */
function seatLabel(state, seat, info) {
  if (info?.kind !== "empty") return info?.name || SEAT_NAMES[seat];
  if (state.view && state.view.hand_no >= 0 && state.names[seat]) return t("seat.left", { name: state.names[seat] });
  return t("seat.empty_seat");
}

/** Hearts: the scoring cards this seat has taken this hand, as the server counted them. */
function penaltyCards(state, seat) {
  const v = state.view;
  if (!v || v.game !== "hearts" || v.hand_no < 0) return null;
  const cards = v.tricks.filter((t) => t.seat === seat).flatMap((t) => t.scoring || []);
  if (!cards.length) return null;
  return h("span", { class: "taken", style: { "--n": String(cards.length) },
    "aria-label": t("seat.taken", { cards: cards.map(cardName).join(", ") }) },
    cards.map((c) => cardEl(c, { cls: "mini" })));
}

function stats(state, seat) {
  const v = state.view;
  if (!v || v.hand_no < 0) return [];
  if (v.game === "spades") {
    const bid = v.bids?.[seat];
    const why = bid == null ? null : state.bidWhys[seat];
    return [
      h("span", why ? { class: "bid", title: why } : { class: "bid" },
        bid == null ? t("seat.no_bid") : bid === 0 ? (v.blind?.[seat] ? t("seat.blind_nil") : t("seat.nil")) : t("seat.bid", { n: bid })),
      h("span", { class: "won" }, t("seat.won", { n: v.tricks_won[seat] })),
    ];
  }
  return [
    h("span", { class: "pts" }, points(v.points_taken?.[seat] ?? 0)),
    h("span", { class: "won" }, count(v.tricks_won[seat], "trick")),
    h("span", { class: "total hint" }, t("seat.total", { n: v.scores[seat] })),
  ];
}

/** Whether we may sit here: an empty seat of a waiting table (unless the room draws the
 *  seats), or a WoCG seat open to a substitute. */
function canSit(state, seat) {
  const info = state.info;
  if (state.seat != null || !info) return false;
  if (info.state === "waiting") return info.seats?.[seat]?.kind === "empty" && info.seating !== "random_seating";
  return info.state === "playing" && state.openSeats.includes(seat);
}

/** Draw `seat` into `el` as the state has it at `now`; `sit(seat)` takes it, and
 *  `takeBack()` takes back our own seat a robot plays while we watch it
 *  (`mineToTakeBack(seat)`: another window of ours had it, and has closed). */
export function drawSeat(el, state, seat, now, { sit, mineToTakeBack, takeBack }) {
  const info = state.info?.seats?.[seat];
  const v = state.view;
  const turn = v && (v.phase === "pass" ? !v.pass_chosen?.[seat] : v.to_act === seat);
  // A robot (or the robot playing for an away player) moves in a moment: no gold ring and
  // no 30 s clock for it, which would only alarm.
  const clocked = turn && !robotPlays(state, seat);
  el.className = `seat pos-${PLACES[placeOf(state, seat)]}${clocked ? " turn" : ""}${seat === state.seat ? " me" : ""}${info?.away ? " away" : ""}`;
  el.dataset.seat = seat;
  const badges = [];
  if (info?.bot) badges.push(h("span", { class: "badge bot", title: t("badge.bot_title") }, t("badge.bot")));
  if (info?.kind === "robot") badges.push(h("span", { class: "badge robot", title: info.robot_level ? t("badge.robot_level", { level: info.robot_level }) : t("badge.robot") }, t("badge.robot")));
  if (info?.away) badges.push(h("span", { class: "badge away", title: t("badge.away_title") }, t("badge.away_playing")));
  if (v && v.hand_no >= 0 && v.dealer === seat) badges.push(h("span", { class: "badge dealer", title: t("badge.dealer") }, t("badge.dealer_short")));
  const numbers = stats(state, seat);
  const left = clocked && state.countdown?.seat === seat && state.countdown.deadline
    ? (state.countdown.deadline - now) / 1000 : null;
  const label = seatLabel(state, seat, info);
  // Two lines whatever the names and the cards taken: the name (cut with an ellipsis, whole
  // in its tooltip) with its badges, then the numbers, the scoring cards and the clock.
  fill(el,
    h("div", { class: "seat-name" }, h("span", { class: "dir", "aria-hidden": "true" }, SEAT_NAMES[seat][0]),
      h("span", { class: "nm", title: label }, label),
      seat === state.seat ? [" ", h("span", { class: "you" }, t("seat.you_mark"))] : null,
      badges.length ? h("span", { class: "badges" }, badges) : null),
    h("div", { class: "seat-stats" }, numbers,
      penaltyCards(state, seat),
      left != null && v.phase !== "pass" ? h("span", { class: `timer ${left < 8 ? "low" : ""}` }, t("time.left", { time: seconds(left) })) : null,
      v && v.phase === "pass" && v.pass_chosen?.[seat] ? h("span", { class: "hint" }, t("seat.passed")) : null),
    // A robot's reason for its bid, under the seat while the bidding lasts (then its tooltip).
    v && v.game === "spades" && v.phase === "bid" && v.bids?.[seat] != null && state.bidWhys[seat]
      ? h("div", { class: "hint bid-why" }, state.bidWhys[seat]) : null,
    canSit(state, seat) ? h("button", { type: "button", class: "small", onclick: () => sit(seat) },
      state.info?.state === "playing" ? t("seat.substitute") : t("seat.sit_here")) : null,
    mineToTakeBack?.(seat) ? takeBackButton(el, takeBack) : null);
  el.setAttribute("aria-label", t("seat.label", { seat: SEAT_NAMES[seat], name: info?.name || t("seat.empty"),
    bot: info?.bot ? "yes" : "no", turn: turn ? "yes" : "no" }));
}

/** The seat's "Take my seat back" button: one element kept across draws (a robot playing
 *  the seat redraws it at each move, and a button made anew each time slipped from under
 *  the pointer between press and release). */
function takeBackButton(el, takeBack) {
  el.takeBack = takeBack;
  el.takeBackButton ??= h("button", { type: "button", class: "small primary",
    onclick: () => el.takeBack?.() }, t("seat.take_back"));
  return el.takeBackButton;
}

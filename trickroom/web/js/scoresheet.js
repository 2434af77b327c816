// The score sheet: one row per hand, as the engine scored it (a hand_scored
// event, a view's hand_results, or the review's own replay; the same shape).

import { t, num, signed } from "./i18n.js";
import { h, fill } from "./dom.js";
import { SEAT_NAMES } from "./cards.js";
import { place } from "./counts.js";

const total = (n) => num(n).replace("-", "−"); // one minus sign on the whole sheet

export function sideName(names, side) {
  return t("side.named", { side: side ? t("side.ew_short") : t("side.ns_short"),
    names: t("side.names", { a: names[side] || SEAT_NAMES[side], b: names[side + 2] || SEAT_NAMES[side + 2] }) });
}

function spadesCell(sideScore, result, side) {
  const seats = [side, side + 2];
  const nils = seats.filter((s) => result.bids?.[s] === 0)
    .map((s) => t(result.blind?.[s] ? "sheet.blind_nil" : "sheet.nil", { made: result.tricks_won?.[s] === 0 ? "yes" : "no" }));
  const notes = [];
  if (sideScore.nil_points) notes.push(t("sheet.nil_points", { points: signed(sideScore.nil_points) }));
  if (sideScore.bag_penalty) notes.push(t("sum.bag_penalty", { points: signed(sideScore.bag_penalty) }));
  return h("td", {},
    h("div", {}, nils.length ? t("sheet.bid_nils_took", { bid: sideScore.contract, nils: nils.join(", "), took: sideScore.tricks })
      : t("sum.bid_took", { bid: sideScore.contract, took: sideScore.tricks }),
      sideScore.made === false ? [" ", h("span", { class: "set" }, t("sheet.set"))] : null),
    h("div", { class: "pts" }, h("b", {}, signed(sideScore.points)), ` → ${total(sideScore.score)}`,
      h("span", { class: "hint" }, " · ", t("sheet.bags", { n: sideScore.bags_total }))),
    notes.length ? h("div", { class: "hint" }, notes.join(" · ")) : null);
}

/** A score sheet table for `game` ("spades" | "hearts") from hand results. */
export function scoreSheet(game, results, names, { target, current } = {}) {
  if (game === "spades") {
    return h("table", { class: "sheet spades" },
      h("caption", {}, target ? t("sheet.caption_to", { target }) : t("sheet.caption")),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.hand")),
        h("th", { scope: "col" }, sideName(names, 0)), h("th", { scope: "col" }, sideName(names, 1)))),
      h("tbody", {}, results.length ? results.map((r, i) => h("tr", { class: i === current ? "current" : null },
        h("th", { scope: "row" }, num(i + 1)), spadesCell(r.sides[0], r, 0), spadesCell(r.sides[1], r, 1)))
        : h("tr", {}, h("td", { colspan: 3, class: "hint" }, t("sheet.none")))));
  }
  let totals = [0, 0, 0, 0];
  return h("table", { class: "sheet hearts" },
    h("caption", {}, target ? t("sheet.caption_to_low", { target }) : t("sheet.caption")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("sheet.hand")),
      [0, 1, 2, 3].map((s) => h("th", { scope: "col" }, t("seat.initial_name", { initial: SEAT_NAMES[s][0], name: names[s] || SEAT_NAMES[s] }))))),
    h("tbody", {}, results.length ? results.map((r, i) => {
      totals = r.scores || totals.map((t, s) => t + r.points[s]);
      return h("tr", { class: i === current ? "current" : null },
        h("th", { scope: "row" }, num(i + 1), h("div", { class: "hint" }, r.pass_direction === "hold" ? t("pass.none") : t("pass.short", { direction: r.pass_direction }))),
        [0, 1, 2, 3].map((s) => h("td", {},
          h("b", {}, signed(r.points[s])), ` → ${total(totals[s])}`,
          r.moon === s ? h("div", { class: "hint" }, t("sum.shot_moon")) : null)));
    }) : h("tr", {}, h("td", { colspan: 5, class: "hint" }, t("sheet.none")))));
}

/** Hearts: each seat's place by its final score, lowest first: "won" for a winner alone,
 *  "2nd", "3rd", "4th", and "tied 2nd" for a shared place (a Hearts "loss" is every place
 *  but first, so the rating system's won/lost would call a gain in 2nd place "lost"). */
export function heartsPlaces(scores) {
  return scores.map((score) => {
    const rank = 1 + scores.filter((x) => x < score).length;
    const tied = scores.filter((x) => x === score).length > 1;
    if (rank === 1 && !tied) return t("result.won");
    return tied ? t("result.tied_place", { place: place(rank) }) : place(rank);
  });
}

/** The rating changes in the order the results list the players, each labelled as they
 *  are: in Hearts by finishing place (lowest score first, the seat order among ties, as
 *  the score table sorts them); in Spades as the server sent them. `seatOf(player)` is
 *  the seat a change's player finished in (-1 or undefined when none: listed last). */
export function ratingList(changes, { game, scores, seatOf }) {
  if (game !== "hearts" || !scores?.length) return changes.map((change) => ratingChange(change));
  const places = heartsPlaces(scores);
  const seat = (change) => { const s = seatOf(change.player); return s == null || s < 0 ? null : s; };
  const key = (change) => (seat(change) == null ? Infinity : scores[seat(change)]);
  return [...changes].sort((a, b) => key(a) - key(b))
    .map((change) => ratingChange(change, seat(change) == null ? null : places[seat(change)]));
}

/** A rating change with its breakdown ("how the points were calculated"). `label` says the
 *  result in place of the change's own outcome (a Hearts place: "2nd", not "lost"). */
export function ratingChange(change, label = null) {
  // before/after are {value, sigma} on the wire (plain numbers are accepted too).
  const value = (x) => Number(x && typeof x === "object" ? x.value : x);
  const delta = Number(change.delta ?? (value(change.after) - value(change.before)));
  const round = (x) => (Math.abs(x) >= 10 || Number.isInteger(x) ? Math.round(x * 10) / 10 : Math.round(x * 100) / 100);
  const outcome = (change.outcome !== "quit" && label) ||
    ({ win: t("result.won"), loss: t("result.lost"), tie: t("result.tie"), quit: t("result.quit") }[change.outcome]) || change.outcome;
  return h("li", { class: "rating-change" },
    h("div", { class: "rc-head" },
      h("a", { href: `#/player/${encodeURIComponent(change.player)}` }, change.player),
      h("span", { class: `delta ${delta > 0 ? "up" : delta < 0 ? "down" : ""}` }, signed(round(delta))),
      h("span", { class: "hint" }, `${num(round(value(change.before)))} → ${num(round(value(change.after)))}`),
      outcome ? h("span", { class: "hint" }, outcome) : null,
      change.rated === false ? h("span", { class: "badge" }, t("rating.not_rated")) : null),
    change.breakdown?.length ? h("details", {},
      h("summary", {}, t("rating.how")),
      h("table", { class: "breakdown" }, h("tbody", {}, change.breakdown.map((term) =>
        h("tr", {}, h("td", {}, term.text), h("td", { class: "num" }, num(round(Number(term.value)))))))))
      : null);
}

/**
 * A scrolling box for a sheet that grows: its newest hand stays in view. The box
 * scrolls to a new row when one comes, and stays at its end until the player scrolls
 * back to an older hand: when the sheet is drawn again, and when the box is laid out
 * again at another size (a narrower window wraps its rows differently, and a box that
 * fitted its sheet for a moment has lost its place at the end).
 */
export function sheetBox(box) {
  let rows = -1; // the rows last drawn
  let atEnd = true; // the player has not scrolled away from the newest hand
  let touched = false; // the player has scrolled the box (wheel, touch, keys, scrollbar)
  let sheetIn = null; // the sheet drawn, whose size is watched
  const end = () => box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
  const follow = () => { if (atEnd) box.scrollTop = box.scrollHeight; };
  for (const input of ["wheel", "touchstart", "pointerdown", "keydown"]) {
    box.addEventListener(input, () => { touched = true; }, { passive: true });
  }
  // Only the player's scrolling moves the box away from the end; a scroll the layout makes
  // (the box fitted its sheet, and is read once it no longer does) must not.
  box.addEventListener("scroll", () => { if (touched) atEnd = end(); }, { passive: true });
  const resized = new ResizeObserver(follow);
  resized.observe(box);
  return {
    /** Draw `sheet` (a scoreSheet table) of `count` rows in the box. */
    draw(sheet, count) {
      fill(box, sheet);
      if (sheetIn) resized.unobserve(sheetIn);
      resized.observe(sheet);
      sheetIn = sheet;
      if (count !== rows) { atEnd = true; touched = false; }
      rows = count;
      follow();
    },
    /** Something other than a sheet (a note before the first hand). */
    note(el) { fill(box, el); },
    destroy() { resized.disconnect(); },
  };
}

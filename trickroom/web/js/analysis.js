// The robots' analysis of a finished game, in its review (issue 38): asked from here, its
// progress while the server works, then each analysed seat's accuracy and labels, a chart
// of each seat's loss through the game, and, trick by trick, each decision's loss against
// the best choice with "the best line".
//
// The server does the work (analyse; GET /api/games/<id>/analysis: docs/api.md): this
// module only asks, waits and draws.

import { t, num } from "./i18n.js";
import { h, fill } from "./dom.js";
import { cardShort } from "./cards.js";
import { getJSON } from "./net.js";

const POLL_MS = 1000;

/** A decision's action as players read it (a card, a bid, a pass). */
export function actionText(action) {
  if (!action) return "";
  if (action.type === "play") return cardShort(action.card);
  if (action.type === "bid") return action.blind ? t("seat.blind_nil") : action.value === 0 ? t("seat.nil") : t("seat.bid", { n: action.value });
  if (action.type === "look") return t("analysis.look");
  if (action.type === "pass") return action.cards.map(cardShort).join(" ");
  return action.type;
}

/** The analysed decision behind a card played in hand `hand` (by its card), if any. */
export function decisionFor(analysis, hand, card) {
  return analysis?.decisions.find((d) => d.hand === hand && d.phase === "play" && d.chosen.card === card) || null;
}

/** The analysed decisions of a hand's deal, in play order: its bids (a blind nil or a
 *  look among them) and its passes. */
export function dealDecisions(analysis, hand) {
  return analysis?.decisions.filter((d) => d.hand === hand && (d.phase === "bid" || d.phase === "pass")) || [];
}

/** A decision, told in one line: the choice, the best, the loss with its error (a card
 *  "played", a bid or a pass "chosen"). */
export function decisionLine(d, name) {
  if (d.loss === 0 || !d.best || actionText(d.best) === actionText(d.chosen)) {
    return t("analysis.best_choice", { name, choice: actionText(d.chosen) });
  }
  return t(d.phase === "play" ? "analysis.loss_line" : "analysis.chose_line", { name, choice: actionText(d.chosen), best: actionText(d.best),
    loss: num(d.loss, { maximumFractionDigits: 1 }), se: num(d.loss_se, { maximumFractionDigits: 1 }) });
}

/** Each seat's loss added up through the game, as an SVG line a seat. */
function lossChart(analysis, names) {
  const W = 320, H = 120, PAD = 4;
  const seats = analysis.seats.map((s) => s.seat);
  const series = seats.map((seat) => {
    let total = 0;
    return [{ i: 0, v: 0 }, ...analysis.decisions.map((d, i) => { if (d.seat === seat) total += d.loss; return { i: i + 1, v: total }; })];
  });
  const n = analysis.decisions.length || 1;
  const top = Math.max(1, ...series.flat().map((p) => p.v));
  const x = (i) => PAD + (W - 2 * PAD) * i / n;
  const y = (v) => H - PAD - (H - 2 * PAD) * v / top;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "loss-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("analysis.chart_label", { seats: seats.map((s, k) => `${names[s]} ${num(series[k].at(-1).v, { maximumFractionDigits: 0 })}`).join(", ") }));
  seats.forEach((seat, k) => {
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", series[k].map((p) => `${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`).join(" "));
    line.setAttribute("class", `seat-line s${seat}`);
    svg.append(line);
  });
  return svg;
}

/** The analysis section of a review: ask, wait, show. `onReady(analysis)`: the page draws
 *  its tricks' marks once the result is here. */
export function analysisPanel(ctx, gameId, names, onReady) {
  // Its heading from the first moment: until the server says how the analysis stands,
  // a section labelled by a heading not yet there has no name (and is no landmark).
  const el = h("section", { class: "analysis", "aria-labelledby": "analysis-h" },
    h("h2", { id: "analysis-h" }, t("analysis.title")));
  let timer = null;
  let gone = false;

  function summary(analysis) {
    const n = names();
    return [
      h("div", { class: "table-scroll" }, h("table", { class: "analysis-seats" },
        h("thead", {}, h("tr", {}, [t("analysis.player"), t("analysis.accuracy"), t("analysis.inaccuracies"), t("analysis.mistakes"),
          t("analysis.blunders"), t("analysis.points_lost")].map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, analysis.seats.map((s) => h("tr", {},
          h("th", { scope: "row" }, n[s.seat]),
          h("td", { class: "num" }, s.accuracy == null ? "—" : t("analysis.percent", { n: num(s.accuracy, { maximumFractionDigits: 0 }) })),
          h("td", { class: "num" }, num(s.labels.inaccuracy)), h("td", { class: "num" }, num(s.labels.mistake)),
          h("td", { class: "num" }, num(s.labels.blunder)),
          h("td", { class: "num" }, num(s.total_loss, { maximumFractionDigits: 1 }))))))),
      lossChart(analysis, n),
      h("p", { class: "hint" }, t("analysis.method", { samples: analysis.samples, playouts: analysis.playouts })),
    ];
  }

  function draw(found) {
    if (gone) return;
    const head = h("h2", { id: "analysis-h" }, t("analysis.title"));
    if (!found) {
      fill(el, head, h("p", { class: "hint" }, t("analysis.none")),
        ctx.conn ? h("button", { type: "button", class: "primary", "data-action": "analyse", onclick: ask }, t("analysis.ask")) : null);
      return;
    }
    if (found.state === "done") {
      fill(el, head, ...summary(found.analysis));
      onReady(found.analysis);
      return;
    }
    if (found.state === "failed") {
      fill(el, head, h("p", { class: "error" }, t("analysis.failed")),
        h("button", { type: "button", "data-action": "analyse", onclick: ask }, t("analysis.ask_again")));
      return;
    }
    fill(el, head, h("p", { "aria-live": "polite" }, found.state === "queued" ? t("analysis.queued")
      : t("analysis.running", { done: found.done, total: found.total })),
    h("progress", { max: String(found.total || 1), value: String(found.done || 0), "aria-label": t("analysis.progress") }));
    timer = setTimeout(load, POLL_MS);
  }

  async function load() {
    try { draw(await getJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`)); } catch (err) {
      fill(el, h("h2", { id: "analysis-h" }, t("analysis.title")), h("p", { class: "error" }, err.message));
    }
  }

  async function ask() {
    try {
      const status = await ctx.conn.request({ type: "analyse", game_id: gameId });
      draw({ ...status, analysis: null, ...(status.state === "done" ? await getJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`) : {}) });
    } catch (err) {
      fill(el, h("h2", { id: "analysis-h" }, t("analysis.title")), h("p", { class: "error" }, err.message));
    }
  }

  load();
  return { el, stop() { gone = true; clearTimeout(timer); } };
}

/** One decision's line in a list: its label, the line, the all-seeing best. */
function noteItem(d, n, ...more) {
  return h("li", { class: d.label ? `label-${d.label}` : null },
    d.label ? h("span", { class: `badge decision ${d.label}` }, t(`analysis.label.${d.label}`)) : null, " ",
    decisionLine(d, n[d.seat]),
    d.seeing_best && d.seeing_loss > 0 ? h("span", { class: "hint" }, " ", t("analysis.seeing", { best: actionText(d.seeing_best) })) : null,
    ...more);
}

/** Under a trick: each analysed card's line, its label, and its best line on request. */
export function trickNotes(analysis, hand, trick, names, shown, toggle) {
  if (!analysis || !trick) return null;
  const n = names();
  const notes = trick.plays.map((p) => decisionFor(analysis, hand, p.card)).filter(Boolean);
  if (!notes.length) return null;
  return h("ul", { class: "decision-notes" }, notes.map((d) => noteItem(d, n,
    d.best_line?.length && d.loss > 0 ? h("button", { type: "button", class: "small", "aria-pressed": String(shown === d.index),
      onclick: () => toggle(d.index) }, t("analysis.best_line")) : null,
    shown === d.index ? h("span", { class: "best-line" }, " ", d.best_line.map(cardShort).join(" ")) : null)));
}

/** At a hand's deal: each analysed seat's accuracy over the hand, and each analysed bid
 *  (blind nil or look) and pass, with its label. */
export function dealNotes(analysis, hand, names) {
  if (!analysis) return null;
  const n = names();
  const notes = dealDecisions(analysis, hand);
  const accuracy = analysis.seats.map((s) => [s.seat, s.hands?.find((x) => x.hand === hand)?.accuracy])
    .filter(([, a]) => a != null);
  if (!notes.length && !accuracy.length) return null;
  return h("div", { class: "deal-analysis" },
    accuracy.length ? h("p", { class: "hand-accuracy" }, t("analysis.hand_accuracy", {
      seats: accuracy.map(([seat, a]) => `${n[seat]} ${t("analysis.percent", { n: num(a, { maximumFractionDigits: 0 }) })}`).join(" · ") })) : null,
    notes.length ? h("ul", { class: "decision-notes deal-notes" }, notes.map((d) => noteItem(d, n))) : null);
}

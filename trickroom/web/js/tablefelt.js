// The middle of the felt, drawn from the table's state: the trick (its led card tagged,
// its winner ringed, then sliding to the winner), the last trick on request, the
// waiting table's note, the dialog of our turn or the summary of the hand just scored,
// and in Hearts the cards passed to us.

import { t } from "./i18n.js";
import { h, fill, toast, points } from "./dom.js";
import { SUITS, cardName, cardShort } from "./cards.js";
import { cardEl } from "./cardface.js";
import { handSummary } from "./handsummary.js";
import { promptDialog, DIRECTION_OFFSET } from "./dialogs.js";
import {
  ourTurn, placeOf, seatName, seatNames, summaryDue, trickShowing, who,
} from "./tableselectors.js";
import { PLACES } from "./tableseat.js";

const TRICK_LINGER_MS = 1100; // a finished trick stays up this long, its winner marked...
const TRICK_SLIDE_MS = 350; // ...then slides to the winner (not with prefers-reduced-motion)
const reducedMotion = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

/** How long a won trick stays on the felt, its slide included. */
export const trickEnds = () => TRICK_LINGER_MS + (reducedMotion() ? 0 : TRICK_SLIDE_MS);

/** The trick on the felt: each card in front of the seat that played it, the led card
 *  tagged, the winner ringed; `slide` sends the cards to the winner's side. */
function trickCards(state, plays, winner, slide = false) {
  const to = winner == null ? null : PLACES[placeOf(state, winner)];
  return h("div", { class: `trick${slide ? ` slide-${to}` : ""}` }, plays.map(({ seat, card }, i) => {
    const el = cardEl(card);
    el.setAttribute("aria-label", t("trick.card", { card: cardName(card), led: i === 0 ? "yes" : "no",
      name: who(state, seat), winning: winner === seat ? "yes" : "no" }));
    return h("div", { class: `played pos-${PLACES[placeOf(state, seat)]}${winner === seat ? " winner" : ""}${i === 0 ? " led" : ""}` },
      el, i === 0 ? h("span", { class: "led-tag", "aria-hidden": "true" }, t("trick.led")) : null);
  }));
}

/**
 * The felt's middle over `center`, `promptBox` and `receivedNote`; `handEl` is where a
 * pass dialog sends the focus. `intents`: dispatch, act, pass, sit, fillRobots, and
 * roomRated() (a ranked room offers no robots).
 */
export function feltView({ center, promptBox, receivedNote, handEl }, intents) {
  let dialogShown = null; // the dialog that last took the focus

  function waitingNote(state) {
    const info = state.info;
    const empty = info.seats.some((s) => s.kind === "empty");
    return h("div", { class: "center-note" },
      h("p", {}, t("felt.waiting")),
      state.seat != null && !intents.roomRated() && empty
        ? h("button", { type: "button", class: "primary", "data-action": "fill-robots", onclick: () =>
          intents.fillRobots().catch((err) => toast(err.message, "bad")) }, t("table.fill_robots"))
        : null,
      state.seat == null && empty
        ? h("button", { type: "button", class: "primary", "data-action": "fill-robots", onclick: () => intents.sit(null) }, t("felt.join")) : null);
  }

  function lastTrick(state) {
    const last = state.lastTrick;
    const plays = last.cards.map((card, i) => ({ seat: (last.leader + i) % 4, card }));
    return h("div", { class: "last-trick", "aria-label": t("felt.last_trick_label") },
      trickCards(state, plays, last.seat),
      h("p", { class: "center-caption" }, last.points ? t("felt.last_trick_points", { name: who(state, last.seat), points: points(last.points) })
        : t("felt.last_trick", { name: who(state, last.seat) })));
  }

  /** The trick just won stays up with its winner ringed, then slides to the winner: the
   *  slide is a CSS animation whose delay counts down the linger, so a render in between
   *  picks it up where it is instead of starting it again. */
  function wonTrick(state, now) {
    const won = state.justWon;
    const trick = trickCards(state, won.plays, won.seat, !reducedMotion());
    trick.style.setProperty("--slide-delay", `${TRICK_LINGER_MS - (now - won.at)}ms`);
    return [trick, h("p", { class: "center-caption" }, won.points
      ? t("felt.won_trick_points", { name: who(state, won.seat), points: points(won.points) })
      : t("felt.won_trick", { name: who(state, won.seat) }))];
  }

  /** The summary of the hand just scored: it waits for the player to close it, even
   *  when the next hand is dealt. Our turn's dialog then shows below it, whole: the turn
   *  timer runs, so the summary never hides what we must answer (it shrinks instead). */
  function summaryPanel(state, beside) {
    const v = state.view;
    const n = v.hand_results.length;
    return handSummary({ game: v.game, number: n, result: v.hand_results[n - 1], scores: v.scores,
      names: seatNames(state), next: beside ? null : t("sum.next_hand"),
      onContinue: () => intents.dispatch({ type: "close_summary", hands: n }) });
  }

  function promptPanel(state) {
    if (!state.prompt || !ourTurn(state)) return null;
    return promptDialog(state.prompt, state.view, {
      seat: state.seat, seatName: (seat) => seatName(state, seat), selected: new Set(state.chosen),
      act: intents.act, pass: intents.pass,
    });
  }

  /** Keyboard play: a dialog that appears takes the focus, unless the player is typing
   *  somewhere: the summary its button, a pass the hand, a bid or the moon the dialog
   *  itself (Tab then walks its choices; no choice is one stray Enter away). */
  function focusDialog(state, dialogs) {
    const dialog = dialogs.at(-1) || null; // our turn's dialog, below a summary, takes the focus
    const key = dialog ? `${dialog.className}:${state.view?.hand_no}:${state.view?.hand_results?.length}` : null;
    if (key === dialogShown) return;
    dialogShown = key;
    if (!dialog || document.activeElement?.closest?.("input, textarea, select, .table-chat")) return;
    requestAnimationFrame(() => {
      // The dialog as drawn now: a render between this call and the frame draws it anew,
      // and the focus given to the old drawing (detached) was lost for good, as the key
      // above is already this dialog's (the keyboard test's occasional wait in vain).
      const now = promptBox.lastElementChild;
      if (!now || now.className !== dialog.className) return; // another dialog's own call focuses it
      const target = now.classList.contains("pass-dialog") ? handEl.querySelector('.card[tabindex="0"]')
        : now.classList.contains("hand-summary") ? now.querySelector("button") : now;
      if (target === now) now.tabIndex = -1;
      target?.focus();
    });
  }

  /** Every render draws the dialog anew: the focus stays on the same choice in it. */
  function drawDialog(state, dialogs) {
    // The choices in the box, counted without the dialogs themselves: a dialog that had
    // the focus has a tabindex its new drawing has not yet, and counted it would move the
    // focus one choice on (to Nil, one stray Enter from a bid).
    const focusables = (box) => [...box.querySelectorAll("button, [tabindex]")]
      .filter((el) => !el.classList.contains("prompt-panel"));
    const active = document.activeElement;
    const held = promptBox.contains(active)
      ? (active.classList.contains("prompt-panel") ? -1 : focusables(promptBox).indexOf(active)) : null;
    fill(promptBox, dialogs);
    if (held != null && dialogs.length) {
      const again = held < 0 ? dialogs.at(-1) : focusables(promptBox)[held];
      if (again?.classList.contains("prompt-panel")) again.tabIndex = -1;
      again?.focus();
    }
    focusDialog(state, dialogs);
  }

  /** Hearts: the cards passed to us this hand, named with who passed them, until the
   *  first trick is over; the cards themselves are tagged in the hand. */
  function drawReceived(state) {
    const v = state.view;
    const got = v?.game === "hearts" && state.seat != null && v.phase === "play" && !v.tricks.length ? v.received || [] : [];
    if (!got.length) { receivedNote.hidden = true; return; }
    const from = (state.seat - DIRECTION_OFFSET[v.pass_direction] + 4) % 4;
    receivedNote.hidden = false;
    fill(receivedNote, h("span", { class: "recv-label" }, t("felt.received", { name: seatName(state, from) })), " ",
      got.map((c) => h("b", { class: `recv-card ${SUITS[c[1]].red ? "red" : ""}` }, cardShort(c))));
  }

  function draw(state, now) {
    const v = state.view;
    const info = state.info;
    const showing = trickShowing(state, now, trickEnds());
    const parts = [];
    if (!info) parts.push(h("p", {}, t("felt.loading")));
    else if (info.state === "waiting" || !v) parts.push(waitingNote(state));
    else if (state.showLastTrick && state.lastTrick) parts.push(lastTrick(state));
    else if (showing) parts.push(...wonTrick(state, now));
    else parts.push(trickCards(state, v.trick, null));
    // A hand just scored: its summary (once its last trick has gone), above any prompt.
    const prompt = promptPanel(state);
    const dialogs = summaryDue(state) ? (showing ? [] : [summaryPanel(state, !!prompt), prompt])
      : [prompt];
    drawDialog(state, dialogs.filter(Boolean));
    promptBox.classList.toggle("both", dialogs.filter(Boolean).length > 1);
    if (!dialogs.some(Boolean) && v?.phase === "pass" && state.seat != null && v.pass_chosen?.[state.seat]) {
      parts.push(h("div", { class: "center-note" }, h("p", {}, t("felt.passed", { cards: (v.passed || []).map(cardShort).join(" "),
        name: seatName(state, (state.seat + DIRECTION_OFFSET[v.pass_direction]) % 4) })),
      h("p", { class: "hint" }, t("felt.passed_wait"))));
    }
    fill(center, parts);
    drawReceived(state);
  }

  return { draw };
}

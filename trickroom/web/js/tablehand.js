// Our hand, drawn from the table's state, and keyboard play: the legal cards raised,
// the others marked and explained when pressed, the cards chosen for a pass, the cards
// received in a pass tagged. Arrows walk the cards (only the legal ones when a card
// must be played), Enter or Space presses one; arrows anywhere else bring the focus here.

import { t } from "./i18n.js";
import { h, fill } from "./dom.js";
import { cardName } from "./cards.js";
import { cardEl, cardBack } from "./cardface.js";
import { legalCards, ourTurn } from "./tableselectors.js";

/**
 * The hand in `handEl`, with `noteEl` for why a card was refused. `pressCard(card)`
 * is what pressing a card does; `state()` gives the table's state now.
 */
export function handView({ handEl, noteEl }, { pressCard, state }) {
  let focusCard = null; // the card last focused or pressed, which keeps the focus

  function press(card) {
    focusCard = card;
    pressCard(card);
  }

  /** Only the legal cards may take the focus while a card must be played. */
  const onlyLegal = () => { const s = state(); return s.prompt?.phase === "play" && ourTurn(s); };

  function draw(s) {
    const v = s.view;
    const hadFocus = handEl.contains(document.activeElement);
    const focused = hadFocus ? document.activeElement.dataset.card : focusCard;
    note(s);
    if (s.seat == null || !v || s.info?.state === "waiting") {
      fill(handEl, s.seat == null ? h("p", { class: "hint" }, t("hand.watching")) : null);
      handEl.hidden = s.seat != null;
      return;
    }
    handEl.hidden = false;
    if (v.game === "spades" && v.sees_hand === false && !v.hand.length) {
      handEl.style.setProperty("--n", "13");
      fill(handEl, Array.from({ length: 13 }, () => cardBack("in-hand")));
      return;
    }
    const legal = legalCards(s);
    const chosen = new Set(s.chosen);
    const passing = s.prompt?.phase === "pass" && ourTurn(s);
    const received = new Set(v.game === "hearts" && v.tricks.length === 0 ? v.received || [] : []);
    const cards = v.hand.map((card) => {
      const ok = legal?.has(card);
      const cls = [ok ? "legal" : "not-legal", chosen.has(card) ? "chosen" : "", received.has(card) ? "received" : ""].join(" ");
      const el = cardEl(card, { onclick: () => press(card), cls, disabled: !ok,
        pressed: passing ? chosen.has(card) : undefined });
      if (received.has(card)) {
        el.append(h("span", { class: "new-tag", "aria-hidden": "true" }, t("hand.new")));
        el.setAttribute("aria-label", t("hand.received", { card: cardName(card) }));
      }
      el.tabIndex = -1;
      return el;
    });
    handEl.style.setProperty("--n", String(Math.max(cards.length, 1)));
    fill(handEl, cards);
    if (!cards.length) return;
    // The card last focused keeps the focus, unless a card must be played and it may not be.
    const playing = s.prompt?.phase === "play" && ourTurn(s);
    const target = cards.find((c) => c.dataset.card === focused && (!playing || c.classList.contains("legal"))) ||
      cards.find((c) => c.classList.contains("legal")) || cards[0];
    target.tabIndex = 0;
    if (hadFocus) target.focus();
  }

  /** Why the card last pressed may not be played (drawn at once when a card is pressed). */
  function note(s) {
    if (noteEl.textContent !== s.handNote) noteEl.textContent = s.handNote;
  }

  handEl.addEventListener("keydown", (e) => {
    const cards = [...handEl.querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: 1, ArrowDown: -1 }[e.key];
    const legalOnly = onlyLegal();
    const may = (c) => !legalOnly || c.classList.contains("legal");
    let next = null;
    if (step) {
      for (let j = i + step; j >= 0 && j < cards.length; j += step) {
        if (may(cards[j])) { next = cards[j]; break; }
      }
    } else if (e.key === "Home") next = cards.find(may);
    else if (e.key === "End") next = cards.findLast(may);
    else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      press(cards[i].dataset.card);
      return;
    } else return;
    e.preventDefault();
    if (next) {
      cards.forEach((c) => { c.tabIndex = -1; });
      next.tabIndex = 0;
      next.focus();
      focusCard = next.dataset.card;
    }
  });

  // Arrow keys anywhere on the page (outside text fields) bring focus to the hand.
  const pageKeys = (e) => {
    if (!["ArrowLeft", "ArrowRight"].includes(e.key)) return;
    if (e.target.closest?.("input, textarea, select, dialog, .hand")) return;
    const first = handEl.querySelector('.card[tabindex="0"]');
    if (first) { e.preventDefault(); first.focus(); }
  };
  document.addEventListener("keydown", pageKeys);

  return { draw, note, destroy: () => document.removeEventListener("keydown", pageKeys) };
}

// A card drawn: its face (in the hand, the trick, the review) and its back.

import { h } from "./dom.js";
import { SUITS, cardName, rankText } from "./cards.js";

/**
 * A card face. With onclick it is a button (the hand); otherwise a labelled image
 * (the trick, the review). The corner index stays visible when cards overlap.
 */
export function cardEl(card, { onclick, cls = "", disabled = false, pressed, tag } = {}) {
  const suit = SUITS[card[1]];
  const face = [
    h("span", { class: "corner", "aria-hidden": "true" },
      h("span", { class: "rank" }, rankText(card)), h("span", { class: "suit" }, suit.symbol)),
    h("span", { class: "pip", "aria-hidden": "true" }, suit.symbol),
  ];
  const classes = `card ${suit.red ? "red" : "black"} ${cls}`;
  if (onclick || tag === "button") {
    return h("button", {
      type: "button", class: classes, "data-card": card, "aria-label": cardName(card),
      "aria-disabled": disabled ? "true" : null, "aria-pressed": pressed == null ? null : String(pressed),
      onclick,
    }, face);
  }
  return h("div", { class: classes, "data-card": card, role: "img", "aria-label": cardName(card) }, face);
}

export function cardBack(cls = "") {
  return h("div", { class: `card back ${cls}`, "aria-hidden": "true" });
}

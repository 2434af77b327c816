// Cards as the wire writes them ("QS", "TH", "2C") and as people read them; no DOM
// (cardface.js draws them), so the table's reducer can use it anywhere. Their names are
// the catalog's (i18n.js, loaded before this module runs).

import { t } from "./i18n.js";

export const SEAT_NAMES = ["north", "east", "south", "west"].map((seat) => t(`seat.${seat}`));
export const SUITS = {
  C: { symbol: "♣", name: t("suit.C"), red: false },
  D: { symbol: "♦", name: t("suit.D"), red: true },
  H: { symbol: "♥", name: t("suit.H"), red: true },
  S: { symbol: "♠", name: t("suit.S"), red: false },
};
const RANKS = "23456789TJQKA";
// Suits in the hand alternate colours: clubs, diamonds, spades, hearts.
const SUIT_ORDER = { C: 0, D: 1, S: 2, H: 3 };

export const rankOf = (card) => RANKS.indexOf(card[0]);
export const suitOf = (card) => card[1];
export const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
export const cardName = (card) => t("card.name", { rank: t(`rank.${card[0]}`), suit: t(`card.suit.${card[1]}`) });
export const cardShort = (card) => `${rankText(card)}${SUITS[card[1]].symbol}`;

export function sortHand(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER[a[1]] - SUIT_ORDER[b[1]] || rankOf(a) - rankOf(b));
}

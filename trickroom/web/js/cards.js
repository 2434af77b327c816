// Cards as the wire writes them ("QS", "TH", "2C") and as people read them; no DOM
// (cardface.js draws them), so the table's reducer can use it anywhere.

export const SEAT_NAMES = ["North", "East", "South", "West"];
export const SUITS = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const RANKS = "23456789TJQKA";
const RANK_NAMES = {
  2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine",
  T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace",
};
// Suits in the hand alternate colours: clubs, diamonds, spades, hearts.
const SUIT_ORDER = { C: 0, D: 1, S: 2, H: 3 };

export const rankOf = (card) => RANKS.indexOf(card[0]);
export const suitOf = (card) => card[1];
export const rankText = (card) => (card[0] === "T" ? "10" : card[0]);
export const cardName = (card) => `${RANK_NAMES[card[0]]} of ${SUITS[card[1]].name}`;
export const cardShort = (card) => `${rankText(card)}${SUITS[card[1]].symbol}`;

export function sortHand(cards) {
  return [...cards].sort((a, b) => SUIT_ORDER[a[1]] - SUIT_ORDER[b[1]] || rankOf(a) - rankOf(b));
}

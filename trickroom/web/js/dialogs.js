// The dialogs of our turn drawn on the felt: the bid (with blind nil), the Hearts pass and
// the moon. Each offers what the prompt's legal actions allow; choosing sends the action.

import { h } from "./dom.js";
import { cardShort } from "./cards.js";
import { count as cards } from "./counts.js";
import { t } from "./i18n.js";

export const DIRECTION_OFFSET = { left: 1, across: 2, right: 3, hold: 0 };
const PASS_ARROWS = { left: "←", right: "→", across: "↑" }; // as the player sees the table

/**
 * The dialog for prompt `p` on view `v`, or null. `selected` holds the cards chosen for a
 * pass, `act(action)` sends an action and `pass()` sends the chosen cards.
 */
export function promptDialog(p, v, { seat, seatName, selected, act, pass }) {
  if (p.phase === "bid") {
    const legal = p.legal;
    const has = (value, blind = false) => legal.some((a) => a.type === "bid" && a.value === value && !!a.blind === blind);
    const blindOffer = legal.some((a) => a.blind);
    const partner = (seat + 2) % 4;
    const partnerBid = v.bids?.[partner];
    const bidButton = (value) => h("button", { type: "button", class: `bid-btn${value === 0 ? " nil" : ""}`,
      disabled: has(value) ? null : true, "data-bid": value,
      onclick: () => act({ type: "bid", value }) }, value === 0 ? t("bid.nil_button") : String(value));
    return h("div", { class: "prompt-panel bid-dialog", role: "dialog", "aria-label": t("bid.title") },
      blindOffer ? h("h2", {}, t("bid.title")) : null,
      blindOffer ? [
        h("p", {}, t("bid.blind_offer")),
        h("div", { class: "bid-row" },
          h("button", { type: "button", class: "primary", "data-bid": "blind",
            onclick: () => act({ type: "bid", value: 0, blind: true }) }, t("bid.blind_nil")),
          h("button", { type: "button", "data-bid": "look", onclick: () => act({ type: "look" }) }, t("bid.look"))),
      ] : [
        // The partner sits across (the top seat): their name, however long, is there.
        h("div", { class: "prompt-head" }, h("h2", {}, t("bid.title")),
          h("p", { class: "hint", title: seatName(partner) }, partnerBid == null ? t("bid.partner_none") :
            partnerBid === 0 ? t("bid.partner_nil") : t("bid.partner", { n: partnerBid }))),
        h("div", { class: "bid-grid" }, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(bidButton)),
      ]);
  }
  if (p.phase === "pass") {
    const count = p.pass_count || 3;
    const to = (seat + DIRECTION_OFFSET[v.pass_direction]) % 4;
    return h("div", { class: "prompt-panel pass-dialog", role: "dialog", "aria-label": t("pass.label"), "data-count": count },
      h("h2", {}, h("span", { class: "pass-arrow", "aria-hidden": "true" }, PASS_ARROWS[v.pass_direction] || ""),
        " ", t("pass.title", { cards: cards(count, "card"), direction: v.pass_direction })),
      // Low enough for a phone: the name on one line (cut if it must be), the cards
      // chosen beside the button.
      h("p", { class: "pass-to", title: seatName(to) }, t("pass.to", { name: seatName(to) })),
      h("div", { class: "bid-row pass-row" },
        h("p", { class: "pass-chosen" }, selected.size ? t("pass.chosen_cards", { n: selected.size, of: count,
          cards: [...selected].map(cardShort).join(" ") }) : t("pass.chosen", { n: selected.size, of: count })),
        h("button", { type: "button", class: "primary pass-go", disabled: selected.size === count ? null : true,
          onclick: pass }, t("pass.go"))));
  }
  if (p.phase === "moon") {
    return h("div", { class: "prompt-panel moon-dialog", role: "dialog", "aria-label": t("moon.label") },
      h("h2", {}, t("moon.title")),
      h("div", { class: "bid-row" },
        h("button", { type: "button", class: "primary", onclick: () => act({ type: "moon", choice: "add" }) }, t("moon.add")),
        h("button", { type: "button", onclick: () => act({ type: "moon", choice: "subtract" }) }, t("moon.subtract"))));
  }
  return null;
}

// A private table's panel at the table: its invite link to copy, a new link, and for the
// player who opened it, revoking the link and arranging the seats before a game (keep a
// seat for a named player, or remove a player).

import { t } from "./i18n.js";
import { h, fill, toast, sentence } from "./dom.js";
import { inviteLink } from "./join.js";
import { SEAT_NAMES } from "./cards.js";

export function invitePanel(ctx, id) {
  const el = h("section", { class: "invite-panel", "aria-labelledby": `invite-${id}-h`, hidden: true });
  const linkBox = h("div", { class: "invite-box" });
  const seatsBox = h("div", { class: "invite-seats" });
  const error = h("p", { class: "error", role: "alert" });

  async function ask(fields) {
    error.textContent = "";
    try {
      const reply = await ctx.conn.request({ type: "invite", table: id, ...fields });
      const code = reply.invite.code;
      if (code) ctx.invites[id] = code; else delete ctx.invites[id];
      showLink(code);
    } catch (err) { error.textContent = sentence(err.message); }
  }

  function showLink(code) {
    if (!code) { fill(linkBox, h("p", { class: "hint" }, t("invite.none"))); return; }
    const link = inviteLink(id, code);
    const input = h("input", { type: "text", readonly: true, value: link, class: "invite-link",
      "aria-label": t("invite.link"), onfocus: (e) => e.target.select() });
    fill(linkBox, input,
      h("div", { class: "invite-actions" },
        h("button", { type: "button", onclick: async () => {
          try { await navigator.clipboard.writeText(link); toast(t("invite.copied"), "good"); }
          catch { input.focus(); }
        } }, t("invite.copy")),
        h("button", { type: "button", onclick: () => ask({ renew: true }) }, t("invite.new")),
        ctx.opened.has(id) ? h("button", { type: "button", onclick: () => ask({ revoke: true }) }, t("invite.revoke")) : null));
  }

  async function seatRequest(message) {
    error.textContent = "";
    try { await ctx.conn.request({ table: id, ...message }); }
    catch (err) { error.textContent = sentence(err.message); }
  }

  function seatRow(s) {
    const name = s.name || (s.reserved_for ? t("invite.kept_for", { name: s.reserved_for }) : t("seat.empty"));
    let action = null;
    if (s.kind === "empty" && !s.reserved_for) {
      const input = h("input", { type: "text", maxlength: 24, "aria-label": t("invite.keep_label", { seat: SEAT_NAMES[s.seat] }),
        placeholder: t("invite.keep_placeholder") });
      action = h("form", { class: "keep-form", onsubmit: (e) => {
        e.preventDefault();
        if (input.value.trim()) seatRequest({ type: "reserve", seat: s.seat, name: input.value.trim() });
      } }, input, h("button", { type: "submit" }, t("invite.keep")));
    } else if (s.kind === "empty") {
      action = h("button", { type: "button", onclick: () => seatRequest({ type: "reserve", seat: s.seat, name: null }) }, t("invite.free"));
    } else if (s.name !== ctx.me?.name) {
      action = h("button", { type: "button", onclick: () => seatRequest({ type: "remove_player", seat: s.seat }) },
        t("invite.remove", { name: s.name }));
    }
    // Any player may be moved to another seat (swapping with whoever sits there).
    const move = s.kind !== "empty" ? h("select", { "aria-label": t("invite.move_label", { name: s.name }),
      onchange: (e) => { if (e.target.value !== "") seatRequest({ type: "move_seat", seat: s.seat, to: Number(e.target.value) }); } },
    h("option", { value: "" }, t("invite.move_to")),
    SEAT_NAMES.map((label, i) => (i === s.seat ? null : h("option", { value: String(i) }, label)))) : null;
    return h("li", {}, h("span", { class: "hint" }, t("invite.seat", { seat: SEAT_NAMES[s.seat] })), name, " ", move, " ", action);
  }

  let shown = false;
  return {
    el,
    draw(state) {
      const info = state.info;
      el.hidden = !info?.private;
      if (!info?.private) return;
      if (!shown) {
        shown = true;
        fill(el, h("h2", { id: `invite-${id}-h` }, t("invite.private")),
          h("p", { class: "hint" }, t("invite.private_hint")),
          linkBox, seatsBox, error);
        if (ctx.invites[id]) showLink(ctx.invites[id]);
        else fill(linkBox, h("button", { type: "button", onclick: () => ask({}) }, t("invite.show")));
      }
      const arranging = ctx.opened.has(id) && info.state === "waiting";
      fill(seatsBox, arranging ? h("ul", { class: "invite-seat-list", "aria-label": t("invite.seats") }, info.seats.map(seatRow)) : null);
    },
  };
}

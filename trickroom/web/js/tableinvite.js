// A private table's panel at the table: its invite link to copy, a new link, and for the
// player who opened it, revoking the link and arranging the seats before a game (keep a
// seat for a named player, or remove a player).

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
    if (!code) { fill(linkBox, h("p", { class: "hint" }, "No invite link: nobody new comes in.")); return; }
    const link = inviteLink(id, code);
    const input = h("input", { type: "text", readonly: true, value: link, class: "invite-link",
      "aria-label": "Invite link", onfocus: (e) => e.target.select() });
    fill(linkBox, input,
      h("div", { class: "invite-actions" },
        h("button", { type: "button", onclick: async () => {
          try { await navigator.clipboard.writeText(link); toast("Invite link copied", "good"); }
          catch { input.focus(); }
        } }, "Copy link"),
        h("button", { type: "button", onclick: () => ask({ renew: true }) }, "New link"),
        ctx.opened.has(id) ? h("button", { type: "button", onclick: () => ask({ revoke: true }) }, "Revoke") : null));
  }

  async function seatRequest(message) {
    error.textContent = "";
    try { await ctx.conn.request({ table: id, ...message }); }
    catch (err) { error.textContent = sentence(err.message); }
  }

  function seatRow(s) {
    const name = s.name || (s.reserved_for ? `kept for ${s.reserved_for}` : "empty");
    let action = null;
    if (s.kind === "empty" && !s.reserved_for) {
      const input = h("input", { type: "text", maxlength: 24, "aria-label": `Keep ${SEAT_NAMES[s.seat]} for`,
        placeholder: "keep for…" });
      action = h("form", { class: "keep-form", onsubmit: (e) => {
        e.preventDefault();
        if (input.value.trim()) seatRequest({ type: "reserve", seat: s.seat, name: input.value.trim() });
      } }, input, h("button", { type: "submit" }, "Keep"));
    } else if (s.kind === "empty") {
      action = h("button", { type: "button", onclick: () => seatRequest({ type: "reserve", seat: s.seat, name: null }) }, "Free it");
    } else if (s.name !== ctx.me?.name) {
      action = h("button", { type: "button", onclick: () => seatRequest({ type: "remove_player", seat: s.seat }) },
        `Remove ${s.name}`);
    }
    // Any player may be moved to another seat (swapping with whoever sits there).
    const move = s.kind !== "empty" ? h("select", { "aria-label": `Move ${s.name} to`,
      onchange: (e) => { if (e.target.value !== "") seatRequest({ type: "move_seat", seat: s.seat, to: Number(e.target.value) }); } },
    h("option", { value: "" }, "Move to…"),
    SEAT_NAMES.map((label, i) => (i === s.seat ? null : h("option", { value: String(i) }, label)))) : null;
    return h("li", {}, h("span", { class: "hint" }, `${SEAT_NAMES[s.seat]}: `), name, " ", move, " ", action);
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
        fill(el, h("h2", { id: `invite-${id}-h` }, "Private table"),
          h("p", { class: "hint" }, "Listed to no one: friends come in by its link."),
          linkBox, seatsBox, error);
        if (ctx.invites[id]) showLink(ctx.invites[id]);
        else fill(linkBox, h("button", { type: "button", onclick: () => ask({}) }, "Show the invite link"));
      }
      const arranging = ctx.opened.has(id) && info.state === "waiting";
      fill(seatsBox, arranging ? h("ul", { class: "invite-seat-list", "aria-label": "Seats" }, info.seats.map(seatRow)) : null);
    },
  };
}

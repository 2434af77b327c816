// Challenges, wherever the player is: one sent to us opens a dialog to accept or decline
// (with a reason); when every player has accepted, we sit at the seat kept for us.

import { t } from "./i18n.js";
import { gameName } from "./games.js";
import { SEAT_NAMES } from "./cards.js";
import { h, toast } from "./dom.js";

const REASONS = ["generic", "later", "rules", "game", "no_robots"];
const reasonText = (reason) => t("challenge.reason", { reason });

/** What a challenge asks, in words: "Spades in room spades: ann (North), a robot (East)…" */
export function describe(c) {
  const seats = c.seats.map((name, i) => t("challenge.seat", { name: name ?? t("challenge.a_robot"), seat: SEAT_NAMES[i] })).join(", ");
  return c.rules?.target ? t("challenge.describe_to", { game: gameName(c.game), target: c.rules.target, seats })
    : t("challenge.describe", { game: gameName(c.game), seats });
}

let dialog = null;

function challenged(ctx, c) {
  dialog?.remove();
  const error = h("p", { class: "error", role: "alert" });
  const reason = h("select", { name: "reason", "aria-label": t("challenge.why_not") },
    REASONS.map((value) => h("option", { value }, reasonText(value))));
  const answer = async (accept) => {
    try {
      await ctx.conn.request({ type: "answer_challenge", challenge: c.id, accept,
        ...(accept ? {} : { reason: reason.value }) });
      dialog.close();
      dialog.remove();
      dialog = null;
    } catch (err) {
      error.textContent = err.message;
    }
  };
  dialog = h("dialog", { class: "challenge-dialog", "aria-labelledby": "challenge-h" },
    h("h2", { id: "challenge-h" }, t("challenge.title", { name: c.by })),
    h("p", {}, describe(c)),
    error,
    h("div", { class: "dialog-actions" },
      reason,
      h("button", { type: "button", onclick: () => answer(false) }, t("challenge.decline")),
      h("button", { type: "button", class: "primary", onclick: () => answer(true) }, t("challenge.accept"))));
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector("button.primary").focus();
}

async function over(ctx, msg) {
  if (dialog) { dialog.close(); dialog.remove(); dialog = null; }
  if (msg.outcome === "declined") {
    toast(msg.reason && msg.reason !== "generic" ? t("challenge.declined_why", { name: msg.by, why: reasonText(msg.reason) })
      : t("challenge.declined", { name: msg.by }), "bad");
    return;
  }
  if (msg.outcome === "expired") { toast(t("challenge.expired"), "bad"); return; }
  try {
    const seated = await ctx.conn.request({ type: "sit", table: msg.table });
    ctx.rememberSeat(msg.table, seated.seat, seated.seat_token, null);
    toast(t("challenge.accepted"), "good");
    ctx.navigate(`/table/${msg.table}`);
  } catch (err) {
    toast(err.message, "bad");
  }
}

/** Handle a pushed challenge message; true if it was one. */
export function onMessage(ctx, msg) {
  if (msg.type === "challenged") { challenged(ctx, msg.challenge); return true; }
  if (msg.type === "challenge_over") { over(ctx, msg); return true; }
  return false;
}

/** The form that sends a challenge to `name` (a player you follow). */
export function challengeForm(ctx, name, done) {
  const rooms = (ctx.rooms || []).filter((r) => !r.rated);
  const error = h("p", { class: "error", role: "alert" });
  const plans = {
    partners: [ctx.me.name, null, name, null],
    opponents: [ctx.me.name, name, null, null],
  };
  const form = h("form", { class: "challenge-form", "aria-label": t("challenge.label", { name }) },
    h("label", { class: "field" }, h("span", {}, t("profile.game")),
      h("select", { name: "room" }, rooms.map((r) => h("option", { value: r.name }, `${gameName(r.game)} — ${r.name}`)))),
    h("label", { class: "check" }, h("input", { type: "radio", name: "plan", value: "partners", checked: true }),
      t("challenge.partners", { name })),
    h("label", { class: "check" }, h("input", { type: "radio", name: "plan", value: "opponents" }),
      t("challenge.opponents", { name })),
    error,
    h("div", { class: "dialog-actions" },
      h("button", { type: "button", onclick: () => done(false) }, t("dialog.cancel")),
      h("button", { type: "submit", class: "primary" }, t("challenge.send"))));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    try {
      await ctx.conn.request({ type: "challenge", room: data.get("room"), seats: plans[data.get("plan")] });
      toast(t("challenge.sent", { name }), "good");
      done(true);
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return form;
}


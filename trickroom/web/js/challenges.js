// Challenges, wherever the player is: one sent to us opens a dialog to accept or decline
// (with a reason); when every player has accepted, we sit at the seat kept for us.

import { h, toast } from "./dom.js";

const REASONS = [["generic", "No, thank you"], ["later", "Later, please"],
  ["rules", "Other rules, please"], ["game", "Another game, please"],
  ["no_robots", "Not with robots"]];
const GAME = { spades: "Spades", hearts: "Hearts" };
const SEATS = ["North", "East", "South", "West"];

/** What a challenge asks, in words: "Spades in room spades: ann (North), a robot (East)…" */
export function describe(c) {
  const seats = c.seats.map((name, i) => `${name ?? "a robot"} (${SEATS[i]})`).join(", ");
  const target = c.rules?.target ? `, to ${c.rules.target}` : "";
  return `${GAME[c.game] || c.game}${target}: ${seats}`;
}

let dialog = null;

function challenged(ctx, c) {
  dialog?.remove();
  const error = h("p", { class: "error", role: "alert" });
  const reason = h("select", { name: "reason", "aria-label": "Why not" },
    REASONS.map(([value, label]) => h("option", { value }, label)));
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
    h("h2", { id: "challenge-h" }, `${c.by} challenges you`),
    h("p", {}, describe(c)),
    error,
    h("div", { class: "dialog-actions" },
      reason,
      h("button", { type: "button", onclick: () => answer(false) }, "Decline"),
      h("button", { type: "button", class: "primary", onclick: () => answer(true) }, "Accept")));
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector("button.primary").focus();
}

async function over(ctx, msg) {
  if (dialog) { dialog.close(); dialog.remove(); dialog = null; }
  if (msg.outcome === "declined") {
    toast(`${msg.by} declined the challenge${msg.reason && msg.reason !== "generic" ? ` (${msg.reason.replace("_", " ")})` : ""}`, "bad");
    return;
  }
  if (msg.outcome === "expired") { toast("The challenge expired: not everyone answered", "bad"); return; }
  try {
    const seated = await ctx.conn.request({ type: "sit", table: msg.table });
    ctx.rememberSeat(msg.table, seated.seat, seated.seat_token, null);
    toast("Challenge accepted: your table is ready", "good");
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
  const form = h("form", { class: "challenge-form", "aria-label": `Challenge ${name}` },
    h("label", { class: "field" }, h("span", {}, "Game"),
      h("select", { name: "room" }, rooms.map((r) => h("option", { value: r.name }, `${GAME[r.game] || r.game} — ${r.name}`)))),
    h("label", { class: "check" }, h("input", { type: "radio", name: "plan", value: "partners", checked: true }),
      `${name} and you against two robots (Spades partners)`),
    h("label", { class: "check" }, h("input", { type: "radio", name: "plan", value: "opponents" }),
      `You against ${name}, with two robots`),
    error,
    h("div", { class: "dialog-actions" },
      h("button", { type: "button", onclick: () => done(false) }, "Cancel"),
      h("button", { type: "submit", class: "primary" }, "Send challenge")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    try {
      await ctx.conn.request({ type: "challenge", room: data.get("room"), seats: plans[data.get("plan")] });
      toast(`Challenge sent to ${name}`, "good");
      done(true);
    } catch (err) {
      error.textContent = err.message;
    }
  });
  return form;
}


// Sign in: play as a guest, log in, or register. The session token is kept in
// localStorage, so a reload logs straight back in.

import { h, fill, sentence } from "./dom.js";

const NAME_RULE = "A name is 1 to 24 letters, digits, '_' or '-', its letters all from one alphabet";

/** What was wrong with a name, from the server's reason (after the rule it quotes). */
function nameSaid(err) {
  const message = err.message || "";
  if (message.includes("reserved")) {
    return "That name is kept for the server: names starting with 'guest' or 'robot', and words such as " +
      "'admin' or 'host', are not for players. Choose another.";
  }
  if (message.includes("mixes letters")) {
    return `${NAME_RULE}: this one mixes letters of different alphabets, which lets names look alike.`;
  }
  if (message.includes("compatibility form")) {
    return `${NAME_RULE}: type plain letters, not fullwidth or styled ones.`;
  }
  return `${NAME_RULE}, with no spaces or other signs.`;
}

/** A refusal of the sign-in forms in plain words, by its code and the field it is about
 *  (the server's own message where we have no better one). */
const REFUSALS = {
  "invalid_field:name": nameSaid,
  "name_taken:name": () => "That name is taken: choose another.",
  "invalid_field:password": () => "A password is 6 to 200 characters.",
  bad_credentials: () => "Wrong name or password.",
  rate_limited: (err) => `${sentence(err.message)} Please wait and try again.`,
  disconnected: () => "The connection was lost; try again in a moment.",
  timeout: () => "The server did not answer; try again in a moment.",
};

export function refusalSaid(err) {
  const field = err.reply?.field;
  const said = (field && REFUSALS[`${err.code}:${field}`]) || REFUSALS[err.code];
  return said ? said(err) : sentence(err.message);
}

export function mount(main, ctx, params) {
  const after = () => ctx.navigate(params.next && params.next !== "/signin" ? params.next : "/");

  async function submit(event, message) {
    event.preventDefault();
    const form = event.currentTarget;
    const button = form.querySelector("button[type=submit]");
    // A refusal is said in the form that was sent, beside its button.
    const error = form.querySelector(".error");
    button.disabled = true;
    error.textContent = "";
    try {
      await ctx.loggedIn(await ctx.conn.request(message(new FormData(form))));
      after();
    } catch (err) {
      error.textContent = refusalSaid(err);
    } finally {
      button.disabled = false;
    }
  }

  const field = (label, name, type = "text", extra = {}) =>
    h("label", { class: "field" }, h("span", {}, label),
      h("input", { name, type, autocomplete: extra.autocomplete || "off", ...extra }));

  const guest = h("form", { class: "panel", "aria-labelledby": "guest-h",
    onsubmit: (e) => submit(e, (f) => ({ type: "guest", ...(f.get("name") ? { name: f.get("name") } : {}) })) },
  h("h2", { id: "guest-h" }, "Play as a guest"),
  h("p", { class: "hint" }, "Casual tables only. Pick a name, or leave it empty."),
  field("Name (optional)", "name", "text", { maxlength: 18 }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit", class: "primary" }, "Play as guest"));

  const login = h("form", { class: "panel", "aria-labelledby": "login-h",
    onsubmit: (e) => submit(e, (f) => ({ type: "login", name: f.get("name"), password: f.get("password"), device: ctx.deviceFor(f.get("name")) })) },
  h("h2", { id: "login-h" }, "Log in"),
  field("Name", "name", "text", { required: true, autocomplete: "username" }),
  field("Password", "password", "password", { required: true, autocomplete: "current-password" }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit" }, "Log in"));

  const register = h("form", { class: "panel", "aria-labelledby": "register-h",
    onsubmit: (e) => submit(e, (f) => ({ type: "register", name: f.get("name"), password: f.get("password") })) },
  h("h2", { id: "register-h" }, "Register"),
  h("p", { class: "hint" }, "Needed for ranked rooms, ratings and a profile."),
  field("Name", "name", "text", { required: true, maxlength: 24, autocomplete: "username",
    title: "1-24 letters (of one alphabet), digits, _ or -" }),
  field("Password (6 or more characters)", "password", "password",
    { required: true, minlength: 6, autocomplete: "new-password" }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit" }, "Register"));

  fill(main, h("section", { class: "signin" },
    h("h1", {}, "Spades and Hearts, live"),
    h("div", { class: "signin-forms" }, guest, login, register)));
  guest.querySelector("button").focus();
  return {};
}

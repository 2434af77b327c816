// Sign in: play as a guest, log in, or register. The session token is kept in
// localStorage, so a reload logs straight back in.

import { h, fill, sentence } from "./dom.js";

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
      error.textContent = sentence(err.message);
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
  field("Name (optional)", "name", "text", { maxlength: 18, pattern: "[A-Za-z0-9_\\-]*" }),
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
    title: "1-24 letters, digits, _ or -" }),
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

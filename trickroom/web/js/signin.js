// Sign in: play as a guest, log in, or register. The session token is kept in
// localStorage, so a reload logs straight back in.

import { h, fill, sentence } from "./dom.js";
import { t } from "./i18n.js";

/** What was wrong with a name, from the server's reason (after the rule it quotes). */
function nameSaid(err) {
  const message = err.message || "";
  if (message.includes("reserved")) {
    return t("signin.name_reserved");
  }
  if (message.includes("mixes letters")) {
    return t("signin.name_mixes");
  }
  if (message.includes("compatibility form")) {
    return t("signin.name_styled");
  }
  return t("signin.name_rule");
}

/** A refusal of the sign-in forms in plain words, by its code and the field it is about
 *  (the server's own message where we have no better one). */
const REFUSALS = {
  "invalid_field:name": nameSaid,
  "name_taken:name": () => t("signin.name_taken"),
  "invalid_field:password": () => t("signin.password_rule"),
  bad_credentials: () => t("signin.bad_credentials"),
  rate_limited: (err) => t("signin.rate_limited", { why: sentence(err.message) }),
  disconnected: () => t("signin.disconnected"),
  timeout: () => t("signin.timeout"),
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
      await ctx.loggedIn(await ctx.signIn(message(new FormData(form))));
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
  h("h2", { id: "guest-h" }, t("signin.guest_title")),
  h("p", { class: "hint" }, t("signin.guest_hint")),
  field(t("signin.name_optional"), "name", "text", { maxlength: 18 }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit", class: "primary" }, t("signin.guest_go")));

  const login = h("form", { class: "panel", "aria-labelledby": "login-h",
    onsubmit: (e) => submit(e, (f) => ({ type: "login", name: f.get("name"), password: f.get("password"), device: ctx.deviceFor(f.get("name")) })) },
  h("h2", { id: "login-h" }, t("signin.login")),
  field(t("signin.name"), "name", "text", { required: true, autocomplete: "username" }),
  field(t("signin.password"), "password", "password", { required: true, autocomplete: "current-password" }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit" }, t("signin.login")));

  const register = h("form", { class: "panel", "aria-labelledby": "register-h",
    onsubmit: (e) => submit(e, (f) => ({ type: "register", name: f.get("name"), password: f.get("password") })) },
  h("h2", { id: "register-h" }, t("signin.register")),
  h("p", { class: "hint" }, t("signin.register_hint")),
  field(t("signin.name"), "name", "text", { required: true, maxlength: 24, autocomplete: "username",
    title: t("signin.name_title") }),
  field(t("signin.password_new"), "password", "password",
    { required: true, minlength: 6, autocomplete: "new-password" }),
  h("p", { class: "error", role: "alert" }),
  h("button", { type: "submit" }, t("signin.register")));

  fill(main, h("section", { class: "signin" },
    h("h1", {}, t("signin.title")),
    h("div", { class: "signin-forms" }, guest, login, register)));
  guest.querySelector("button").focus();
  return {};
}

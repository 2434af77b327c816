// The app: one socket, the session, the header, and a hash router over the pages.
//
// Pages are modules with mount(main, ctx, params) returning {unmount, onMessage}.
// Messages from the socket go to the page on screen; chat is kept here per room
// and per table so a page shows what was said while it was elsewhere.

import { h, fill, toast } from "./dom.js";
import { t, language, LANGUAGES, PSEUDO, remember, rememberedChoice } from "./i18n.js";
import { Connection } from "./net.js";
import * as signin from "./signin.js";
import * as lobby from "./lobby.js";
import * as tablePage from "./tableview.js";
import * as review from "./review.js";
import * as profile from "./profile.js";
import * as join from "./join.js";
import * as friends from "./friends.js";
import * as challenges from "./challenges.js";

const SESSION_KEY = "trickroom.session";
const SEATS_KEY = "trickroom.seats";
const IGNORE_KEY = "trickroom.ignored";
const OPENED_KEY = "trickroom.opened";
// Each account's device token (a welcome's "device"): sent with its logins, so that a
// stranger's wrong guesses do not keep this browser out of the account.
const DEVICES_KEY = "trickroom.devices";

const load = (key, fallback) => {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
};
const save = (key, value) => localStorage.setItem(key, JSON.stringify(value));

const ctx = {
  conn: new Connection(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`),
  me: null, // {name, guest}
  rooms: [],
  chats: new Map(), // "room:NAME" | "table:ID" -> [{name, text}]
  chatListeners: new Set(),
  seats: load(SEATS_KEY, {}), // table id -> {seat, token, room}
  invites: {}, // private table id -> its invite code (from a link, or made here)
  opened: new Set(load(OPENED_KEY, [])), // the tables this browser opened (it arranges them)
  rememberOpened(table) {
    this.opened.add(table);
    save(OPENED_KEY, [...this.opened].slice(-50));
  },
  ready: null, // resolves once logged in (or known to be logged out)
  navigate(path) {
    if (location.hash.replace(/^#/, "") === path) route(true);
    else location.hash = path;
  },

  seatAt(table) { return this.seats[table] || null; },
  rememberSeat(table, seat, token, room) {
    this.seats[table] = { seat, token, room, at: Date.now() };
    save(SEATS_KEY, this.seats);
  },
  forgetSeat(table) { delete this.seats[table]; save(SEATS_KEY, this.seats); },

  ignored() { return new Set(this.me ? load(IGNORE_KEY, {})[this.me.name] || [] : []); },
  async setIgnored(name, on) {
    await this.conn.request({ type: "ignore", name, on });
    const all = load(IGNORE_KEY, {});
    const mine = new Set(all[this.me.name] || []);
    if (on) mine.add(name); else mine.delete(name);
    all[this.me.name] = [...mine];
    save(IGNORE_KEY, all);
    for (const fn of this.chatListeners) fn(null);
  },
  chatLog(key) {
    if (!this.chats.has(key)) this.chats.set(key, []);
    return this.chats.get(key);
  },

  /** Sign in with `message` (register, login, guest, resume), in the language on screen:
   *  the server's words follow it. A server that does not know the field (it refuses it,
   *  field "language") is asked again without it, and not told again. */
  async signIn(message) {
    // A login from a browser that never chose a language itself says none: the account's
    // own choice (its profile setting) then comes back in the welcome.
    if (!this.speaksLanguages || (message.type === "login" && !rememberedChoice())) {
      return this.conn.request(message);
    }
    try {
      return await this.conn.request({ ...message, language: language() });
    } catch (err) {
      if (err.code !== "invalid_field" || err.reply?.field !== "language") throw err;
      this.speaksLanguages = false;
      return this.conn.request(message);
    }
  },
  speaksLanguages: true,

  async loggedIn(welcome) {
    this.me = { name: welcome.name, guest: welcome.guest };
    this.serverLanguage = welcome.language ?? null; // the language the server speaks to us
    // An account's language (its profile setting), unless this browser chose one itself:
    // the page is drawn again in it.
    if (welcome.language && welcome.language !== language() && !rememberedChoice()
        && Object.hasOwn(LANGUAGES, welcome.language)) {
      save(SESSION_KEY, { token: welcome.session, name: welcome.name, guest: welcome.guest });
      remember(welcome.language);
      location.reload();
      return;
    }
    save(SESSION_KEY, { token: welcome.session, name: welcome.name, guest: welcome.guest });
    if (welcome.device) save(DEVICES_KEY, { ...load(DEVICES_KEY, {}), [welcome.name.toLowerCase()]: welcome.device });
    renderHeader();
    this.conn.request({ type: "list_rooms" }).then((r) => { this.rooms = r.rooms; }).catch(() => {});
    // The server forgets ignores when it restarts; tell it again.
    for (const name of this.ignored()) this.conn.send({ type: "ignore", name, on: true });
  },
  deviceFor(name) { return load(DEVICES_KEY, {})[String(name).toLowerCase()]; },
  signOut() {
    // The session ends on the server too (sent now or never: not queued for a later socket).
    if (this.conn.ws?.readyState === WebSocket.OPEN) this.conn.ws.send(JSON.stringify({ type: "logout" }));
    localStorage.removeItem(SESSION_KEY);
    this.me = null;
    this.conn.drop();
    renderHeader();
    this.navigate("/signin");
    route();
  },
};

let page = null;
let pageKey = "";
const main = document.getElementById("main");
const header = document.getElementById("top");
const statusEl = h("span", { class: "conn-status", role: "status", "aria-live": "polite" });

function renderHeader() {
  const me = ctx.me;
  fill(header,
    h("a", { class: "brand", href: "#/" }, h("span", { "aria-hidden": "true" }, "♠♥ "), t("brand")),
    h("nav", { "aria-label": t("nav.main") },
      h("a", { href: "#/" }, t("nav.lobby")),
      h("a", { href: "#/leaders" }, t("nav.leaders")),
      me && !me.guest ? h("a", { href: "#/friends" }, t("nav.friends")) : null,
      me && !me.guest ? h("a", { href: `#/player/${encodeURIComponent(me.name)}` }, t("nav.profile")) : null),
    h("span", { class: "who" },
      statusEl,
      languageSwitch(),
      me ? [h("span", { class: "me-name", title: me.guest ? t("nav.guest_name", { name: me.name }) : me.name },
        me.guest ? t("nav.guest_name", { name: me.name }) : me.name),
        h("button", { type: "button", class: "link", onclick: () => ctx.signOut() }, t("nav.sign_out"))]
        : h("a", { href: "#/signin" }, t("nav.sign_in"))));
}

/** The language switch in the bar: each language by its own name. Choosing one remembers
 *  it in this browser and, for an account, in its profile (the `settings` request); the
 *  page is then drawn again in it. */
function languageSwitch() {
  const offered = { ...LANGUAGES, ...(language() === PSEUDO ? { [PSEUDO]: PSEUDO } : {}) };
  return h("select", { class: "lang-switch", "aria-label": t("nav.language"), lang: language(),
    onchange: async (e) => {
      const code = e.target.value;
      remember(code);
      if (ctx.me && !ctx.me.guest) {
        await ctx.conn.request({ type: "settings", language: code }, { timeout: 3000 }).catch(() => {});
      }
      location.reload();
    } },
  Object.entries(offered).map(([code, name]) =>
    h("option", { value: code, lang: code, selected: code === language() ? true : null }, name)));
}

function parseRoute() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query] = raw.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = Object.fromEntries(new URLSearchParams(query || ""));
  return { parts, params, key: raw };
}

async function route(force = false) {
  const { parts, params, key } = parseRoute();
  const [head, arg] = parts;
  if (!["review", "player", "leaders"].includes(head)) await ctx.ready;
  const [, , code] = parts;
  if (parseRoute().key !== key) return; // the hash moved on while we waited
  let module, routeParams = { ...params };
  if (head === "review" && arg) { module = review; routeParams.id = arg; }
  else if (head === "player" && arg) { module = profile; routeParams.name = arg; routeParams.page = "player"; }
  else if (head === "leaders") { module = profile; routeParams.page = "leaders"; }
  else if (head === "join" && arg && code) { module = join; routeParams.table = arg; routeParams.code = code; }
  else if (!ctx.me || head === "signin") { module = signin; routeParams.next = head === "signin" ? "" : key; }
  else if (head === "table" && arg) { module = tablePage; routeParams.id = arg; }
  else if (head === "friends") { module = friends; }
  else { module = lobby; routeParams.room = head === "room" ? arg : params.room; }
  const newKey = `${module === signin ? "signin" : "page"}:${key}`;
  if (newKey === pageKey && page && force !== true) return;
  page?.unmount?.();
  pageKey = newKey;
  fill(main);
  window.scrollTo(0, 0);
  page = module.mount(main, ctx, routeParams) || {};
  document.body.dataset.page = head || "lobby";
}

ctx.conn.onMessage((msg) => {
  if (challenges.onMessage(ctx, msg)) return;
  if (msg.type === "chat") {
    const key = msg.table ? `table:${msg.table}` : `room:${msg.room}`;
    const log = ctx.chatLog(key);
    log.push({ name: msg.name, text: msg.text, at: Date.now() });
    if (log.length > 200) log.shift();
    for (const fn of ctx.chatListeners) fn(key);
    return;
  }
  if (msg.type === "seated" && msg.id == null) {
    // Seated by the server (a ranked queue match), or moved to another seat at our table
    // (its opener's move, or new partners for a rematch): go to the table, at that seat.
    const moved = ctx.seatAt(msg.table);
    ctx.rememberSeat(msg.table, msg.seat, msg.seat_token, moved?.room ?? null);
    toast(moved ? t("toast.moved_seat") : t("toast.table_ready"), "good");
    ctx.navigate(`/table/${msg.table}`);
  }
  page?.onMessage?.(msg);
});

async function resume() {
  const stored = load(SESSION_KEY, null);
  if (!stored?.token) { ctx.me = null; return; }
  try {
    await ctx.loggedIn(await ctx.signIn({ type: "resume", token: stored.token }));
  } catch (err) {
    if (err.code === "not_authorized") { localStorage.removeItem(SESSION_KEY); ctx.me = null; }
    else throw err;
  }
}

ctx.conn.onStatus(async (status) => {
  const labels = { open: "", reconnected: "", moved: "", closed: t("conn.reconnecting"), connecting: t("conn.connecting") };
  statusEl.textContent = labels[status] ?? "";
  statusEl.classList.toggle("bad", status === "closed");
  document.body.dataset.conn = status;
  if (status === "reconnected") {
    await resume().catch(() => {});
    page?.onReconnect?.();
  } else if (status === "moved") {
    await resume().catch(() => {}); // at the table's node: the request that moved comes next
  }
});

ctx.ready = new Promise((resolve) => {
  const off = ctx.conn.onStatus((status) => {
    if (status !== "open") return;
    off();
    resume().catch(() => {}).finally(resolve);
  });
});

document.title = t("page.title");
const skip = document.querySelector(".skip");
if (skip) skip.textContent = t("page.skip");
renderHeader();
ctx.conn.connect();
window.addEventListener("hashchange", route);
route();
window.trickroom = ctx; // for the browser tests and the curious

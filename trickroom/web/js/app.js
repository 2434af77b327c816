// The app: one socket, the session, the header, and a hash router over the pages.
//
// Pages are modules with mount(main, ctx, params) returning {unmount, onMessage}.
// Messages from the socket go to the page on screen; chat is kept here per room
// and per table so a page shows what was said while it was elsewhere.

import { h, fill, toast } from "./dom.js";
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

  async loggedIn(welcome) {
    this.me = { name: welcome.name, guest: welcome.guest };
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
    h("a", { class: "brand", href: "#/" }, h("span", { "aria-hidden": "true" }, "♠♥ "), "trickroom"),
    h("nav", { "aria-label": "Main" },
      h("a", { href: "#/" }, "Lobby"),
      h("a", { href: "#/leaders" }, "Leaderboards"),
      me && !me.guest ? h("a", { href: "#/friends" }, "Friends") : null,
      me && !me.guest ? h("a", { href: `#/player/${encodeURIComponent(me.name)}` }, "Profile") : null),
    h("span", { class: "who" },
      statusEl,
      me ? [h("span", { class: "me-name" }, me.name, me.guest ? " (guest)" : ""),
        h("button", { type: "button", class: "link", onclick: () => ctx.signOut() }, "Sign out")]
        : h("a", { href: "#/signin" }, "Sign in")));
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
    // Seated by the server (a ranked queue match): go to the table.
    ctx.rememberSeat(msg.table, msg.seat, msg.seat_token, null);
    toast("Your table is ready", "good");
    ctx.navigate(`/table/${msg.table}`);
  }
  page?.onMessage?.(msg);
});

async function resume() {
  const stored = load(SESSION_KEY, null);
  if (!stored?.token) { ctx.me = null; return; }
  try {
    await ctx.loggedIn(await ctx.conn.request({ type: "resume", token: stored.token }));
  } catch (err) {
    if (err.code === "not_authorized") { localStorage.removeItem(SESSION_KEY); ctx.me = null; }
    else throw err;
  }
}

ctx.conn.onStatus(async (status) => {
  const labels = { open: "", reconnected: "", moved: "", closed: "Reconnecting…", connecting: "Connecting…" };
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

renderHeader();
ctx.conn.connect();
window.addEventListener("hashchange", route);
route();
window.trickroom = ctx; // for the browser tests and the curious

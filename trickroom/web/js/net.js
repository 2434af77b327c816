// The socket: requests with ids and their replies, pushed messages, and reconnects.
//
// request() resolves with the reply that echoes its id, or rejects with a
// ServerError carrying the wire error's code. Everything else (table events,
// prompts, chat, lobby pushes, unsolicited errors) goes to the listeners given
// to onMessage. When the socket closes the connection retries with backoff and
// tells onStatus listeners, so the app can log in again and rejoin its table.
//
// In a cluster, a sit or rejoin for a table another node runs is answered
// "moved" with that node's URL: request() opens the socket there (status
// "moved": the app resumes its session first, as the server reads frames in
// order), sends the request again, and stays there. If that node's socket
// closes, the connection goes back to its first URL, whose node sends it on.
//
// A server that stops answering without closing (a paused machine) is found by
// silence: after `silentMs` without a message the connection pings, and a ping
// unanswered in `pongMs` drops the socket, which reconnects. At a table the
// wait is short (setLiveness), so a player reaches the table's new node within
// seconds; in the lobby it is long.

import { language, t } from "./i18n.js";

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message || reply.code);
    this.code = reply.code;
    this.reply = reply;
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.home = url; // where the connection started; a table's node is only visited
    this.moving = false;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    this.statusListeners = new Set();
    this.queue = [];
    this.retry = 0;
    this.opened = false;
    this.status = "connecting";
    this.heard = Date.now();
    this.silentMs = 15000;
    this.pongMs = 5000;
    this.openMs = 5000; // a socket not open by then is given up
    this.stopped = false;
    this.pinging = false;
    this.watchdog = null;
  }

  /** How long a silent socket waits before it pings, and how long for the pong (ms). */
  setLiveness(silentMs, pongMs = silentMs) {
    this.silentMs = silentMs;
    this.pongMs = pongMs;
  }

  checkLiveness() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || this.pinging) return;
    if (Date.now() - this.heard < this.silentMs) return;
    this.pinging = true;
    this.once({ type: "ping" }, this.pongMs)
      .catch((err) => {
        if (err.code === "timeout" && this.ws === ws) {
          console.info("trickroom: the server did not answer a ping; reconnecting");
          ws.close();
          ws.onclose?.({ code: 4000, reason: "no answer to a ping" }); // a paused server never closes
        }
      })
      .finally(() => { this.pinging = false; });
  }

  onMessage(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  onStatus(fn) { this.statusListeners.add(fn); return () => this.statusListeners.delete(fn); }

  setStatus(status) {
    this.status = status;
    for (const fn of this.statusListeners) fn(status);
  }

  connect() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.watchdog ??= setInterval(() => this.checkLiveness(), 500);
    // A paused server (or a proxy in front of one) takes the connection and never opens
    // the socket: give up on it, as on a silent one, and try again from the first URL.
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => {
      if (this.ws === ws && ws.readyState !== WebSocket.OPEN) {
        ws.close();
        ws.onclose?.({ code: 4001, reason: "the server did not open the socket" });
      }
    }, this.openMs);
    ws.onopen = () => {
      clearTimeout(this.openTimer);
      this.retry = 0;
      this.heard = Date.now();
      const reconnected = this.opened;
      const moved = this.moving;
      this.opened = true;
      this.moving = false;
      const queued = this.queue.splice(0);
      // Listeners log in again first (the server reads a socket's frames in order).
      this.setStatus(moved ? "moved" : reconnected ? "reconnected" : "open");
      for (const text of queued) ws.send(text);
    };
    ws.onmessage = (e) => { if (this.ws === ws) this.heard = Date.now(); this.receive(e.data); };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null; // closed once: a second close (ours after a lost ping) does nothing
      for (const [, p] of this.pending) p.reject(new ServerError({ code: "disconnected", message: t("net.lost") }));
      this.pending.clear();
      this.setStatus("closed");
      this.url = this.home; // a table's node gone: its tables' new nodes are found from here
      const delay = Math.min(8000, 300 * 2 ** this.retry++);
      console.info(`trickroom: the socket closed (code ${e.code}${e.reason ? `: ${e.reason}` : ""}); reconnecting in ${delay} ms`);
      setTimeout(() => { if (!this.stopped) this.connect(); }, delay);
    };
  }

  /** Follow a "moved": a socket at the table's node (the old one closed quietly). */
  moveTo(url) {
    const old = this.ws;
    this.ws = null; // its close is not a loss: nothing reconnects for it
    this.url = new URL(url, this.url).href;
    this.moving = true;
    for (const [, p] of this.pending) p.reject(new ServerError({ code: "disconnected", message: t("net.moved") }));
    this.pending.clear();
    old?.close(1000, "moved");
    this.connect();
  }

  /** Close for good: no reconnect, no ping (a page that no longer talks; tests). */
  shutdown() {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearTimeout(this.openTimer);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  /** Drop the socket on purpose (tests and "sign out"); it reconnects by itself. */
  drop() { this.ws?.close(); }

  receive(text) {
    let msg;
    try { msg = JSON.parse(text); } catch { return; }
    const waiting = msg.id != null ? this.pending.get(msg.id) : null;
    if (waiting) {
      this.pending.delete(msg.id);
      if (msg.type === "error") waiting.reject(new ServerError(msg));
      else waiting.resolve(msg);
      // A rejoin answered by a snapshot, and a watch's snapshot, are also table state.
      if (msg.type !== "snapshot") return;
    }
    for (const fn of this.listeners) fn(msg);
  }

  send(message) {
    const text = JSON.stringify(message);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.queue.push(text);
  }

  /** Send a request and wait for its reply; a rate-limited request is sent again. */
  async request(message, { timeout = 15000 } = {}) {
    for (let attempt = 0, moves = 0; ; attempt++) {
      try {
        const reply = await this.once(message, timeout);
        if (reply.type !== "moved" || moves++ >= 3) return reply;
        this.moveTo(reply.url);
      } catch (err) {
        if (err.code !== "rate_limited" || attempt > 20) throw err;
        await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
      }
    }
  }

  once(message, timeout) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ServerError({ code: "timeout", message: t("net.timeout") }));
      }, timeout);
      this.pending.set(id, {
        resolve: (m) => { clearTimeout(timer); resolve(m); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.send({ ...message, id });
    });
  }
}

/** GET a JSON API path, in the language on screen (`?lang=`: the rules' labels, the rating
 *  breakdowns); resolves to null on 404 so pages can say "not found". */
export async function getJSON(path) {
  const url = new URL(path, location.href);
  url.searchParams.set("lang", language());
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(t("net.http", { status: response.status }));
  return response.json();
}

// The socket: requests answered by id, everything else pushed, and `moved` followed.
// The same shape as the Python client (clients/python): `request`, `act`, `messages`.
// In a browser it uses the page's WebSocket; in Node (20 has none) the `ws` package.

const MAX_MOVES = 3; // a table that moves again as its player follows it: followed this often

/** A refusal from the server: `code` is the protocol's error code, `reply` the message. */
export class ServerError extends Error {
  constructor(reply) {
    super(`${reply.code}: ${reply.message}`);
    this.name = "ServerError";
    this.code = reply.code;
    this.reply = reply;
  }
}

async function webSocketClass() {
  if (typeof globalThis.WebSocket === "function") return globalThis.WebSocket;
  const { default: WebSocket } = await import("ws");
  return WebSocket;
}

async function open(url, options) {
  const WebSocket = await webSocketClass();
  const ws = options === undefined ? new WebSocket(url) : new WebSocket(url, [], options);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), {
      once: true,
    });
  });
  return ws;
}

export class TrickroomClient {
  /** Open a client; `options` go to the `ws` package's constructor in Node. */
  static async connect(url, options) {
    return new TrickroomClient(await open(url, options), url, options);
  }

  constructor(ws, url, options) {
    this.url = url; // the socket's URL now (a `moved` changes it)
    this.home = url; // the URL the client was opened with
    this.options = options;
    this.session = null; // the last welcome's session token (for `resume`)
    this.device = null; // the last registered welcome's device token (for later logins)
    this.received = []; // every message, for programs that audit their traffic
    this.nextId = 1;
    this.waiting = new Map(); // id -> {resolve, reject} of a request in flight
    this.inbox = []; // pushed messages not yet taken
    this.takers = []; // resolvers of `next` calls waiting for one
    this.closed = false;
    this.attach(ws);
  }

  attach(ws) {
    this.ws = ws;
    // A socket left behind for the table's own node still delivers what it had for us.
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(typeof event.data === "string" ? event.data : String(event.data));
      this.received.push(message);
      const waiter = Number.isInteger(message.id) ? this.waiting.get(message.id) : undefined;
      if (waiter) {
        this.waiting.delete(message.id);
        waiter.resolve(message);
      } else this.push(message);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return; // the one left behind: this client goes on
      this.closed = true;
      for (const waiter of this.waiting.values()) waiter.reject(new Error("connection closed"));
      this.waiting.clear();
      this.push(null);
    });
  }

  push(message) {
    const taker = this.takers.shift();
    if (taker) taker(message);
    else this.inbox.push(message);
  }

  send(message) {
    this.ws.send(JSON.stringify(message));
  }

  /** Send a request with a fresh id and resolve with its reply; an error rejects with a
   * ServerError. A `moved` reply (a table on another node) is followed: a socket there,
   * the session resumed, and the request sent again. */
  async request(message, { timeout = 10000 } = {}) {
    for (let move = 0; move < MAX_MOVES; move++) {
      const reply = await this.once(message, timeout);
      if (reply.type !== "moved") return reply;
      await this.move(reply.url);
    }
    throw new ServerError({ code: "moved", message: "the table kept moving: try again" });
  }

  async once(message, timeout) {
    if (this.closed) throw new Error("connection closed");
    const id = this.nextId++;
    let timer;
    const reply = await new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`no reply to ${message.type} in ${timeout} ms`));
      }, timeout);
      this.send({ ...message, id });
    }).finally(() => clearTimeout(timer));
    if (reply.type === "error") throw new ServerError(reply);
    if (reply.type === "welcome") {
      this.session = reply.session;
      this.device = reply.device ?? this.device;
    }
    return reply;
  }

  async move(url) {
    const target = new URL(url, this.url.replace(/^ws/, "http")).href.replace(/^http/, "ws");
    const ws = await open(target, this.options);
    const old = this.ws;
    this.url = target;
    this.attach(ws);
    old.close();
    if (this.session !== null) await this.request({ type: "resume", token: this.session });
  }

  /** A game action; when the server says to slow down, wait and send it again. */
  async act(table, action) {
    for (let attempt = 1; attempt <= 50; attempt++) {
      try {
        return await this.request({ type: "act", table, action });
      } catch (error) {
        if (!(error instanceof ServerError) || error.code !== "rate_limited") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
    throw new ServerError({ code: "rate_limited", message: "gave up after 50 tries" });
  }

  /** The next pushed message (not a reply), or null once the socket has closed. */
  next() {
    if (this.inbox.length > 0) {
      const message = this.inbox.shift();
      if (message === null) this.inbox.unshift(null); // closed stays closed
      return Promise.resolve(message);
    }
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => this.takers.push(resolve));
  }

  /** Every pushed message (events, prompts, chat, lobby pushes) until the socket closes. */
  async *messages() {
    for (;;) {
      const message = await this.next();
      if (message === null) return;
      yield message;
    }
  }

  /** Close the socket; resolves once it is closed. */
  close() {
    if (this.ws.readyState === 3) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.addEventListener("close", () => resolve(), { once: true });
      this.ws.close();
    });
  }
}

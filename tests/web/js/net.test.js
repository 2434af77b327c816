// The browser client's socket (trickroom/web/js/net.js) in a cluster: a sit or rejoin
// answered "moved" takes the connection to the table's node, where it resumes the
// session before sending the request again; when that node goes, the connection
// comes back to where it started. A fake WebSocket stands in for the browser's.

import { test } from "node:test";
import assert from "node:assert/strict";

import { Connection } from "../../../trickroom/web/js/net.js";

class FakeSocket {
  static OPEN = 1;
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    this.closed = false;
    FakeSocket.made.push(this);
  }

  send(text) { this.sent.push(JSON.parse(text)); }
  close() { this.closed = true; this.readyState = 3; this.onclose?.({ code: 1000, reason: "" }); }
  open() { this.readyState = FakeSocket.OPEN; this.onopen?.(); }
  answer(message) { this.onmessage?.({ data: JSON.stringify(message) }); }
  drop() { this.readyState = 3; this.onclose?.({ code: 1006, reason: "" }); }
}

globalThis.WebSocket = FakeSocket;
const tick = () => new Promise((r) => setTimeout(r, 0));

test("a sit answered moved is sent again on the table's node, after the session resumes", async () => {
  FakeSocket.made = [];
  const conn = new Connection("ws://play.example/ws");
  const statuses = [];
  conn.onStatus((status) => {
    statuses.push(status);
    if (status === "moved") conn.send({ type: "resume", token: "t0k" }); // as the app does
  });
  conn.connect();
  const lobby = FakeSocket.made[0];
  lobby.open();

  const seated = conn.request({ type: "sit", table: "Xy12ab", seat: 1 });
  const sit = lobby.sent.at(-1);
  assert.equal(sit.type, "sit");
  lobby.answer({ type: "moved", id: sit.id, table: "Xy12ab", url: "/node/2/ws", message: "go" });
  await tick();

  assert.ok(lobby.closed, "the lobby's socket closes");
  const node = FakeSocket.made[1];
  assert.equal(node.url, "ws://play.example/node/2/ws");
  node.open();
  await tick();
  assert.deepEqual(node.sent.map((m) => m.type), ["resume", "sit"]); // in that order
  const again = node.sent[1];
  assert.equal(again.table, "Xy12ab");
  assert.equal(again.seat, 1);
  node.answer({ type: "seated", id: again.id, table: "Xy12ab", seat: 1, seat_token: "s" });
  assert.equal((await seated).type, "seated");
  assert.ok(statuses.includes("moved") && !statuses.includes("closed"));
  conn.shutdown();
});

test("when the table's node goes, the connection goes back to where it started", async () => {
  FakeSocket.made = [];
  const conn = new Connection("ws://play.example/ws");
  conn.connect();
  FakeSocket.made[0].open();
  const rejoin = conn.request({ type: "rejoin", table: "T1", seat_token: "s" });
  const sent = FakeSocket.made[0].sent.at(-1);
  FakeSocket.made[0].answer({ type: "moved", id: sent.id, table: "T1", url: "ws://node3.example:8003/ws", message: "go" });
  await tick();
  const node = FakeSocket.made[1];
  assert.equal(node.url, "ws://node3.example:8003/ws"); // a whole URL is taken as it is
  node.open();
  await tick();
  node.answer({ type: "snapshot", id: node.sent.at(-1).id, table: "T1" });
  await rejoin;

  node.drop(); // the node died
  await new Promise((r) => setTimeout(r, 400)); // the first reconnect waits 300 ms
  assert.equal(FakeSocket.made.at(-1).url, "ws://play.example/ws");
  conn.shutdown();
});

test("a server that stops answering without closing is left after a ping goes unanswered", async () => {
  FakeSocket.made = [];
  const conn = new Connection("ws://play.example/node/1/ws");
  conn.home = "ws://play.example/ws";
  conn.setLiveness(20, 20);
  conn.connect();
  const paused = FakeSocket.made[0];
  paused.open();
  await new Promise((r) => setTimeout(r, 30));
  conn.checkLiveness(); // (the watchdog's own turn, without waiting for it)
  assert.equal(paused.sent.at(-1).type, "ping");
  await new Promise((r) => setTimeout(r, 40)); // no pong
  assert.ok(paused.closed, "the silent socket is dropped");
  await new Promise((r) => setTimeout(r, 350)); // the first reconnect waits 300 ms
  assert.equal(FakeSocket.made.at(-1).url, "ws://play.example/ws");
  conn.shutdown();
});

test("a server that answers its ping is kept", async () => {
  FakeSocket.made = [];
  const conn = new Connection("ws://play.example/ws");
  conn.setLiveness(20, 200);
  conn.connect();
  const server = FakeSocket.made[0];
  server.open();
  await new Promise((r) => setTimeout(r, 30));
  conn.checkLiveness();
  const ping = server.sent.at(-1);
  assert.equal(ping.type, "ping");
  server.answer({ type: "pong", id: ping.id });
  await new Promise((r) => setTimeout(r, 250));
  assert.ok(!server.closed);
  assert.equal(FakeSocket.made.length, 1);
  conn.shutdown();
});

test("a socket that never opens is given up, and the connection tries its first URL again", async () => {
  FakeSocket.made = [];
  const conn = new Connection("ws://play.example/node/2/ws");
  conn.home = "ws://play.example/ws";
  conn.openMs = 20;
  conn.connect(); // the node took the connection, and never answers the handshake
  await new Promise((r) => setTimeout(r, 30));
  assert.ok(FakeSocket.made[0].closed);
  await new Promise((r) => setTimeout(r, 350)); // the first reconnect waits 300 ms
  assert.equal(FakeSocket.made.at(-1).url, "ws://play.example/ws");
  FakeSocket.made.at(-1).open();
  assert.equal(conn.status, "open"); // (it had never been open)
  conn.shutdown();
});

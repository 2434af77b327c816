// The client against live servers, started by tests/clients/test_js.py: TRICKROOM_URL, and
// TRICKROOM_SLOW_URL whose turns run out in half a second. Requests by id, pushed messages,
// whole games with the play helper and trickroom-bot. It imports the package by its name,
// so it runs the same on the checkout and on an installed `npm pack` of it.
// TRICKROOM_WEBSOCKET says which WebSocket the client must use: "global" (a browser's, or
// Node's with --experimental-websocket) or "ws" (Node 20 has none of its own).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import {
  STALE,
  ServerError,
  TrickroomClient,
  play,
  playGames,
  randomAction,
  signIn,
  takeASeat,
} from "trickroom-client";

const URL = process.env.TRICKROOM_URL;
const SLOW_URL = process.env.TRICKROOM_SLOW_URL;
const ONE_HAND = { hand_limit: 1 }; // a game of one hand: whole games in a short test

test("a request is answered by its id, and a refusal is a ServerError", async () => {
  const client = await TrickroomClient.connect(URL);
  try {
    const welcome = await client.request({ type: "guest", name: "js" });
    assert.equal(welcome.type, "welcome");
    assert.equal(client.session, welcome.session);
    await assert.rejects(client.request({ type: "sit", table: "nosuch" }),
      (error) => error instanceof ServerError && error.code === "no_such_table");
  } finally {
    await client.close();
  }
});

test("the client uses the platform's WebSocket where there is one, else ws", async () => {
  const client = await TrickroomClient.connect(URL);
  try {
    const expected = process.env.TRICKROOM_WEBSOCKET === "global"
      ? globalThis.WebSocket : (await import("ws")).default;
    assert.equal(typeof expected, "function");
    assert.ok(client.ws instanceof expected);
  } finally {
    await client.close();
  }
});

test("pushed messages come through the async iterator, replies do not", async () => {
  const client = await TrickroomClient.connect(URL);
  try {
    await client.request({ type: "guest" });
    const created = await client.request({ type: "create_table", room: "spades" });
    await client.request({ type: "sit", table: created.table.id });
    for await (const message of client.messages()) {
      assert.notEqual(message.type, "seated"); // our sit's reply went to its request
      if (message.type === "event" && message.event.type === "table") break;
    }
  } finally {
    await client.close();
  }
});

test("play opens a table with the caller's fields and plays the games asked", async () => {
  const prompts = [];
  const results = await play(URL, (prompt) => {
    prompts.push(prompt);
    return randomAction(prompt);
  }, {
    room: "hearts",
    games: 2,
    create: { private: true, rules: { ...ONE_HAND, pass_count: 2 } },
    fillRobots: "random",
  });
  assert.deepEqual(results.map((r) => r.type), ["game_over", "game_over"]);
  assert.ok(results.every((r) => r.scores.length === 4 && [0, 1, 2, 3].includes(r.seat)));
  assert.ok(prompts.every((p) => p.view.rules.hand_limit === 1));
  const passes = prompts.filter((p) => p.phase === "pass");
  assert.ok(passes.length > 0 && passes.every((p) => p.pass_count === 2));
});

test("a rematch with new partners is played from the seat it moved to", async () => {
  const results = await play(URL, randomAction, {
    room: "spades", create: { rules: ONE_HAND }, seat: 1, fillRobots: "random", games: 3,
    again: { seats: "rotate" },
  });
  assert.deepEqual(results.map((r) => r.seat), [1, 2, 3]);
});

test("the package's trickroom-bot plays whole games of the room's own rules", async () => {
  const bin = join(dirname(createRequire(import.meta.url).resolve("trickroom-client")), "bot.js");
  const { stdout } = await promisify(execFile)(process.execPath, [bin, URL, "--room", "spades",
    "--games", "2", "--create", "{}", "--fill", "--level", "random"]);
  const lines = stdout.trim().split("\n");
  assert.deepEqual(lines.map((line) => line.split(":")[0]),
    ["game 1 over", "game 2 over", "summary"]);
});

test("a prompt a timer overtook is answered late, and the game goes on", async () => {
  const client = await TrickroomClient.connect(SLOW_URL);
  try {
    await signIn(client, { name: "slow" });
    const { table } = await takeASeat(client, { create: { rules: ONE_HAND }, fillRobots: "random" });
    let late = false;
    const timedOut = () => client.received.some(
      (m) => m.type === "event" && m.event.type === "timed_out");
    const results = await playGames(client, table, async (prompt) => {
      if (!late) {
        late = true; // the first answer waits until a robot has played the turn
        while (!timedOut()) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return randomAction(prompt);
    });
    assert.equal(results[0].type, "game_over");
    const refusals = client.received.filter((m) => m.type === "error");
    assert.ok(refusals.length > 0 && refusals.every((m) => STALE.has(m.code)));
  } finally {
    await client.close();
  }
});

// The client against a live server (TRICKROOM_URL, started by tests/clients/test_js.py):
// requests by id, pushed messages, and whole games with the play helper and trickroom-bot.
// It imports the package by its name, so it runs the same on the checkout and on an
// installed `npm pack` of it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { ServerError, TrickroomClient, play, randomAction } from "trickroom-client";

const URL = process.env.TRICKROOM_URL;
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

test("the package's trickroom-bot plays whole games of the room's own rules", async () => {
  const bin = join(dirname(createRequire(import.meta.url).resolve("trickroom-client")), "bot.js");
  const { stdout } = await promisify(execFile)(process.execPath, [bin, URL, "--room", "spades",
    "--games", "2", "--create", "{}", "--fill", "random"]);
  const lines = stdout.trim().split("\n");
  assert.deepEqual(lines.map((line) => line.split(":")[0]),
    ["game 1 over", "game 2 over", "summary"]);
});

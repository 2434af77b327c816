#!/usr/bin/env node
// trickroom-bot: plays a random legal action each turn, with nothing but this package.
// Usage: trickroom-bot [URL] [--room R] [--games N] [--name N] [--password P]
//                      [--table T] [--invite CODE] [--create JSON] [--fill] [--level L]
import { parseArgs } from "node:util";
import { play, randomAction } from "./index.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    room: { type: "string", default: "spades" },
    games: { type: "string", default: "1" },
    name: { type: "string" },
    password: { type: "string" },
    table: { type: "string" },
    invite: { type: "string" },
    create: { type: "string" },
    fill: { type: "boolean", default: false },
    level: { type: "string" }, // the robots' level; the server's default without it
  },
});
const url = positionals[0] ?? "ws://127.0.0.1:8765/ws";
try {
  const results = await play(url, randomAction, {
    ...values,
    games: Number(values.games),
    create: values.create ? JSON.parse(values.create) : undefined,
    fillRobots: values.fill ? values.level ?? true : false,
  });
  results.forEach((r, i) => console.log(
    `game ${i + 1} over: scores ${JSON.stringify(r.scores)}, won by seats ` +
    `${JSON.stringify(r.winners)} (this bot: seat ${r.seat})`));
  const won = results.filter((r) => r.winners.includes(r.seat)).length;
  console.log(`summary: ${results.length} game(s), ${won} won`);
} catch (error) {
  console.error(`trickroom-bot: ${error.message}`);
  process.exitCode = 1;
}

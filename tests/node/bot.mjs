// A trickroom bot from docs/protocol.md alone: plays one game at a new table filled with
// robots, a random legal action a turn, and checks every message the server sends
// against the server_to_client schema of `trickroom schema`.
// Usage: node bot.mjs ws://127.0.0.1:8765/ws spades schema.json
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import WebSocket from "ws";

const [url, room, schemaFile] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaFile, "utf8"));

// OpenAPI's `discriminator` is a hint on top of oneOf; Ajv wants it without `mapping`.
function dropDiscriminators(node) {
  if (Array.isArray(node)) node.forEach(dropDiscriminators);
  else if (node && typeof node === "object") {
    delete node.discriminator;
    Object.values(node).forEach(dropDiscriminators);
  }
}
const serverSchema = schema.server_to_client;
dropDiscriminators(serverSchema);
const validate = new Ajv2020({ strict: false, allErrors: false }).compile(serverSchema);

const ws = new WebSocket(url);
let nextId = 1;
let table = null;
let checked = 0;
const send = (message) => ws.send(JSON.stringify({ ...message, id: nextId++ }));
const pick = (items, n) => [...items].sort(() => Math.random() - 0.5).slice(0, n);

function fail(why) {
  console.error(why);
  process.exit(1);
}

ws.on("open", () => {
  send({ type: "guest", name: "node" });
  send({ type: "create_table", room });
});

ws.on("message", (data) => {
  const message = JSON.parse(data.toString());
  if (!validate(message)) fail(`schema rejects ${data}: ${JSON.stringify(validate.errors)}`);
  checked += 1;
  if (message.type === "error" && !["not_your_turn", "wrong_phase"].includes(message.code)) {
    fail(`refused: ${message.code}: ${message.message}`);
  } else if (message.type === "table_created") {
    table = message.table.id;
    send({ type: "sit", table });
    send({ type: "fill_robots", table, level: "random" });
  } else if (message.type === "prompt") {
    const action = message.phase === "pass"
      ? { type: "pass", cards: pick(message.hand, message.pass_count) }
      : pick(message.legal, 1)[0];
    send({ type: "act", table, action });
  } else if (message.type === "event" && message.event.type === "game_over") {
    console.log(JSON.stringify({ scores: message.event.scores, checked }));
    ws.close();
  }
});

ws.on("close", () => process.exit(table ? 0 : 1));
ws.on("error", (err) => fail(String(err)));

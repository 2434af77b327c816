// The types: src/protocol.d.ts is what scripts/types.mjs makes of the server's schema
// (TRICKROOM_SCHEMA, the output of `trickroom schema`), and a typed bot passes tsc.
// Runs on the checkout, with the devDependencies installed.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { promisify } from "node:util";
import { OUTPUT, protocolTypes } from "../scripts/types.mjs";

test("protocol.d.ts is generated from the schema the server publishes", async () => {
  const schema = JSON.parse(readFileSync(process.env.TRICKROOM_SCHEMA, "utf8"));
  const fresh = await protocolTypes(schema);
  assert.ok(fresh === readFileSync(OUTPUT, "utf8"),
    "src/protocol.d.ts is stale: run `trickroom schema > schema.json && " +
    "node clients/js/scripts/types.mjs schema.json` and commit it");
});

test("a bot written in TypeScript type-checks against the declarations", async () => {
  const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
  const bot = fileURLToPath(new URL("typed-bot.ts", import.meta.url));
  await promisify(execFile)(process.execPath, [tsc, "--noEmit", "--strict", "--module",
    "nodenext", "--target", "es2022", "--skipLibCheck", "false", bot]).catch((error) => {
    assert.fail(`tsc: ${error.stdout}${error.stderr}`);
  });
});

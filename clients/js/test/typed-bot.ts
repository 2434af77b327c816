// A bot typed by the package's declarations: `tsc --noEmit` (test/types.test.mjs) checks it.
import { play, type Action, type Prompt } from "trickroom-client";

function choose(prompt: Prompt): Action {
  if (prompt.phase === "pass") return { type: "pass", cards: prompt.hand.slice(0, 3) };
  return prompt.legal[0];
}

const results = await play("ws://127.0.0.1:8765/ws", choose, { room: "hearts", games: 1 });
const scores: number[][] = results.map((result) => result.scores);
console.log(scores);

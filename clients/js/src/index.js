// trickroom's JavaScript client: the socket (TrickroomClient) and whole games on it (play,
// with a choose(prompt) of the bot's own). Types: index.d.ts, and protocol.d.ts generated
// from the server's JSON Schema.
export { ServerError, TrickroomClient } from "./client.js";
export {
  STALE,
  findOrCreateTable,
  play,
  playGames,
  randomAction,
  signIn,
  takeASeat,
} from "./play.js";

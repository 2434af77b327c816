// Playing whole games through the socket: a bot author writes `choose`, this does the rest.
// The same steps as the Python client's play helper (clients/python): signIn, takeASeat,
// playGames, and play for the three in a row on a new connection. A prompt is the object
// the server sends (docs/protocol.md): `legal` (empty for a Hearts pass), `view`, `phase`,
// `hand`, `pass_count`. `choose(prompt)` returns an action (or a promise of one).
//
// A turn may be prompted again (same `seq`: answered once), and a prompt may be stale by
// the time it is answered (the time ran out and a robot played: `timed_out`, then the late
// answer is refused `not_your_turn` or `wrong_phase`, which is not the bot's error).
import { ServerError, TrickroomClient } from "./client.js";

export const STALE = new Set(["not_your_turn", "wrong_phase"]);
const TAKEN = new Set(["seat_taken", "table_full", "no_such_table"]);
const SEAT_TRIES = 5;

/** A random legal action: one of `legal`, or for a Hearts pass `pass_count` random cards. */
export function randomAction(prompt, random = Math.random) {
  if (prompt.phase === "pass" && prompt.legal.length === 0) {
    const count = prompt.pass_count ?? prompt.view.rules.pass_count;
    const hand = [...prompt.hand];
    for (let i = hand.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [hand[i], hand[j]] = [hand[j], hand[i]];
    }
    return { type: "pass", cards: hand.slice(0, count) };
  }
  return { ...prompt.legal[Math.floor(random() * prompt.legal.length)] };
}

/** Log in (registering a new name), or play as a guest without a password. */
export async function signIn(client, { name, password } = {}) {
  if (password === undefined || password === null) {
    return client.request(name ? { type: "guest", name } : { type: "guest" });
  }
  if (!name) throw new Error("a password needs a name");
  const login = { type: "login", name, password };
  if (client.device) login.device = client.device;
  try {
    return await client.request(login);
  } catch (refused) {
    if (!(refused instanceof ServerError) || refused.code !== "bad_credentials") throw refused;
    try {
      return await client.request({ type: "register", name, password });
    } catch (again) {
      if (again instanceof ServerError && again.code === "name_taken") throw refused;
      throw again;
    }
  }
}

/** A waiting table of the room with a free seat, or a new one; with `create`, always a new
 * one with those extra create_table fields. null: none may be opened now (look again). */
export async function findOrCreateTable(client, room, create) {
  if (!create) {
    const listing = await client.request({ type: "list_tables", room });
    const open = listing.tables.find(
      (t) => t.state === "waiting" && t.seats.some((s) => s.kind === "empty"),
    );
    if (open) return open.id;
  }
  try {
    const created = await client.request({ type: "create_table", room, ...(create ?? {}) });
    return created.table.id;
  } catch (error) {
    if (!(error instanceof ServerError) || error.code !== "rate_limited") throw error;
    await new Promise((resolve) => setTimeout(resolve, 1000 * (error.reply.retry_after ?? 0.5)));
    return null;
  }
}

/** Sit at `table` (at `seat`, with a private table's `invite`), else at a new table of
 * `room` opened with `create`'s fields, else at a waiting table of the room or a new one;
 * then robots fill the empty seats if asked (`fillRobots` true, or a level). */
export async function takeASeat(client, { room = "spades", table, seat, invite, create,
  fillRobots = false } = {}) {
  for (let attempt = 0; attempt < SEAT_TRIES; attempt++) {
    const chosen = table ?? (await findOrCreateTable(client, room, create));
    if (chosen === null) continue;
    const sit = { type: "sit", table: chosen };
    if (seat !== undefined && seat !== null) sit.seat = seat;
    if (invite) sit.invite = invite;
    let seated;
    try {
      seated = await client.request(sit);
    } catch (error) {
      if (!table && !create && error instanceof ServerError && TAKEN.has(error.code)) continue;
      throw error;
    }
    if (fillRobots) {
      const fill = { type: "fill_robots", table: chosen };
      if (typeof fillRobots === "string") fill.level = fillRobots;
      try {
        await client.request(fill);
      } catch (error) {
        if (!(error instanceof ServerError) || error.code !== "table_full") throw error;
      }
    }
    return { table: chosen, seat: seated.seat };
  }
  throw new ServerError({ code: "table_full", message: `no seat came free in room ${room}` });
}

/** Answer every prompt of `table` with `choose` until `games` games are over; resolve with
 * each game's game_over event, with `seat`: this player's seat in it. After each game but
 * the last it asks play_again (with `again`'s fields); `onMessage` sees every pushed
 * message first. */
export async function playGames(client, table, choose, { games = 1, onMessage, playAgain = true,
  again, seat = null } = {}) {
  const results = [];
  let answered = -1;
  for await (const message of client.messages()) {
    onMessage?.(message);
    if (message.table !== table) continue;
    if (message.type === "seated") seat = message.seat;
    else if (message.type === "prompt" && message.seq > answered) {
      answered = message.seq;
      seat = message.seat;
      const action = await choose(message);
      try {
        await client.act(table, action);
      } catch (error) {
        if (!(error instanceof ServerError) || !STALE.has(error.code)) throw error;
      }
    } else if (message.type === "event" && message.event.type === "game_over") {
      results.push({ ...message.event, seat });
      if (results.length >= games) return results;
      if (playAgain) await client.request({ type: "play_again", table, ...(again ?? {}) });
    }
  }
  throw new Error(`the connection closed after ${results.length} of ${games} game(s)`);
}

/** Connect, sign in, take a seat and play `games` games; resolve with each game_over. */
export async function play(url, choose = randomAction, options = {}) {
  const { name, password, connect, games = 1, onMessage, playAgain = true, again } = options;
  const client = await TrickroomClient.connect(url, connect);
  try {
    await signIn(client, { name, password });
    const { table, seat } = await takeASeat(client, options);
    return await playGames(client, table, choose, { games, onMessage, playAgain, again, seat });
  } finally {
    await client.close();
  }
}

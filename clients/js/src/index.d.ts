// The client's API; the messages' types are protocol.d.ts, generated from the server's
// JSON Schema (scripts/types.mjs).
import type {
  ClientMessage,
  GameOver,
  Prompt,
  ServerMessage,
} from "./protocol.js";

export type * from "./protocol.js";

/** A game action: one of a prompt's `legal`, or a Hearts pass. */
export type Action = Prompt["legal"][number];
/** A request as a client writes it: `request` adds the `id`. */
export type Request = Omit<ClientMessage, "id">;
/** A reply or a pushed message: any message of the server. */
export type Message = ServerMessage;
/** A bot's choice for a prompt. */
export type Choose = (prompt: Prompt) => Action | Promise<Action>;
/** A finished game: its game_over event, with the seat this player had in it. */
export type GameResult = GameOver & { seat: number | null };

export class ServerError extends Error {
  constructor(reply: { code: string; message: string; [key: string]: unknown });
  /** The protocol's error code: `not_your_turn`, `seat_taken`... */
  code: string;
  /** The whole error message (`field`, `retry_after`...). */
  reply: { code: string; message: string; [key: string]: unknown };
}

export class TrickroomClient {
  /** Open a socket; `options` go to the `ws` package's constructor in Node. */
  static connect(url: string, options?: object): Promise<TrickroomClient>;
  url: string;
  home: string;
  /** The last welcome's session token, for `resume`. */
  session: string | null;
  /** The last registered welcome's device token, for later logins. */
  device: string | null;
  /** Every message received, for programs that audit their traffic. */
  received: Message[];
  send(message: ClientMessage): void;
  /** Send with a fresh id; resolves with the reply, rejects with a ServerError. */
  request(message: Request, options?: { timeout?: number }): Promise<any>;
  act(table: string, action: Action): Promise<any>;
  /** The next pushed message, or null once the socket has closed. */
  next(): Promise<Message | null>;
  messages(): AsyncGenerator<Message, void, undefined>;
  close(): Promise<void>;
}

export const STALE: Set<string>;

export interface SeatOptions {
  room?: string;
  table?: string;
  seat?: number;
  invite?: string;
  /** Extra create_table fields; given, a new table is always opened. */
  create?: Record<string, unknown>;
  /** Robots in the empty seats: true for the server's default level, or a level. */
  fillRobots?: boolean | string;
}

export interface GamesOptions {
  games?: number;
  onMessage?: (message: Message) => void;
  playAgain?: boolean;
  /** Extra play_again fields, such as `{ seats: "rotate" }`. */
  again?: Record<string, unknown>;
  seat?: number | null;
}

export interface PlayOptions extends SeatOptions, Omit<GamesOptions, "seat"> {
  name?: string;
  password?: string;
  /** Options for the `ws` package's constructor (Node). */
  connect?: object;
}

export function randomAction(prompt: Prompt, random?: () => number): Action;
export function signIn(client: TrickroomClient,
  credentials?: { name?: string; password?: string }): Promise<any>;
export function findOrCreateTable(client: TrickroomClient, room: string,
  create?: Record<string, unknown>): Promise<string | null>;
export function takeASeat(client: TrickroomClient,
  options?: SeatOptions): Promise<{ table: string; seat: number }>;
export function playGames(client: TrickroomClient, table: string, choose: Choose,
  options?: GamesOptions): Promise<GameResult[]>;
export function play(url: string, choose?: Choose, options?: PlayOptions): Promise<GameResult[]>;

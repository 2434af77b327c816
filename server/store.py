"""Persistence: one interface, SQLite (aiosqlite) behind it.

Every accepted action is written before it is acknowledged (DESIGN section 9).
To keep that cheap, writes from all tables go through one writer task that
gathers whatever is queued into one transaction and commits it once (group
commit): a burst of actions from many tables costs one commit, not one each.
(The first write of a loop turn, with nothing queued, commits at once.)
Each ``await store.append_action(...)`` returns only after its transaction has
committed.

The writer commits on the event loop's own thread, through a plain ``sqlite3``
connection of its own. A commit without fsync takes tens of microseconds, less
than handing the batch to a worker thread and waking the loop again (and no
fight for the GIL with that thread). Reads, which can be slow (a review, a
leaderboard), go through aiosqlite's thread; WAL lets them run beside the
writer. The writer checkpoints the WAL itself, every 1,000 pages (SQLite's
default; about a millisecond): a checkpoint from another connection never
catches up with a busy writer, and the WAL grew without bound.

``durability`` is the host's choice of what an acknowledgement survives:

* ``"server_crash"`` (default): a crash or SIGKILL of the server process.
  WAL with ``synchronous=NORMAL``: a commit is in the operating system's
  hands, not yet on the platter. A kernel crash or power cut can lose the
  last commits; the game then resumes from a slightly earlier point.
* ``"power_loss"``: also an operating-system crash or power cut.
  ``synchronous=FULL``: every group commit waits for an fsync (about 120 µs
  on the development machine's disk; more on a spinning one).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from ratings import PlayerStats, Rating, Standing, system_named
from server.names import account_name_refusal
from server.tables.records import (
    ActionTaken,
    Banned,
    GameCreated,
    GameEnded,
    Rated,
    Record,
    SeatsChanged,
)

log = logging.getLogger("trickroom.store")

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    pw_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    guest INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    room TEXT NOT NULL,
    kind TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seating TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL,
    result TEXT,
    record TEXT
);
-- Clustered on its key: an action's commit writes one b-tree page, not a row page and
-- an index page (15 us a commit instead of 20 here). Files made before keep a rowid.
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_name ON sessions (name);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished) WHERE finished IS NULL;
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL,
    system TEXT NOT NULL,
    value REAL NOT NULL,
    sigma REAL NOT NULL,
    stats TEXT NOT NULL,
    PRIMARY KEY (player, kind, system)
);
CREATE TABLE IF NOT EXISTS rating_history (
    player TEXT NOT NULL COLLATE NOCASE,
    kind TEXT NOT NULL,
    system TEXT NOT NULL,
    game_id TEXT NOT NULL,
    time REAL NOT NULL,
    value REAL NOT NULL,
    delta REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS rating_history_player ON rating_history (player, kind, system, time);
-- Who played each ended game, for a profile's recent games: one row per registered name
-- (starters and substitutes; no robots, no guests), written with the game's end.
CREATE TABLE IF NOT EXISTS game_players (
    player TEXT NOT NULL COLLATE NOCASE,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (player, game_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS game_players_recent ON game_players (player, finished);
"""
RECENT_GAMES = 20  # how many ended games a profile lists

# Columns added after the first release: (table, column, declaration).
MIGRATIONS = (
    ("users", "rank_me", "INTEGER NOT NULL DEFAULT 1"),
    ("users", "banned_until", "REAL NOT NULL DEFAULT 0"),
    ("users", "ban_reason", "TEXT"),
    ("users", "casual_games", "INTEGER NOT NULL DEFAULT 0"),
    ("games", "ratings", "TEXT"),
)


DURABILITY = {"server_crash": "NORMAL", "power_loss": "FULL"}

# One write inside a transaction: SQL with its parameters, or a function of the writer's
# connection for a write that must read first (a rating moves from its current value).
Statement = tuple[str, Sequence[Any]] | Callable[[sqlite3.Connection], None]


class NameTaken(Exception):
    """Registering a name that already has an account."""


@dataclass(frozen=True)
class StoredGame:
    id: str
    table_id: str
    room: str
    kind: str
    rules: dict[str, Any]
    seed: int
    dealer: int
    seats: list[dict[str, Any]]
    seating: str
    actions: list[dict[str, Any]]


class SqliteStore:
    """The embedded store: one SQLite file in WAL mode, writes group-committed."""

    def __init__(self, path: str | Path, commit_interval: float = 0.0,
                 durability: str = "server_crash") -> None:
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {', '.join(DURABILITY)}, "
                             f"not {durability!r}")
        self.path = str(path)
        self.commit_interval = commit_interval
        self.durability = durability
        self._db: aiosqlite.Connection | None = None
        self._conn: sqlite3.Connection | None = None  # the writer's, on the loop thread
        self._turn_committed = False  # a write has committed at once in this loop turn
        self._queue: asyncio.Queue[tuple[list[Statement],
                                         asyncio.Future[None]] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.writes = 0

    async def open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = await aiosqlite.connect(self.path)
        self._db.row_factory = aiosqlite.Row
        await self._db.execute("PRAGMA journal_mode=WAL")
        await self._db.execute(f"PRAGMA synchronous={DURABILITY[self.durability]}")
        async with self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                    "name = 'game_players'") as cur:
            had_players = await cur.fetchone() is not None
        await self._db.executescript(SCHEMA)
        if not had_players:  # a file from before game_players: index the games it holds
            await self._index_ended_games()
        for table, column, declaration in MIGRATIONS:
            async with self._db.execute(f"PRAGMA table_info({table})") as cur:
                have = {row[1] for row in await cur.fetchall()}
            if column not in have:
                await self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        await self._db.commit()
        self._conn = sqlite3.connect(self.path, isolation_level="DEFERRED", timeout=30)
        self._conn.execute(f"PRAGMA synchronous={DURABILITY[self.durability]}")
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")

    async def close(self) -> None:
        """Flush every pending write, then close the file."""
        if self._writer is not None:
            await self._queue.put(None)
            await self._writer
            self._writer = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._db is not None:
            await self._db.close()
            self._db = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    # -- the group-commit writer ----------------------------------------------------------

    async def _write(self, sql: str, params: Sequence[Any]) -> None:
        await self._write_all([(sql, params)])

    async def _write_all(self, statements: list[Statement]) -> None:
        """Write statements that must land together: they always share one transaction.

        The first write in a turn of the event loop commits at once, when the writer has
        nothing queued: a lone action (a quiet server, one table) does not wait a turn
        for the writer task and another for its answer. Later writes in the same turn
        go to the writer, which commits all of them together on the next turn.
        """
        if not self._turn_committed and self._queue.empty() and self._conn is not None:
            self._turn_committed = True
            asyncio.get_running_loop().call_soon(self._next_turn)
            self._commit([statements])
            self.commits += 1
            self.writes += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((statements, future))
        await future

    def _next_turn(self) -> None:
        self._turn_committed = False

    async def _write_loop(self) -> None:
        stopping = False
        while not stopping:
            item = await self._queue.get()
            if item is None:
                break
            batch = [item]
            if self.commit_interval:
                await asyncio.sleep(self.commit_interval)
            while not self._queue.empty():
                nxt = self._queue.get_nowait()
                if nxt is None:
                    stopping = True
                    break
                batch.append(nxt)
            try:
                self._commit([s for s, _ in batch])
            except Exception:
                # One bad item must not sink the others: retry each alone.
                self._write_one_by_one(batch)
                continue
            self.commits += 1
            self.writes += len(batch)
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(None)

    def _commit(self, batches: list[list[Statement]]) -> None:
        """Every statement, then one commit: all of it lands, or none of it."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("the store is not open")
        try:
            for statements in batches:
                for statement in statements:
                    if callable(statement):
                        statement(conn)
                    else:
                        conn.execute(*statement)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def _write_one_by_one(self, batch: list[tuple[list[Statement],
                                                  asyncio.Future[None]]]) -> None:
        for statements, fut in batch:
            try:
                self._commit([statements])
            except Exception as exc:  # this item fails alone; nothing of it is acked
                if not fut.done():
                    fut.set_exception(exc)
                continue
            self.commits += 1
            self.writes += 1
            if not fut.done():
                fut.set_result(None)

    # -- accounts ----------------------------------------------------------------------------

    async def create_user(self, name: str, pw_hash: str) -> None:
        try:
            await self._write("INSERT INTO users (name, pw_hash, created) VALUES (?, ?, ?)",
                              (name, pw_hash, time.time()))
        except aiosqlite.IntegrityError:
            raise NameTaken(name) from None

    async def user_hash(self, name: str) -> tuple[str, str] | None:
        """The stored (name as registered, password hash) for ``name``, any case."""
        async with self.db.execute("SELECT name, pw_hash FROM users WHERE name = ?",
                                   (name,)) as cur:
            row = await cur.fetchone()
        return (row["name"], row["pw_hash"]) if row else None

    async def set_password(self, name: str, pw_hash: str) -> None:
        """A new hash for the same password (an old scheme's, upgraded at login)."""
        await self._write("UPDATE users SET pw_hash = ? WHERE name = ?", (pw_hash, name))

    async def end_guest_sessions(self, name: str) -> None:
        """A guest name goes to a new guest: the sessions of whoever had it before end."""
        await self._write("DELETE FROM sessions WHERE name = ? AND guest = 1", (name,))

    async def create_session(self, token_hash: str, name: str, guest: bool) -> None:
        await self._write(
            "INSERT INTO sessions (token_hash, name, guest, created) VALUES (?, ?, ?, ?)",
            (token_hash, name, int(guest), time.time()))

    async def session(self, token_hash: str) -> tuple[str, bool, float] | None:
        """The session's (name, guest, time it was made)."""
        async with self.db.execute("SELECT name, guest, created FROM sessions "
                                   "WHERE token_hash = ?", (token_hash,)) as cur:
            row = await cur.fetchone()
        return (row["name"], bool(row["guest"]), row["created"]) if row else None

    async def guest_session_since(self, name: str, since: float) -> bool:
        """Whether a guest session for ``name`` was made after ``since``."""
        async with self.db.execute("SELECT 1 FROM sessions WHERE name = ? AND guest = 1 "
                                   "AND created > ? LIMIT 1", (name, since)) as cur:
            return await cur.fetchone() is not None

    # -- games -------------------------------------------------------------------------------------

    async def persist(self, records: Sequence[Record]) -> None:
        """Write a table's records in one transaction: all of them land, or none.

        Returns once the transaction has committed (group commit: with other tables'
        writes of the same moment).
        """
        statements: list[Statement] = []
        for record in records:
            statements.extend(_statements(record))
        await self._write_all(statements)

    async def unfinished_games(self) -> list[StoredGame]:
        async with self.db.execute("SELECT * FROM games WHERE finished IS NULL "
                                   "ORDER BY started") as cur:
            rows = list(await cur.fetchall())
        return [await self._stored(row) for row in rows]

    async def _stored(self, row: aiosqlite.Row) -> StoredGame:
        async with self.db.execute("SELECT seat, action FROM actions WHERE game_id = ? "
                                   "ORDER BY idx", (row["id"],)) as cur:
            actions = [{"seat": a["seat"], **json.loads(a["action"])}
                       for a in await cur.fetchall()]
        return StoredGame(row["id"], row["table_id"], row["room"], row["kind"],
                          json.loads(row["rules"]), row["seed"], row["dealer"],
                          json.loads(row["seats"]), row["seating"], actions)

    async def game(self, game_id: str) -> dict[str, Any] | None:
        """A game's public record: finished games only (an unfinished one holds live hands)."""
        async with self.db.execute("SELECT * FROM games WHERE id = ?", (game_id,)) as cur:
            row = await cur.fetchone()
        if row is None or row["finished"] is None:
            return None
        return {
            "id": row["id"],
            "table": row["table_id"],
            "room": row["room"],
            "game": row["kind"],
            "seating": row["seating"],
            "seats": [{k: v for k, v in s.items() if k != "token_hash"}
                      for s in json.loads(row["seats"])],
            "started": row["started"],
            "finished": row["finished"],
            "result": json.loads(row["result"]),
            "record": json.loads(row["record"]),
            "ratings": json.loads(row["ratings"]) if row["ratings"] else [],
        }

    async def _index_ended_games(self) -> None:
        """Fill ``game_players`` from every ended game's seats (once, for an older file)."""
        async with self.db.execute("SELECT id, seats, finished FROM games "
                                   "WHERE finished IS NOT NULL") as cur:
            rows = list(await cur.fetchall())
        await self.db.executemany(
            "INSERT OR IGNORE INTO game_players (player, game_id, seat, finished) "
            "VALUES (?, ?, ?, ?)",
            [(player, row["id"], seat, row["finished"])
             for row in rows for player, seat in _players_of(json.loads(row["seats"]))])

    async def recent_games(self, name: str, limit: int = RECENT_GAMES) -> list[dict[str, Any]]:
        """The player's last ``limit`` ended games (finished or abandoned), newest first."""
        async with self.db.execute(
                "SELECT g.id, g.kind, g.room, g.seats, g.finished, g.result, g.ratings, p.seat "
                "FROM game_players p JOIN games g ON g.id = p.game_id "
                "WHERE p.player = ? ORDER BY p.finished DESC, g.id LIMIT ?",
                (name, limit)) as cur:
            rows = await cur.fetchall()
        out = []
        for row in rows:
            result = json.loads(row["result"])
            ratings = json.loads(row["ratings"]) if row["ratings"] is not None else None
            mine = next((c for c in ratings or () if c.get("rated")
                         and str(c.get("player", "")).lower() == name.lower()), None)
            seat = row["seat"]
            out.append({
                "game_id": row["id"],
                "game": row["kind"],
                "room": row["room"],
                "rated": ratings is not None,
                "ended_at": row["finished"],
                "seat": seat,
                "players": [s.get("starter") or s.get("name")
                            for s in sorted(json.loads(row["seats"]), key=lambda s: s["seat"])],
                "scores": result["scores"],
                "won": seat in result["winners"],
                "abandoned": not result["finished"],
                "rating_delta": mine["delta"] if mine is not None else None,
            })
        return out

    async def room_games(self, room: str) -> list[dict[str, Any]]:
        """Every ended game of a room, oldest first, as :meth:`game` gives one (for a
        refit of the room's rating constants, which replays them in time order)."""
        async with self.db.execute("SELECT id FROM games WHERE room = ? AND finished IS NOT "
                                   "NULL ORDER BY finished, id", (room,)) as cur:
            ids = [row["id"] for row in await cur.fetchall()]
        return [g for g in [await self.game(i) for i in ids] if g is not None]

    async def action_count(self, game_id: str) -> int:
        async with self.db.execute("SELECT COUNT(*) AS n FROM actions WHERE game_id = ?",
                                   (game_id,)) as cur:
            row = await cur.fetchone()
        return int(row["n"]) if row else 0

    # -- accounts for ranked play ---------------------------------------------------------------

    async def account(self, name: str) -> dict[str, Any] | None:
        """A registered player's ranked settings: rank_me, banned_until, casual_games."""
        async with self.db.execute(
                "SELECT name, rank_me, banned_until, ban_reason, casual_games FROM users "
                "WHERE name = ?", (name,)) as cur:
            row = await cur.fetchone()
        return dict(row) if row else None

    async def set_casual_games(self, name: str, games: int) -> None:
        await self._write("UPDATE users SET casual_games = ? WHERE name = ?", (games, name))

    async def set_rank_me(self, name: str, on: bool, ban_until: float | None) -> None:
        """Turn "rank me" on or off; off resets the player's ratings and bans until then."""
        statements: list[Statement] = [
            ("UPDATE users SET rank_me = ? WHERE name = ?", (int(on), name))]
        if not on and ban_until is not None:
            statements += [
                ("UPDATE users SET banned_until = MAX(banned_until, ?), ban_reason = ? "
                 "WHERE name = ?", (ban_until, "turned rank me off", name)),
                ("DELETE FROM ratings WHERE player = ?", (name,)),
            ]
        await self._write_all(statements)

    # -- ratings ---------------------------------------------------------------------------

    async def standings(self, players: Sequence[str], kind: str,
                        system: str) -> dict[str, Standing]:
        """The players' standings in this game and system (those who have one)."""
        out: dict[str, Standing] = {}
        for player in players:
            async with self.db.execute(
                    "SELECT value, sigma, stats FROM ratings WHERE player = ? AND "
                    "kind = ? AND system = ?", (player, kind, system)) as cur:
                row = await cur.fetchone()
            if row:
                out[player] = _standing(row["value"], row["sigma"], row["stats"])
        return out

    async def leaderboard(self, kind: str, system: str, min_games: int,
                          limit: int = 100) -> list[dict[str, Any]]:
        async with self.db.execute(
                "SELECT player, value, sigma, stats FROM ratings WHERE kind = ? AND system = ? "
                "ORDER BY value DESC", (kind, system)) as cur:
            rows = await cur.fetchall()
        board = []
        for row in rows:
            stats = json.loads(row["stats"])
            games = stats.get("games", 0)
            if games < min_games:
                continue
            board.append({"player": row["player"], "rating": row["value"],
                          "sigma": row["sigma"], "games": games,
                          "win_rate": stats["wins"] / games if games else None,
                          "skill_ratio": (stats["nil_set"] / stats["nil_faced"]
                                          if stats.get("nil_faced") else None)})
        return board[:limit]

    async def player(self, name: str) -> dict[str, Any] | None:
        account = await self.account(name)
        if account is None:
            return None
        async with self.db.execute("SELECT kind, system, value, sigma, stats FROM ratings "
                                   "WHERE player = ? ORDER BY kind, system", (name,)) as cur:
            rows = await cur.fetchall()
        async with self.db.execute("SELECT kind, system, game_id, time, value, delta FROM "
                                   "rating_history WHERE player = ? ORDER BY time",
                                   (name,)) as cur:
            history = [dict(r) for r in await cur.fetchall()]
        ratings = []
        for row in rows:
            stats = json.loads(row["stats"])
            stats.pop("history", None)
            faced = stats.get("nil_faced", 0)
            ratings.append({"game": row["kind"], "system": row["system"], "rating": row["value"],
                            "sigma": row["sigma"], "stats": stats,
                            "skill_ratio": stats.get("nil_set", 0) / faced if faced else None,
                            "history": [h for h in history if h["kind"] == row["kind"]
                                        and h["system"] == row["system"]]})
        return {"name": account["name"], "rank_me": bool(account["rank_me"]),
                "banned_until": account["banned_until"] or None,
                "casual_games": account["casual_games"], "ratings": ratings,
                "recent_games": await self.recent_games(account["name"])}


# -- records to SQL -------------------------------------------------------------------------


def _statements(record: Record) -> list[Statement]:
    """The SQL of one table record."""
    now = time.time()
    if isinstance(record, ActionTaken):
        return [("INSERT INTO actions (game_id, idx, seat, action) VALUES (?, ?, ?, ?)",
                 (record.game_id, record.idx, record.seat, json.dumps(record.action)))]
    if isinstance(record, GameCreated):
        return [("INSERT INTO games (id, table_id, room, kind, rules, seed, dealer, seats, "
                 "seating, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (record.game_id, record.table_id, record.room, record.kind,
                  json.dumps(record.rules), record.seed, record.dealer,
                  json.dumps(list(record.seats)), record.seating, now))]
    if isinstance(record, SeatsChanged):
        return [("UPDATE games SET seats = ? WHERE id = ?",
                 (json.dumps(list(record.seats)), record.game_id))]
    if isinstance(record, GameEnded):
        ratings = json.dumps(list(record.ratings)) if record.ratings is not None else None
        return [("UPDATE games SET finished = ?, result = ?, record = ?, ratings = ? "
                 "WHERE id = ?", (now, json.dumps(record.result), json.dumps(record.record),
                                  ratings, record.game_id)),
                lambda conn: _index_players(conn, record.game_id, now),
                *(("UPDATE users SET casual_games = casual_games + 1 WHERE name = ?", (name,))
                  for name in record.casual_players)]
    if isinstance(record, Rated):
        return [lambda conn: _rate(conn, record, now)]
    if isinstance(record, Banned):
        return [("UPDATE users SET banned_until = MAX(banned_until, ?), ban_reason = ? "
                 "WHERE name = ?", (record.until, record.reason, record.player))]
    raise TypeError(f"no SQL for {record!r}")


def _players_of(seats: Sequence[dict[str, Any]]) -> list[tuple[str, int]]:
    """The registered players of a game's seats, each with its seat: who sat at the start
    and any substitute after them. Robots (``Bot Hazel``, ``ann (robot)``) and guests
    (``guest-...``) have names no account may take, so a name check leaves them out."""
    out: dict[str, tuple[str, int]] = {}
    for s in seats:
        names = [s.get("starter")]
        if s.get("kind") == "human" and not s.get("guest"):
            names.append(s.get("account"))
        for name in names:
            if name and account_name_refusal(name) is None:
                out.setdefault(name.lower(), (name, s["seat"]))
    return list(out.values())


def _index_players(conn: sqlite3.Connection, game_id: str, now: float) -> None:
    """Note who played an ended game, from its seats as stored (for recent games)."""
    row = conn.execute("SELECT seats FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None:
        return
    conn.executemany("INSERT OR IGNORE INTO game_players (player, game_id, seat, finished) "
                     "VALUES (?, ?, ?, ?)",
                     [(player, game_id, seat, now) for player, seat in
                      _players_of(json.loads(row[0]))])


def _rate(conn: sqlite3.Connection, record: Rated, now: float) -> None:
    """Move each player's standing by its change, from the value stored now (inside the
    transaction, so two tables rating the same player never lose an update)."""
    result = record.result
    start = system_named(result.system).start_rating
    for change in record.changes:
        row = conn.execute("SELECT value, sigma, stats FROM ratings WHERE player = ? AND "
                           "kind = ? AND system = ?",
                           (change.player, result.kind, result.system)).fetchone()
        current = _standing(*row) if row else Standing(start)
        after = current.after(result, change)
        stats = asdict(after.stats)
        stats["history"] = list(stats["history"])
        conn.execute("INSERT INTO ratings (player, kind, system, value, sigma, stats) VALUES "
                     "(?, ?, ?, ?, ?, ?) ON CONFLICT (player, kind, system) DO UPDATE SET "
                     "value = excluded.value, sigma = excluded.sigma, stats = excluded.stats",
                     (change.player, result.kind, result.system, after.rating.value,
                      after.rating.sigma, json.dumps(stats)))
        if change.rated:
            conn.execute("INSERT INTO rating_history (player, kind, system, game_id, time, "
                         "value, delta) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (change.player, result.kind, result.system, record.game_id, now,
                          change.after.value, change.delta))


def _standing(value: float, sigma: float, stats_json: str) -> Standing:
    stats = json.loads(stats_json)
    stats["history"] = tuple(stats.get("history", ()))
    return Standing(Rating(value, sigma), PlayerStats(**stats))

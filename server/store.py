"""Persistence: one interface, SQLite (aiosqlite) behind it.

Every accepted action is written before it is acknowledged (DESIGN section 9).
To keep that cheap, writes from all tables go through one writer task that
gathers whatever is queued into one transaction and commits it once (group
commit): a burst of actions from many tables costs one fsync, not one each.
Each ``await store.append_action(...)`` returns only after its transaction has
committed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

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
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished) WHERE finished IS NULL;
"""


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

    def __init__(self, path: str | Path, commit_interval: float = 0.002) -> None:
        self.path = str(path)
        self.commit_interval = commit_interval
        self._db: aiosqlite.Connection | None = None
        self._queue: asyncio.Queue[tuple[str, Sequence[Any], asyncio.Future[None]] | None] = (
            asyncio.Queue())
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.writes = 0

    async def open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = await aiosqlite.connect(self.path)
        self._db.row_factory = aiosqlite.Row
        await self._db.execute("PRAGMA journal_mode=WAL")
        await self._db.execute("PRAGMA synchronous=FULL")
        await self._db.executescript(SCHEMA)
        await self._db.commit()
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")

    async def close(self) -> None:
        """Flush every pending write, then close the file."""
        if self._writer is not None:
            await self._queue.put(None)
            await self._writer
            self._writer = None
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
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((sql, params, future))
        await future

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
                for sql, params, _ in batch:
                    await self.db.execute(sql, params)
                await self.db.commit()
            except Exception as exc:  # a failed batch fails each waiter; nothing is acked
                log.exception("write batch failed")
                await self.db.rollback()
                for _, _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            self.commits += 1
            self.writes += len(batch)
            for _, _, fut in batch:
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

    async def create_session(self, token_hash: str, name: str, guest: bool) -> None:
        await self._write(
            "INSERT INTO sessions (token_hash, name, guest, created) VALUES (?, ?, ?, ?)",
            (token_hash, name, int(guest), time.time()))

    async def session(self, token_hash: str) -> tuple[str, bool] | None:
        async with self.db.execute("SELECT name, guest FROM sessions WHERE token_hash = ?",
                                   (token_hash,)) as cur:
            row = await cur.fetchone()
        return (row["name"], bool(row["guest"])) if row else None

    # -- games -------------------------------------------------------------------------------------

    async def create_game(self, game_id: str, table_id: str, room: str, kind: str,
                          rules: dict[str, Any], seed: int, dealer: int,
                          seats: list[dict[str, Any]], seating: str) -> None:
        await self._write(
            "INSERT INTO games (id, table_id, room, kind, rules, seed, dealer, seats, seating,"
            " started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, table_id, room, kind, json.dumps(rules), seed, dealer, json.dumps(seats),
             seating, time.time()))

    async def append_action(self, game_id: str, idx: int, seat: int,
                            action: dict[str, Any]) -> None:
        await self._write("INSERT INTO actions (game_id, idx, seat, action) VALUES (?, ?, ?, ?)",
                          (game_id, idx, seat, json.dumps(action)))

    async def update_seats(self, game_id: str, seats: list[dict[str, Any]]) -> None:
        await self._write("UPDATE games SET seats = ? WHERE id = ?", (json.dumps(seats), game_id))

    async def finish_game(self, game_id: str, result: dict[str, Any],
                          record: dict[str, Any]) -> None:
        await self._write("UPDATE games SET finished = ?, result = ?, record = ? WHERE id = ?",
                          (time.time(), json.dumps(result), json.dumps(record), game_id))

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
        }

    async def action_count(self, game_id: str) -> int:
        async with self.db.execute("SELECT COUNT(*) AS n FROM actions WHERE game_id = ?",
                                   (game_id,)) as cur:
            row = await cur.fetchone()
        return int(row["n"]) if row else 0

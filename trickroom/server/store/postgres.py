"""The cluster's store: PostgreSQL through asyncpg, shared by every node (DESIGN section 11).

Same tables and queries as the SQLite store (:mod:`server.store.base`), and the
same promise: a write is answered only once its transaction has committed.
Writes go through one connection and one writer task, which gathers whatever
is queued into one transaction (group commit); statements of the same SQL in
a row go as one ``executemany``, and a group of moves alone (the common case)
goes as one statement with its fences, so a burst of actions from many tables
costs one round trip, not one each. Reads take a connection from a small pool.

Names compare without case as SQLite's ``COLLATE NOCASE`` does, through an ICU
collation at strength 2 (``tr_nocase``): "Ann" and "ann" are one account.

PostgreSQL away: the write in hand fails with :class:`StoreUnavailable` (never
acknowledged, never half-made), the writer drops its connection, and the next
write connects again; a table refuses actions meanwhile and resumes when the
database is back. ``?schema=name`` on the URL keeps every table in that schema
(created if missing): each test, or each deployment sharing a database, its own.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

from trickroom.server.store.base import Store
from trickroom.server.store.statements import ACTION_SQL, FenceCheck, stale
from trickroom.server.store.values import Conflict, Fence, Row, Statement, StoreUnavailable

log = logging.getLogger("trickroom.store")

# Every fence of a group commit at once (base.FENCE_SQL for many tables): the tables whose
# epoch moved up to, or already was, the writer's come back; a missing one is stale.
FENCES_SQL = """
INSERT INTO table_owners (table_id, epoch) SELECT * FROM unnest($1::text[], $2::bigint[])
ON CONFLICT (table_id) DO UPDATE SET epoch = excluded.epoch
WHERE table_owners.epoch <= excluded.epoch RETURNING table_id
"""

# A group commit of moves alone, the common case under play, as one statement: its fences
# and its actions in one round trip and one implicit transaction, rather than BEGIN, the
# fences, the inserts and COMMIT in four. No action lands unless every fence held.
MOVES_SQL = f"""
WITH fenced AS ({FENCES_SQL.strip()}),
written AS (
    INSERT INTO actions (game_id, idx, seat, action)
    SELECT * FROM unnest($3::text[], $4::int[], $5::int[], $6::text[])
    WHERE (SELECT count(*) FROM fenced) = cardinality($1::text[]))
SELECT ARRAY(SELECT table_id FROM fenced) AS held
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT COLLATE tr_nocase PRIMARY KEY,
    pw_hash TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    rank_me INTEGER NOT NULL DEFAULT 1,
    banned_until DOUBLE PRECISION NOT NULL DEFAULT 0,
    ban_reason TEXT,
    casual_games INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    guest INTEGER NOT NULL,
    created DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    table_id TEXT NOT NULL,
    room TEXT NOT NULL,
    kind TEXT NOT NULL,
    rules TEXT NOT NULL,
    seed BIGINT NOT NULL,
    dealer INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seating TEXT NOT NULL,
    started DOUBLE PRECISION NOT NULL,
    finished DOUBLE PRECISION,
    result TEXT,
    record TEXT,
    ratings TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE INDEX IF NOT EXISTS sessions_name ON sessions (name);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished) WHERE finished IS NULL;
CREATE INDEX IF NOT EXISTS games_table ON games (table_id);
CREATE INDEX IF NOT EXISTS games_room ON games (room, finished);
CREATE TABLE IF NOT EXISTS ratings (
    player TEXT COLLATE tr_nocase NOT NULL,
    kind TEXT NOT NULL,
    system TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    stats TEXT NOT NULL,
    PRIMARY KEY (player, kind, system)
);
CREATE TABLE IF NOT EXISTS rating_history (
    player TEXT COLLATE tr_nocase NOT NULL,
    kind TEXT NOT NULL,
    system TEXT NOT NULL,
    game_id TEXT NOT NULL,
    time DOUBLE PRECISION NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION,
    delta DOUBLE PRECISION NOT NULL
);
ALTER TABLE rating_history ADD COLUMN IF NOT EXISTS sigma DOUBLE PRECISION DEFAULT NULL;
CREATE INDEX IF NOT EXISTS rating_history_player ON rating_history (player, kind, system, time);
CREATE TABLE IF NOT EXISTS game_players (
    player TEXT COLLATE tr_nocase NOT NULL,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    finished DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, game_id)
);
CREATE INDEX IF NOT EXISTS game_players_recent ON game_players (player, finished);
CREATE TABLE IF NOT EXISTS table_owners (
    table_id TEXT PRIMARY KEY,
    epoch BIGINT NOT NULL
);
"""

NOCASE = ("CREATE COLLATION IF NOT EXISTS tr_nocase "
          "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)")

SCHEMA_LOCK = 0x7472_6963_6b72  # "trickr": one node at a time creates the schema

# What a lost or refused connection raises: the write did not happen; try again later.
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError, ConnectionError, asyncio.TimeoutError, asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError, asyncpg.CannotConnectNowError)


@functools.lru_cache(maxsize=512)
def numbered(sql: str) -> str:
    """The shared SQL's ``?`` placeholders as PostgreSQL's ``$1, $2, ...``."""
    count = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(count)}", sql)


def split_url(url: str) -> tuple[str, str | None]:
    """The URL asyncpg connects to, and the ``schema`` asked for in its query."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query)
    schema = next((v for k, v in query if k == "schema"), None)
    if schema is not None and not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
        raise ValueError(f"schema must be lower-case letters, digits and _, not {schema!r}")
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


class _PgTx:
    """The writer's open transaction, for a statement that reads before it writes."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self.conn.execute(numbered(sql), *params)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self.conn.executemany(numbered(sql), rows)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return cast(Row | None, await self.conn.fetchrow(numbered(sql), *params))


class PostgresStore(Store):
    """Every node's store: one PostgreSQL database (or schema), writes group-committed."""

    shared = True

    def __init__(self, url: str, pool_size: int = 4, timeout: float = 10.0) -> None:
        self.url, self.schema = split_url(url)
        self.pool_size = pool_size
        self.timeout = timeout
        self._pool: asyncpg.Pool | None = None
        self._conn: asyncpg.Connection | None = None  # the writer's
        self._queue: asyncio.Queue[tuple[list[Statement],
                                         asyncio.Future[None]] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self.commits = 0
        self.writes = 0

    def _settings(self) -> dict[str, str]:
        return {"search_path": self.schema} if self.schema else {}

    async def _connect(self) -> asyncpg.Connection:
        return await asyncpg.connect(self.url, timeout=self.timeout,
                                     command_timeout=self.timeout,
                                     server_settings=self._settings())

    async def open(self) -> None:
        try:
            conn = await asyncpg.connect(self.url, timeout=self.timeout)
        except UNREACHABLE as exc:
            raise StoreUnavailable(f"cannot reach PostgreSQL at {self.url}: {exc}") from exc
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
                if self.schema:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                    await conn.execute(f'SET LOCAL search_path TO "{self.schema}"')
                await conn.execute(NOCASE)
                await conn.execute(SCHEMA)
        finally:
            await conn.close()
        self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                               timeout=self.timeout,
                                               command_timeout=self.timeout,
                                               server_settings=self._settings())
        self._conn = await self._connect()
        self._writer = asyncio.create_task(self._write_loop(), name="store-writer")

    async def close(self) -> None:
        """Flush every pending write, then disconnect."""
        await self._stop_writer()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    # -- reads ---------------------------------------------------------------------------------

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._pool is None:
            raise RuntimeError("the store is not open")
        try:
            async with self._pool.acquire() as conn:
                return cast(list[Row], await conn.fetch(numbered(sql), *params))
        except UNREACHABLE as exc:
            raise StoreUnavailable(f"the database is unavailable: {exc}") from exc

    # -- the group-commit writer ----------------------------------------------------------

    async def _write_all(self, statements: list[Statement]) -> None:
        if self._writer is None:
            raise RuntimeError("the store is not open")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((statements, future))
        await future

    async def _commit_batches(self, batches: list[list[Statement]]) -> None:
        try:
            if self._conn is None or self._conn.is_closed():
                self._conn = await self._connect()
            conn = self._conn
            moves = _moves_only(batches)
            if moves is not None:
                await self._write_moves(conn, *moves)
                return
            async with conn.transaction():
                hoisted = await self._check_fences(conn, batches)
                run: list[Sequence[Any]] = []  # parameters of plain statements of one SQL
                sql = ""
                for statements in batches:
                    for statement in statements:
                        if hoisted and isinstance(statement, FenceCheck):
                            continue
                        if callable(statement):
                            await self._run(conn, sql, run)
                            run = []
                            await statement(_PgTx(conn))
                        else:
                            if statement[0] != sql:
                                await self._run(conn, sql, run)
                                run = []
                                sql = statement[0]
                            run.append(statement[1])
                await self._run(conn, sql, run)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(str(exc)) from exc
        except UNREACHABLE as exc:
            conn_, self._conn = self._conn, None
            if conn_ is not None:
                conn_.terminate()
            raise StoreUnavailable(f"the database is unavailable: {exc}") from exc

    @staticmethod
    async def _write_moves(conn: asyncpg.Connection, fences: list[Fence],
                           moves: list[Sequence[Any]]) -> None:
        columns = [list(column) for column in zip(*moves, strict=True)] or [[], [], [], []]
        row = await conn.fetchrow(MOVES_SQL, [f.table_id for f in fences],
                                  [f.epoch for f in fences], *columns)
        held = set(row["held"])
        if len(held) < len(fences):  # nothing was written; the loop retries write by write
            raise stale(next(f for f in fences if f.table_id not in held))

    @staticmethod
    async def _check_fences(conn: asyncpg.Connection, batches: list[list[Statement]]) -> bool:
        """Check every fence of a group commit in one statement, before its writes (each
        alone would cost a round trip and split the runs of inserts around it). Any stale
        one fails the whole group, which the write loop then retries write by write, so
        that only the stale writer's fails. False: nothing to gain (one fence, or one
        table fenced twice); each fence runs in its place."""
        fences = _in_lock_order([s.fence for statements in batches for s in statements
                                 if isinstance(s, FenceCheck)])
        if fences is None or len(fences) < 2:
            return False
        rows = await conn.fetch(FENCES_SQL, [fence.table_id for fence in fences],
                                [fence.epoch for fence in fences])
        if len(rows) < len(fences):
            held = {row["table_id"] for row in rows}
            raise stale(next(f for f in fences if f.table_id not in held))
        return True

    @staticmethod
    async def _run(conn: asyncpg.Connection, sql: str, run: list[Sequence[Any]]) -> None:
        if len(run) == 1:
            await conn.execute(numbered(sql), *run[0])
        elif run:
            await conn.executemany(numbered(sql), run)


def _moves_only(batches: list[list[Statement]]) -> tuple[list[Fence], list[Sequence[Any]]] | None:
    """A group commit's fences (in the tables' order) and moves, if it holds nothing else
    and fences no table twice; else None."""
    fences: list[Fence] = []
    moves: list[Sequence[Any]] = []
    for statements in batches:
        for statement in statements:
            if isinstance(statement, FenceCheck):
                fences.append(statement.fence)
            elif not callable(statement) and statement[0] == ACTION_SQL:
                moves.append(statement[1])
            else:
                return None
    ordered = _in_lock_order(fences)
    return None if ordered is None else (ordered, moves)


def _in_lock_order(fences: list[Fence]) -> list[Fence] | None:
    """Fences in their tables' order (two writers locking the same rows lock them alike,
    and never wait on each other in a circle); None if a table is fenced twice."""
    if len({fence.table_id for fence in fences}) < len(fences):
        return None
    return sorted(fences, key=lambda fence: fence.table_id)

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

**One cluster a database.** A node of a cluster sees other nodes' tables only through
their leases, under its own Redis prefix: a node with another prefix (or on another
Redis database) would take every unfinished table of the store over. So the first node
of a cluster writes its prefix and Redis database down (the ``cluster`` table, one row),
and a node of another cluster is refused (:meth:`PostgresStore.join_cluster`).

**Set-up errors say what to do.** A missing role or database, a refused password or a
missing right fails :meth:`PostgresStore.open` with :class:`StoreRefused`, one line
naming what is missing and the SQL that makes it; the URL in any message is masked.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

from trickroom.server.store import postgres_schema
from trickroom.server.store.base import Store
from trickroom.server.store.migrations import (
    RECORD_VERSION,
    VERSION_TABLE,
    Migration,
    Upgrade,
    run_steps,
    upgrade,
)
from trickroom.server.store.statements import ACTION_SQL, FenceCheck, stale
from trickroom.server.store.values import (
    Conflict,
    Fence,
    Row,
    Statement,
    StoreError,
    StoreUnavailable,
)
from trickroom.server.urls import masked

log = logging.getLogger("trickroom.store")

IDLE_IN_TRANSACTION_MS = 1000  # a paused node's open transaction ends by then (its locks go)

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

# The cluster this database belongs to: this node's, if it is the first (then the SELECT,
# on the statement's snapshot, sees nothing yet), else the one written before.
JOIN_SQL = """
WITH joined AS (
    INSERT INTO cluster (prefix, redis_db, since) VALUES ($1, $2, $3)
    ON CONFLICT (only_row) DO NOTHING RETURNING prefix, redis_db)
SELECT prefix, redis_db FROM joined UNION ALL SELECT prefix, redis_db FROM cluster
"""

SCHEMA_LOCK = 0x7472_6963_6b72  # "trickr": one node at a time migrates the schema

# What a lost or refused connection raises: the write did not happen; try again later.
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError, ConnectionError, asyncio.TimeoutError, asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError, asyncpg.CannotConnectNowError)


class StoreRefused(StoreError):
    """The database refused this server for good (a role, a database or a right is
    missing, or the password is wrong): the message says what to create; trying again
    will not help."""


class OtherCluster(StoreError):
    """The database belongs to another cluster (another Redis prefix or database), whose
    tables a node of this one would take over."""


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

    def __init__(self, url: str, pool_size: int = 4, timeout: float = 10.0,
                 commit_window: float = 0.0) -> None:
        self.url, self.schema = split_url(url)
        # A commit is a round trip and a transaction on the server: a node at part load
        # (a cluster's, its tables shared) commits a few writes each time, and pays both
        # per write several times over. Waiting a moment for more to join cuts that
        # (ServerSettings.postgres_commit_window_ms).
        self.commit_interval = commit_window
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
        # A node paused mid-transaction (SIGSTOP, a VM migration) holds its rows' locks,
        # and every other node's group commit touching them waits: the node that takes its
        # tables over could write nothing until it woke. PostgreSQL ends such a session
        # after IDLE_IN_TRANSACTION_MS; a transaction of ours never idles a millisecond.
        settings = {"idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_MS)}
        if self.schema:
            settings["search_path"] = self.schema
        return settings

    async def _connect(self) -> asyncpg.Connection:
        return await asyncpg.connect(self.url, timeout=self.timeout,
                                     command_timeout=self.timeout,
                                     server_settings=self._settings())

    @property
    def where(self) -> str:
        """The database as it may be shown: its URL with the password masked, and the
        schema."""
        return masked(self.url) + (f" (schema {self.schema})" if self.schema else "")

    async def migrate(self, check: bool = False) -> Upgrade:
        """Bring the schema to this code's version (server/store/migrations.py), one node
        at a time (an advisory lock); with ``check``, only say what that would run."""
        try:
            conn = await asyncpg.connect(self.url, timeout=self.timeout)
        except asyncpg.PostgresError as exc:
            raise StoreRefused(self._refusal(exc)) from exc
        except UNREACHABLE as exc:
            raise StoreUnavailable(f"cannot reach PostgreSQL at {self.where}: "
                                   f"{masked(str(exc))}") from exc
        try:
            await conn.execute("SELECT pg_advisory_lock($1)", SCHEMA_LOCK)
            if self.schema:
                if not check:
                    await conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                await conn.execute(f'SET search_path TO "{self.schema}"')
            found = await postgres_schema.version(conn)
            return await upgrade(self.where, found, postgres_schema.CHAIN,
                                 None if check else functools.partial(self._apply, conn))
        except asyncpg.PostgresError as exc:
            raise StoreRefused(self._refusal(exc)) from exc
        finally:
            await conn.close()  # and the lock with it

    async def _apply(self, conn: asyncpg.Connection,
                     migration: Migration[asyncpg.Connection]) -> None:
        """One migration and its row in ``schema_version``, in one transaction."""
        async with conn.transaction():
            await conn.execute(VERSION_TABLE)
            await run_steps(conn, migration, self.where)
            await conn.execute(numbered(RECORD_VERSION), migration.version, migration.name,
                               time.time())

    async def open(self) -> None:
        await self.migrate()
        self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                               timeout=self.timeout,
                                               command_timeout=self.timeout,
                                               server_settings=self._settings())
        self._conn = await self._connect()
        self._start_writer()

    def _refusal(self, exc: asyncpg.PostgresError) -> str:
        """What is missing, and how to make it, in one line."""
        named = re.search(r'"([^"]+)"', str(exc))
        name = named.group(1) if named else "?"
        parts = urlsplit(self.url)
        role = _ident(parts.username or name)
        database = _ident(parts.path.lstrip("/") or parts.username or "?")
        here = f"PostgreSQL at {self.where}"
        if isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError) \
                and "does not exist" in str(exc):
            return (f"{here} has no role {name!r}: as a superuser, run CREATE ROLE "
                    f"{_ident(name)} LOGIN PASSWORD '...'; (or createuser --pwprompt {name}), "
                    f"then give it its database: CREATE DATABASE {database} OWNER "
                    f"{_ident(name)}; (or ALTER DATABASE {database} OWNER TO {_ident(name)};)")
        if isinstance(exc, asyncpg.InvalidCatalogNameError):
            return (f"{here} has no database {name!r}: as a superuser, run CREATE DATABASE "
                    f"{_ident(name)} OWNER {role}; (or createdb --owner {role} {name})")
        if isinstance(exc, asyncpg.InvalidPasswordError):
            return (f"{here} refused the password of role {name!r}: give the role's "
                    f"password in the URL (or in ~/.pgpass)")
        if isinstance(exc, asyncpg.InsufficientPrivilegeError):
            return (f"{here}: role {role} may not create trickroom's tables ({exc}): make it "
                    f"the database's owner, as a superuser: ALTER DATABASE {database} OWNER "
                    f"TO {role};")
        return f"{here} refused this server: {masked(str(exc))}"

    async def join_cluster(self, prefix: str, redis_db: int) -> None:
        """Let a node of the cluster on Redis database ``redis_db`` under ``prefix`` use
        this database. The first node of a cluster writes them down; a node of another
        cluster is refused with :class:`OtherCluster` (it would take this cluster's tables
        over: it sees none of their leases)."""
        for _ in range(3):  # nothing: another cluster's first node wrote at the same time
            rows = await self._fetchall(JOIN_SQL, (prefix, redis_db, time.time()))
            if rows:
                break
        else:
            raise StoreUnavailable("could not read which cluster this database belongs to")
        theirs, their_db = rows[0]["prefix"], rows[0]["redis_db"]
        if (theirs, their_db) == (prefix, redis_db):
            return
        them, us = f"--cluster-prefix {theirs}", f"--cluster-prefix {prefix}"
        if their_db != redis_db:
            them, us = f"{them} on Redis database {their_db}", f"{us} on Redis database {redis_db}"
        table = f"{self.schema}.cluster" if self.schema else "cluster"
        raise OtherCluster(
            f"the database {self.where} belongs to the cluster of {them}, not to this "
            f"node's {us}: this node would take that cluster's tables over, so it does not "
            f"start. To join that cluster, start it with {them}; for a cluster of its own, "
            f"give it another database (or ?schema=name). To move the cluster itself to "
            f"{us}, stop all its nodes and run DELETE FROM {table}; first.")

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
        future = self._future()
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


def _ident(name: str) -> str:
    """A name as SQL writes it: as it is if plain, else in double quotes."""
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


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

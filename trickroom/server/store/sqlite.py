"""The embedded store, the default: one SQLite file, for a server of one process.

Every accepted action is written before it is acknowledged (DESIGN section 9).
To keep that cheap, writes from all tables go through one writer task that
gathers whatever is queued into one transaction and commits it once (group
commit): a burst of actions from many tables costs one commit, not one each.
(The first write of a loop turn, with nothing queued, commits at once.)
Each ``await store.persist(...)`` returns only after its transaction has
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
import logging
import sqlite3
import time
from collections.abc import Coroutine, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import aiosqlite

from trickroom.server.store import sqlite_schema
from trickroom.server.store.base import Store
from trickroom.server.store.migrations import (
    RECORD_VERSION,
    VERSION_TABLE,
    Migration,
    Upgrade,
    run_steps,
    upgrade,
)
from trickroom.server.store.values import Conflict, Row, Statement, StoreError

log = logging.getLogger("trickroom.store")

DURABILITY = {"server_crash": "NORMAL", "power_loss": "FULL"}


class _SyncTx:
    """The writer's transaction for a statement that reads first: plain ``sqlite3`` calls
    behind the async :class:`~server.store.base.Tx` face, so they never suspend."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.conn.execute(sql, params)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        cur = self.conn.execute(sql, params)
        row = cur.fetchone()
        return None if row is None else dict(zip([c[0] for c in cur.description], row,
                                                 strict=True))


def _drive(coro: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine that never suspends (one over :class:`_SyncTx`) to its end, here."""
    try:
        coro.send(None)
    except StopIteration:
        return
    coro.close()
    raise RuntimeError("a store statement waited inside the SQLite writer")


class SqliteStore(Store):
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

    @property
    def where(self) -> str:
        return self.path

    async def migrate(self, check: bool = False) -> Upgrade:
        """Bring the file to this code's schema version (server/store/migrations.py); with
        ``check``, open it read-only and only say what that would run."""
        chain = sqlite_schema.CHAIN
        if check and not Path(self.path).exists():
            return await upgrade(self.where, None, chain, None)
        if check:
            db = await aiosqlite.connect(Path(self.path).absolute().as_uri() + "?mode=ro",
                                         uri=True, factory=UnicodeNocase)
        else:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(self.path, isolation_level=None, timeout=30,
                                         factory=UnicodeNocase)
        try:
            found = await sqlite_schema.version(db)
            return await upgrade(self.where, found, chain,
                                 None if check else partial(self._apply, db))
        finally:
            await db.close()

    async def _apply(self, db: aiosqlite.Connection,
                     migration: Migration[aiosqlite.Connection]) -> None:
        """One migration and its row in ``schema_version``, in one transaction."""
        await db.execute("BEGIN IMMEDIATE")
        try:
            await db.execute(VERSION_TABLE)
            await run_steps(db, migration, self.where)
            await db.execute(RECORD_VERSION, (migration.version, migration.name, time.time()))
        except BaseException:
            await db.execute("ROLLBACK")
            raise
        await db.execute("COMMIT")

    async def open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:  # here, not in aiosqlite's thread, which would outlive a failed connect
            sqlite3.connect(self.path).close()
        except sqlite3.Error as exc:  # a directory, or a file that may not be written
            raise StoreError(f"cannot open the SQLite file {self.path}: {exc}") from None
        await self.migrate()
        self._db = await aiosqlite.connect(self.path, factory=UnicodeNocase)
        self._db.row_factory = aiosqlite.Row
        await self._db.execute("PRAGMA journal_mode=WAL")
        await self._db.execute(f"PRAGMA synchronous={DURABILITY[self.durability]}")
        self._conn = sqlite3.connect(self.path, isolation_level="DEFERRED", timeout=30,
                                     factory=UnicodeNocase)
        self._conn.execute(f"PRAGMA synchronous={DURABILITY[self.durability]}")
        self._start_writer()

    async def close(self) -> None:
        """Flush every pending write, then close the file."""
        await self._stop_writer()
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

    async def _write_all(self, statements: list[Statement]) -> None:
        """Write statements that must land together: they always share one transaction.

        The first write in a turn of the event loop commits at once, when the writer has
        nothing queued: a lone action (a quiet server, one table) does not wait a turn
        for the writer task and another for its answer. Later writes in the same turn
        go to the writer, which commits all of them together on the next turn.
        """
        if not self._turn_committed and self._queue.empty() and self._conn is not None:
            self._turn_committed = True
            self._writer_loop().call_soon(self._next_turn)
            self._commit([statements])
            self.commits += 1
            self.writes += 1
            return
        future = self._future()
        await self._queue.put((statements, future))
        await future

    def _next_turn(self) -> None:
        self._turn_committed = False

    async def _commit_batches(self, batches: list[list[Statement]]) -> None:
        self._commit(batches)  # on the loop's own thread: no await inside

    def _commit(self, batches: list[list[Statement]]) -> None:
        """Every statement, then one commit: all of it lands, or none of it."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("the store is not open")
        try:
            for statements in batches:
                for statement in statements:
                    if callable(statement):
                        _drive(statement(_SyncTx(conn)))  # type: ignore[arg-type]
                    else:
                        conn.execute(*statement)
            conn.commit()
        except sqlite3.IntegrityError as exc:
            conn.rollback()
            raise Conflict(str(exc)) from exc
        except BaseException:
            conn.rollback()
            raise

    # -- reads ---------------------------------------------------------------------------------

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Run and read to the end in one call on the reader's thread. A cursor opened in
        one call and read in the next keeps its statement, and so the connection's read
        snapshot, open in between; other reads interleaved there kept that snapshot going,
        and under load missed writes already committed and acknowledged."""
        return list(await self.db.execute_fetchall(sql, params))  # type: ignore[arg-type]


def nocase(a: str, b: str) -> int:
    """``NOCASE`` by Unicode case folding: SQLite's own folds ASCII alone, so "JOSÉ" and
    "josé" were two accounts. On ASCII it orders as SQLite's does (names were ASCII until
    issue 33), so the indexes of an older file stay in order."""
    x, y = a.casefold(), b.casefold()
    return (x > y) - (x < y)



class UnicodeNocase(sqlite3.Connection):
    """A connection to the file: it compares names by :func:`nocase` (every connection
    must, or one would see the index out of order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.create_collation("NOCASE", nocase)

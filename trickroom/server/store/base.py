"""What every store does, in SQL that SQLite and PostgreSQL both read.

A store holds accounts, games, actions, ratings and bans (DESIGN section 9).
Two engines sit behind one interface: SQLite, embedded, for one process (the
default), and PostgreSQL for a cluster of nodes (section 11). The queries
here are written once, in the SQL both engines share (``?`` placeholders,
which the PostgreSQL store numbers; ``ON CONFLICT``; ``CASE`` for a larger of
two values); each engine brings its schema, its connection and its writer.

A write is a list of :data:`Statement`: plain SQL with parameters, or a
coroutine function of the open transaction (:class:`Tx`) for a write that
must read first (a rating moves from the value stored now). The engine runs
a write's statements in one transaction, groups writes that arrive together
into one commit, and answers each write only once it has committed.

A table run by a cluster node writes under a **fence**: its id and the epoch
of the node's ownership. The first statement of such a write moves the
table's stored epoch up to the writer's, and refuses the whole write when a
newer owner has already written or claimed the table (:class:`StaleOwner`):
an old owner, paused past its lease, can never write after losing the table.
"""

from __future__ import annotations

import asyncio
import json
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import orjson

from trickroom.ratings import Standing
from trickroom.server.metrics import METRICS
from trickroom.server.store.archive import archivable, unpack
from trickroom.server.store.migrations import Upgrade
from trickroom.server.store.statements import ban, fenced, standing, statements
from trickroom.server.store.values import (
    Conflict,
    Fence,
    NameTaken,
    Row,
    Statement,
    StoredGame,
    StoreUnavailable,
    Tx,
)
from trickroom.server.tables.records import GameCreated, Record

RECENT_GAMES = 20  # how many ended games a profile lists
SEAT_ACCURACIES_KEPT = 20_000
"""Finished analyses whose seats' accuracies are kept read (a few numbers each): a
profile's accuracy reads up to ``RECENT_GAMES`` analyses of some 100-300 kB each, which
are decoded once, not at every view of every profile."""
_seat_accuracies: OrderedDict[str, dict[int, tuple[float, int]]] = OrderedDict()


def seat_accuracies(game_id: str, result: str | bytes | None) -> dict[int, tuple[float, int]]:
    """Each analysed seat's accuracy and decisions in a finished analysis (kept: an
    analysis once done does not change)."""
    found = _seat_accuracies.get(game_id)
    if found is not None:
        _seat_accuracies.move_to_end(game_id)
        return found
    data = orjson.loads(result) if result else {}
    found = {int(s["seat"]): (float(s["accuracy"]), int(s.get("decisions", 0)))
             for s in data.get("seats", ()) if s.get("accuracy") is not None}
    _seat_accuracies[game_id] = found
    if len(_seat_accuracies) > SEAT_ACCURACIES_KEPT:
        _seat_accuracies.popitem(last=False)
    return found
# What a stored seat keeps for the server alone: the seat token's hash, and the address
# group its player sat from (for eligibility): never in a game's public record.
PRIVATE_SEAT_KEYS = frozenset({"token_hash", "group"})

# The next ``limit`` games with moves after a given id, and when each ended: a loose scan
# of the moves' key (one seek a game), which both engines run the same way.
WALK_SQL = """
WITH RECURSIVE walk (game_id, n) AS (
    SELECT (SELECT game_id FROM actions WHERE game_id > ? ORDER BY game_id LIMIT 1), 1
    UNION ALL
    SELECT (SELECT game_id FROM actions WHERE game_id > walk.game_id ORDER BY game_id
            LIMIT 1), n + 1
    FROM walk WHERE walk.game_id IS NOT NULL AND n < ?)
SELECT walk.game_id AS game_id, games.finished AS finished
FROM walk LEFT JOIN games ON games.id = walk.game_id WHERE walk.game_id IS NOT NULL
ORDER BY walk.game_id
"""

def _registered(seats: list[dict[str, Any]]) -> int:
    """How many registered accounts sat at a game at its end: a casual game counts toward
    ranked play only with two (server.tables.play._casual_credit), so a profile can say why
    a game against robots alone did not count."""
    return len({str(s.get("account") or s["name"]).lower() for s in seats
                if s.get("kind") == "human" and not s.get("guest")
                and not str(s.get("name", "")).startswith("guest-")})


# A game's moves go only once it has ended, whatever the caller read before.
DROP_MOVES_SQL = ("DELETE FROM actions WHERE game_id = ? AND EXISTS (SELECT 1 FROM games "
                  "WHERE id = ? AND finished IS NOT NULL)")


STALE_CLAIM_SECONDS = 600.0  # a board set's table claimed this long ago, its game unstarted


class Store(ABC):
    """Accounts, games and ratings, whatever engine holds them."""

    commits: int
    writes: int
    shared: bool = False  # whether the nodes of a cluster may share it (one server's only)

    @abstractmethod
    async def open(self) -> None:
        """Connect, after :meth:`migrate`: a database newer than this code is refused
        (:class:`~.migrations.SchemaTooNew`), an older or empty one brought to its version."""

    @abstractmethod
    async def migrate(self, check: bool = False) -> Upgrade:
        """Bring the database to this code's schema version, one migration at a time, each
        logged (server/store/migrations.py); with ``check``, change nothing and say what
        that would run. Needs no :meth:`open`. Raises :class:`~.migrations.SchemaTooNew`
        for a database newer than this code."""

    @property
    @abstractmethod
    def where(self) -> str:
        """The database as it may be shown (no password)."""

    @abstractmethod
    async def close(self) -> None:
        """Flush every pending write, then disconnect."""

    @abstractmethod
    async def _write_all(self, statements: list[Statement]) -> None:
        """Write statements that must land together, in one transaction."""

    @abstractmethod
    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of a read (outside any write's transaction)."""

    # -- the group-commit writer, whatever the engine ------------------------------------

    _queue: asyncio.Queue[tuple[list[Statement], asyncio.Future[None]] | None]
    _writer: asyncio.Task[None] | None = None
    _loop: asyncio.AbstractEventLoop | None = None  # the writer's
    commit_interval: float = 0.0  # seconds the writer waits for more writes to join a commit

    def _start_writer(self) -> None:
        """Start the group-commit writer on the running loop, and keep that loop: on
        Python 3.11 each ``asyncio.get_running_loop()`` (and so ``asyncio.sleep``) is a
        getpid system call, and every write asks for a future (issue 40)."""
        self._loop = loop = asyncio.get_running_loop()
        self._writer = loop.create_task(self._write_loop(), name="store-writer")

    def _writer_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            raise RuntimeError("the store is not open")
        return self._loop

    def _future(self) -> asyncio.Future[None]:
        return self._writer_loop().create_future()

    async def _linger(self) -> None:
        """Wait ``commit_interval`` for more writes to join a commit."""
        woken = self._future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        handle = self._writer_loop().call_later(self.commit_interval, wake)
        try:
            await woken
        finally:
            handle.cancel()

    async def _stop_writer(self) -> None:
        """Let the writer commit every write still waiting, then end."""
        if self._writer is not None:
            await self._queue.put(None)
            await self._writer
            self._writer = None

    @abstractmethod
    async def _commit_batches(self, batches: list[list[Statement]]) -> None:
        """Every statement of every write in one transaction: all of it lands, or none."""

    async def _write_loop(self) -> None:
        """Gather whatever writes are queued into one transaction and commit it once; each
        write is answered only after its commit."""
        stopping = False
        while not stopping:
            item = await self._queue.get()
            if item is None:
                break
            batch = [item]
            if self.commit_interval:
                await self._linger()
            while not self._queue.empty():
                nxt = self._queue.get_nowait()
                if nxt is None:
                    stopping = True
                    break
                batch.append(nxt)
            started = time.perf_counter()
            try:
                await self._commit_batches([s for s, _ in batch])
                METRICS.commit_seconds.observe(time.perf_counter() - started)
            except StoreUnavailable as exc:  # nothing landed; every write of it is refused
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            except Exception:
                # One bad item must not sink the others: retry each alone.
                await self._write_one_by_one(batch)
                continue
            self.commits += 1
            self.writes += len(batch)
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(None)

    async def _write_one_by_one(self, batch: list[tuple[list[Statement],
                                                        asyncio.Future[None]]]) -> None:
        for written, fut in batch:
            try:
                await self._commit_batches([written])
            except Exception as exc:  # this item fails alone; nothing of it is acked
                if not fut.done():
                    fut.set_exception(exc)
                continue
            self.commits += 1
            self.writes += 1
            if not fut.done():
                fut.set_result(None)

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    async def _write(self, sql: str, params: Sequence[Any]) -> None:
        await self._write_all([(sql, params)])

    # -- accounts ----------------------------------------------------------------------------

    async def create_user(self, name: str, pw_hash: str) -> None:
        try:
            await self._write("INSERT INTO users (name, pw_hash, created) VALUES (?, ?, ?)",
                              (name, pw_hash, time.time()))
        except Conflict:
            raise NameTaken(name) from None

    async def user_hash(self, name: str) -> tuple[str, str] | None:
        """The stored (name as registered, password hash) for ``name``, any case."""
        row = await self._fetchone("SELECT name, pw_hash FROM users WHERE name = ?", (name,))
        return (row["name"], row["pw_hash"]) if row else None

    async def set_password(self, name: str, pw_hash: str) -> None:
        """A new hash for the same password (an old scheme's, upgraded at login)."""
        await self._write("UPDATE users SET pw_hash = ? WHERE name = ?", (pw_hash, name))

    async def end_guest_sessions(self, name: str) -> None:
        """A guest name goes to a new guest: the sessions of whoever had it before end."""
        await self._write("DELETE FROM sessions WHERE name = ? AND guest = 1", (name,))

    async def create_session(self, token_hash: str, name: str, guest: bool,
                             address: str | None = None, keep: int = 0) -> None:
        """A new session; with ``keep``, the account's registered sessions past the
        ``keep`` most lately used end (one account does not pile up sessions)."""
        now = time.time()
        written: list[Statement] = [(
            "INSERT INTO sessions (token_hash, name, guest, created, last_used, address) "
            "VALUES (?, ?, ?, ?, ?, ?)", (token_hash, name, int(guest), now, now, address))]
        if keep and not guest:
            written.append((
                "DELETE FROM sessions WHERE name = ? AND guest = 0 AND token_hash NOT IN "
                "(SELECT token_hash FROM sessions WHERE name = ? AND guest = 0 "
                "ORDER BY COALESCE(last_used, created) DESC LIMIT ?)", (name, name, keep)))
        await self._write_all(written)

    async def session(self, token_hash: str) -> tuple[str, bool, float, float] | None:
        """The session's (name, guest, time it was made, time it was last used)."""
        row = await self._fetchone("SELECT name, guest, created, last_used FROM sessions "
                                   "WHERE token_hash = ?", (token_hash,))
        if row is None:
            return None
        return (row["name"], bool(row["guest"]), row["created"],
                row["last_used"] or row["created"])

    async def session_used(self, token_hash: str, address: str) -> None:
        """A session resumed now, from ``address``."""
        await self._write("UPDATE sessions SET last_used = ?, address = ? WHERE token_hash = ?",
                          (time.time(), address, token_hash))

    async def end_session(self, token_hash: str) -> None:
        await self._write("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

    async def end_sessions(self, name: str, keep: str = "") -> int:
        """End every registered session of ``name`` but ``keep`` (a token hash): how many
        there were."""
        rows = await self._fetchall("SELECT token_hash FROM sessions WHERE name = ? AND "
                                    "guest = 0 AND token_hash <> ?", (name, keep))
        await self._write("DELETE FROM sessions WHERE name = ? AND guest = 0 AND "
                          "token_hash <> ?", (name, keep))
        return len(rows)

    async def forget_sessions(self, registered_before: float, guest_before: float) -> int:
        """Forget the registered sessions last used before ``registered_before`` and the
        guest sessions made before ``guest_before`` (none of them resumes): how many."""
        where = ("(guest = 0 AND COALESCE(last_used, created) < ?) OR "
                 "(guest = 1 AND created < ?)")
        params = (registered_before, guest_before)
        row = await self._fetchone(f"SELECT count(*) AS n FROM sessions WHERE {where}", params)
        await self._write(f"DELETE FROM sessions WHERE {where}", params)
        return int(row["n"]) if row else 0

    async def sessions_of(self, name: str, since: float) -> list[Row]:
        """The registered sessions of ``name`` used after ``since``, most lately used
        first: token_hash, created, last_used, address."""
        return await self._fetchall(
            "SELECT token_hash, created, COALESCE(last_used, created) AS last_used, address "
            "FROM sessions WHERE name = ? AND guest = 0 AND COALESCE(last_used, created) > ? "
            "ORDER BY COALESCE(last_used, created) DESC", (name, since))

    async def add_device(self, token_hash: str, name: str, keep: int = 50) -> None:
        """A device that logged in to ``name`` with its password (issue 32, item 4); the
        account's devices past the ``keep`` newest are forgotten."""
        await self._write_all([
            ("INSERT INTO devices (token_hash, name, created) VALUES (?, ?, ?) "
             "ON CONFLICT (token_hash) DO NOTHING", (token_hash, name, time.time())),
            ("DELETE FROM devices WHERE name = ? AND token_hash NOT IN (SELECT token_hash "
             "FROM devices WHERE name = ? ORDER BY created DESC LIMIT ?)", (name, name, keep))])

    async def device_of(self, token_hash: str) -> str | None:
        """The account a device token was given to, if any."""
        row = await self._fetchone("SELECT name FROM devices WHERE token_hash = ?",
                                   (token_hash,))
        return row["name"] if row else None

    async def guest_session_since(self, name: str, since: float) -> bool:
        """Whether a guest session for ``name`` was made after ``since``."""
        return await self._fetchone("SELECT 1 AS one FROM sessions WHERE name = ? AND "
                                    "guest = 1 AND created > ? LIMIT 1",
                                    (name, since)) is not None

    async def guest_names_since(self, since: float) -> list[tuple[str, float]]:
        """Each guest name with a session made after ``since``, and its last session's time
        (the names that may still resume, for a hub that starts)."""
        rows = await self._fetchall("SELECT name, max(created) AS created FROM sessions "
                                    "WHERE guest = 1 AND created > ? GROUP BY name", (since,))
        return [(row["name"], row["created"]) for row in rows]

    # -- ignore lists (issue 32, item E) ------------------------------------------------------

    async def ignores(self, name: str) -> list[str]:
        """Whom a registered player ignores."""
        rows = await self._fetchall("SELECT other FROM ignores WHERE name = ? ORDER BY other",
                                    (name,))
        return [row["other"] for row in rows]

    async def set_ignore(self, name: str, other: str, on: bool, most: int) -> bool:
        """``name`` ignores ``other`` (``on``) or no longer does. False, changing nothing,
        when ``name`` ignores ``most`` others already (ignoring one of them again, or
        ending an ignore, always succeeds)."""
        if not on:
            await self._write("DELETE FROM ignores WHERE name = ? AND other = ?", (name, other))
            return True
        done: list[bool] = []

        async def add(tx: Tx) -> None:
            row = await tx.fetchone(
                "SELECT (SELECT count(*) FROM ignores WHERE name = ?) AS n, (SELECT count(*) "
                "FROM ignores WHERE name = ? AND other = ?) AS here", (name, name, other))
            assert row is not None
            if not row["here"] and row["n"] >= most:
                done.append(False)
                return
            await tx.execute("INSERT INTO ignores (name, other) VALUES (?, ?) "
                             "ON CONFLICT DO NOTHING", (name, other))
            done.append(True)
        await self._write_all([add])
        return done[-1]

    # -- follows and presence (issue 35, item 2) ---------------------------------------------

    async def follows(self, name: str) -> list[dict[str, Any]]:
        """Whom ``name`` follows (as each account spells its name), and whether each
        follows back (a friend)."""
        rows = await self._fetchall(
            "SELECT users.name AS other, EXISTS (SELECT 1 FROM follows AS back WHERE "
            "back.name = follows.other AND back.other = follows.name) AS mutual FROM follows "
            "JOIN users ON users.name = follows.other WHERE follows.name = ? "
            "ORDER BY users.name", (name,))
        return [{"name": row["other"], "mutual": bool(row["mutual"])} for row in rows]

    async def set_follow(self, name: str, other: str, on: bool, most: int) -> bool:
        """``name`` follows ``other`` (``on``) or no longer does. False, changing nothing,
        when ``name`` follows ``most`` players already."""
        if not on:
            await self._write("DELETE FROM follows WHERE name = ? AND other = ?", (name, other))
            return True
        done: list[bool] = []

        async def add(tx: Tx) -> None:
            row = await tx.fetchone(
                "SELECT (SELECT count(*) FROM follows WHERE name = ?) AS n, (SELECT count(*) "
                "FROM follows WHERE name = ? AND other = ?) AS here", (name, name, other))
            assert row is not None
            if not row["here"] and row["n"] >= most:
                done.append(False)
                return
            await tx.execute("INSERT INTO follows (name, other) VALUES (?, ?) "
                             "ON CONFLICT DO NOTHING", (name, other))
            done.append(True)
        await self._write_all([add])
        return done[-1]

    async def hides_presence(self, name: str) -> bool:
        row = await self._fetchone("SELECT hide_presence FROM users WHERE name = ?", (name,))
        return bool(row and row["hide_presence"])

    async def set_language(self, name: str, language: str | None) -> None:
        """The language a registered player chose (None: none, their browser's)."""
        await self._write("UPDATE users SET language = ? WHERE name = ?", (language, name))

    async def set_hide_presence(self, name: str, hidden: bool) -> None:
        await self._write("UPDATE users SET hide_presence = ? WHERE name = ?",
                          (int(hidden), name))

    # -- games -------------------------------------------------------------------------------------

    async def persist(self, records: Sequence[Record], fence: Fence | None = None) -> None:
        """Write a table's records in one transaction: all of them land, or none.

        Returns once the transaction has committed (group commit: with other tables'
        writes of the same moment). Under a ``fence``, raises :class:`StaleOwner` (and
        writes nothing) when a newer owner of the table has written or claimed it.
        """
        written: list[Statement] = [] if fence is None else [fenced(fence)]
        for record in records:
            written.extend(statements(record))
        await self._write_all(written)

    async def claim_table(self, fence: Fence) -> None:
        """Take a table over at ``fence.epoch``: from now on, writes under an older epoch
        are refused. Raises :class:`StaleOwner` if a newer epoch already holds it."""
        await self._write_all([fenced(fence)])

    async def take_table(self, table_id: str) -> int:
        """Become a table's newest owner: its epoch, one more than any before (the store,
        not Redis, counts epochs, so a Redis restart can never hand out an old one)."""
        taken: list[int] = []

        async def take(tx: Tx) -> None:
            row = await tx.fetchone("INSERT INTO table_owners (table_id, epoch) VALUES (?, 1) "
                                    "ON CONFLICT (table_id) DO UPDATE SET epoch = "
                                    "table_owners.epoch + 1 RETURNING epoch", (table_id,))
            assert row is not None
            taken.append(int(row["epoch"]))
        await self._write_all([take])
        return taken[0]

    async def ping(self) -> None:
        """Answer one query (readiness): raises if the database does not."""
        await self._fetchone("SELECT 1 AS one")

    async def epochs(self, table_ids: Sequence[str]) -> dict[str, int]:
        """Each table's newest epoch of ownership (a node proving it still owns its tables
        while Redis does not answer: no other node has taken one if none moved)."""
        found: dict[str, int] = {}
        for start in range(0, len(table_ids), 500):  # within every database's parameters
            chunk = list(table_ids[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            rows = await self._fetchall(f"SELECT table_id, epoch FROM table_owners WHERE "
                                        f"table_id IN ({marks})", chunk)
            found.update((row["table_id"], int(row["epoch"])) for row in rows)
        return found

    async def unfinished_tables(self) -> list[str]:
        """The tables with a game in play (what a cluster's nodes keep running)."""
        rows = await self._fetchall("SELECT DISTINCT table_id FROM games WHERE finished IS NULL")
        return [row["table_id"] for row in rows]

    async def unfinished_games(self) -> list[StoredGame]:
        rows = await self._fetchall("SELECT * FROM games WHERE finished IS NULL "
                                    "ORDER BY started")
        return [await self._stored(row) for row in rows]

    async def unfinished_game(self, table_id: str) -> StoredGame | None:
        """The table's game in play, if it has one (what a node taking the table resumes)."""
        row = await self._fetchone("SELECT * FROM games WHERE table_id = ? AND finished IS "
                                   "NULL ORDER BY started DESC LIMIT 1", (table_id,))
        return await self._stored(row) if row else None

    async def _stored(self, row: Row) -> StoredGame:
        actions = [{"seat": a["seat"], **json.loads(a["action"])}
                   for a in await self._fetchall("SELECT seat, action FROM actions "
                                                 "WHERE game_id = ? ORDER BY idx",
                                                 (row["id"],))]
        created = GameCreated(row["id"], row["table_id"], row["room"], row["kind"],
                              json.loads(row["rules"]), row["seed"], row["dealer"],
                              tuple(json.loads(row["seats"])), row["seating"],
                              bool(row["spectator_chat"]), row["creator"],
                              json.loads(row["private"]) if row["private"] else None)
        return StoredGame(created, actions)

    # -- analyses (issue 38): the store is the queue every node's workers take from -----

    async def analysis(self, game_id: str, raw: bool = False) -> dict[str, Any] | None:
        """A game's analysis: its state (queued, running, done, failed), progress (``done``
        of ``total`` hands), when asked, claimed and finished, and (done) its result;
        ``raw``: the result as stored, JSON text (a long game's is hundreds of kilobytes:
        decoded and encoded again, a dozen milliseconds of the event loop)."""
        row = await self._fetchone("SELECT * FROM analyses WHERE game_id = ?", (game_id,))
        if row is None:
            return None
        found = dict(row)
        if not raw:
            found["result"] = json.loads(row["result"]) if row["result"] else None
        return found

    async def analysis_queued(self, game_id: str, total: int, now: float, asker: str) -> None:
        await self._write_all([
            ("DELETE FROM analyses WHERE game_id = ?", (game_id,)),
            ("INSERT INTO analyses (game_id, state, done, total, requested, asker) "
             "VALUES (?, 'queued', 0, ?, ?, ?)", (game_id, total, now, asker))])

    async def analyses_waiting(self, live_since: float) -> list[str]:
        """Who asked for the analyses that wait or run (on every node), one each: an
        asker as :func:`server.analysis.asker_of` names it, or ``auto``; a running one whose
        node went quiet before ``live_since`` is not counted."""
        rows = await self._fetchall("SELECT asker FROM analyses WHERE state = 'queued' OR "
                                    "(state = 'running' AND claimed >= ?)", (live_since,))
        return [str(row["asker"]) for row in rows]

    async def analysis_claim(self, node: str, now: float, live_since: float) -> str | None:
        """Take the oldest waiting analysis (or one whose node went quiet before
        ``live_since``) for ``node``, an asked one before any automatic one; its game id, or
        None. Two nodes claiming at once: the conditional update lets one have it."""
        rows = await self._fetchall(
            "SELECT game_id FROM analyses WHERE state = 'queued' OR (state = 'running' AND "
            "claimed < ?) ORDER BY CASE WHEN asker = 'auto' THEN 1 ELSE 0 END, requested "
            "LIMIT 3", (live_since,))
        for row in rows:
            game_id = row["game_id"]
            await self._write("UPDATE analyses SET state = 'running', node = ?, claimed = ?, "
                              "done = 0 WHERE game_id = ? AND (state = 'queued' OR (state = "
                              "'running' AND claimed < ?))", (node, now, game_id, live_since))
            mine = await self._fetchone("SELECT node, claimed FROM analyses WHERE game_id = ?",
                                        (game_id,))
            if mine is not None and mine["node"] == node and mine["claimed"] == now:
                return str(game_id)
        return None

    async def analysis_progress(self, game_id: str, node: str, state: str, done: int,
                                now: float, result: dict[str, Any] | str | None = None
                                ) -> None:
        """A claimed analysis's progress (renewing the claim), or its end (its result, or
        that encoded as JSON already)."""
        text = result if isinstance(result, str) or result is None else json.dumps(result)
        await self._write("UPDATE analyses SET state = ?, done = ?, claimed = ?, result = ?, "
                          "finished = ? WHERE game_id = ? AND node = ?",
                          (state, done, now, text,
                           now if state in ("done", "failed") else None, game_id, node))

    # -- board sets (issue 39): a duplicate room's deals, where its tables meet ----------

    async def board_join(self, room: str, kind: str, slots: int, players: Sequence[str],
                         table_id: str, new: tuple[str, int, int], now: float
                         ) -> tuple[str, int, int, int]:
        """Claim a table of a board set of ``room`` for ``table_id``: of the oldest set with
        a table free that none of ``players`` (the people seated) has played or holds, or
        else of a new one (``new``: its id, seed and first dealer). The claim is the row's
        key, so two tables (on two nodes) claiming at once get two tables. Returns the
        set's id, the table's slot, the seed and the first dealer."""
        folded = {p.lower() for p in players}
        # A claim whose game never started (its table closed first) frees its table.
        await self._write("DELETE FROM board_tables WHERE game_id IS NULL AND claimed < ?",
                          (now - STALE_CLAIM_SECONDS,))
        rows = await self._fetchall(
            "SELECT s.id, s.seed, s.dealer, s.slots FROM board_sets s WHERE s.room = ? AND "
            "(SELECT COUNT(*) FROM board_tables t WHERE t.set_id = s.id) < s.slots "
            "ORDER BY s.created, s.id LIMIT 50", (room,))
        for row in rows:
            claimed = await self._fetchall("SELECT slot, players FROM board_tables WHERE "
                                           "set_id = ?", (row["id"],))
            if any(p.lower() in folded for c in claimed for p in json.loads(c["players"])):
                continue
            taken = {c["slot"] for c in claimed}
            for slot in range(row["slots"]):
                if slot in taken:
                    continue
                if await self._board_claim(row["id"], slot, players, table_id, now):
                    return row["id"], slot, int(row["seed"]), int(row["dealer"])
        set_id, seed, dealer = new
        await self._write_all([
            ("INSERT INTO board_sets (id, room, kind, seed, dealer, slots, created) VALUES "
             "(?, ?, ?, ?, ?, ?, ?)", (set_id, room, kind, seed, dealer, slots, now))])
        claimed_first = await self._board_claim(set_id, 0, players, table_id, now)
        assert claimed_first
        return set_id, 0, seed, dealer

    async def _board_claim(self, set_id: str, slot: int, players: Sequence[str],
                           table_id: str, now: float) -> bool:
        await self._write("INSERT INTO board_tables (set_id, slot, table_id, players, claimed) "
                          "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                          (set_id, slot, table_id, json.dumps(list(players)), now))
        mine = await self._fetchone("SELECT table_id, claimed FROM board_tables WHERE "
                                    "set_id = ? AND slot = ?", (set_id, slot))
        return mine is not None and mine["table_id"] == table_id and mine["claimed"] == now

    async def board_leave(self, set_id: str, slot: int, table_id: str) -> None:
        """Give back a claimed table whose game did not start (its seats emptied)."""
        await self._write("DELETE FROM board_tables WHERE set_id = ? AND slot = ? AND "
                          "table_id = ? AND game_id IS NULL", (set_id, slot, table_id))

    async def board_seen(self, set_id: str, slot: int, table_id: str,
                         players: Sequence[str]) -> None:
        """Who has seen a table's play of a set (they may not play its other tables)."""
        await self._write("UPDATE board_tables SET players = ? WHERE set_id = ? AND slot = ? "
                          "AND table_id = ?", (json.dumps(list(players)), set_id, slot,
                                               table_id))

    async def board(self, set_id: str) -> dict[str, Any] | None:
        """A board set: its room, game, slots, rating state, each claimed table (slot,
        players by its seats, game, finished) and each table's results deal by deal
        (``deals[slot][deal]``: the dict the table stored, by the board set's seats)."""
        row = await self._fetchone("SELECT * FROM board_sets WHERE id = ?", (set_id,))
        if row is None:
            return None
        tables = {t["slot"]: {"slot": t["slot"], "table": t["table_id"],
                              "players": json.loads(t["players"]), "game_id": t["game_id"],
                              "finished": t["finished"]}
                  for t in await self._fetchall("SELECT * FROM board_tables WHERE set_id = ?",
                                                (set_id,))}
        deals: dict[int, dict[int, Any]] = {}
        for d in await self._fetchall("SELECT slot, deal, result FROM board_deals WHERE "
                                      "set_id = ?", (set_id,)):
            deals.setdefault(d["slot"], {})[d["deal"]] = json.loads(d["result"])
        return {"id": row["id"], "room": row["room"], "kind": row["kind"],
                "seed": int(row["seed"]), "dealer": int(row["dealer"]),
                "slots": row["slots"], "rated_by": row["rated_by"],
                "ratings": json.loads(row["ratings"]) if row["ratings"] else None,
                "tables": tables,
                "deals": deals}

    async def board_of_game(self, game_id: str) -> dict[str, Any] | None:
        """The board set a game was played for (its id and slot, and whether every table
        of it has finished), or None."""
        row = await self._fetchone("SELECT set_id, slot FROM board_tables WHERE game_id = ?",
                                   (game_id,))
        if row is None:
            return None
        found = await self._fetchone(
            "SELECT s.slots, (SELECT COUNT(*) FROM board_tables t WHERE t.set_id = s.id AND "
            "t.finished IS NOT NULL) AS done FROM board_sets s WHERE s.id = ?",
            (row["set_id"],))
        complete = found is not None and found["done"] >= found["slots"]
        # Once complete, the set's games (the same deals at each table: the review shows
        # them side by side); before, none is named.
        games = [{"slot": t["slot"], "game_id": t["game_id"]} for t in await self._fetchall(
            "SELECT slot, game_id FROM board_tables WHERE set_id = ? ORDER BY slot",
            (row["set_id"],))] if complete else []
        return {"set": row["set_id"], "slot": row["slot"], "complete": complete,
                "games": games}

    async def games_in_play(self, name: str) -> list[dict[str, Any]]:
        """The games in play where the registered player ``name`` sits (any node's): each
        its table, id, room, game and seat. The games in play are the server's live
        tables (the partial index ``games_unfinished``), few enough to read through."""
        rows = await self._fetchall("SELECT id, table_id, room, kind, seats FROM games "
                                    "WHERE finished IS NULL ORDER BY started")
        folded = name.lower()
        found = []
        for row in rows:
            for seat in json.loads(row["seats"]):
                if seat.get("kind") == "human" and not seat.get("guest") \
                        and (seat.get("account") or "").lower() == folded:
                    found.append({"table": row["table_id"], "game_id": row["id"],
                                  "room": row["room"], "game": row["kind"],
                                  "seat": seat["seat"]})
        return found

    async def game(self, game_id: str, texts: bool = False) -> dict[str, Any] | None:
        """A game's public record: finished games only (an unfinished one holds live hands).
        ``texts``: each rating change keeps its breakdown's texts as templates and values
        (``said``), for a review in another language."""
        row = await self._fetchone("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None or row["finished"] is None:
            return None
        return {
            "id": row["id"],
            "table": row["table_id"],
            "room": row["room"],
            "game": row["kind"],
            "seating": row["seating"],
            "seats": [{k: v for k, v in s.items() if k not in PRIVATE_SEAT_KEYS}
                      for s in json.loads(row["seats"])],
            "started": row["started"],
            "finished": row["finished"],
            "result": json.loads(row["result"]),
            "record": _record(unpack(row["record"]), texts),
            "ratings": [c if texts else {k: v for k, v in c.items() if k != "said"}
                        for c in (json.loads(row["ratings"]) if row["ratings"] else [])],
            # Dealt from a sandbox's fixed seed or list (its table's later games reuse the
            # deals: the review waits for the table to close).
            "sandbox": bool(row["private"] and "sandbox" in json.loads(row["private"])),
            # A duplicate room's game: its board set, and whether every table of it has
            # played (till then its deals are not shown: another table may yet play them).
            "board": await self.board_of_game(game_id),
        }

    async def room_games(self, room: str) -> list[dict[str, Any]]:
        """Every ended game of a room, oldest first, as :meth:`game` gives one (for a
        refit of the room's rating constants, which replays them in time order)."""
        rows = await self._fetchall("SELECT id FROM games WHERE room = ? AND finished IS "
                                    "NOT NULL ORDER BY finished, id", (room,))
        return [g for g in [await self.game(row["id"]) for row in rows] if g is not None]

    async def recent_games(self, name: str, limit: int = RECENT_GAMES) -> list[dict[str, Any]]:
        """The player's last ``limit`` ended games (finished or abandoned), newest first."""
        rows = await self._fetchall(
            "SELECT g.id, g.kind, g.room, g.seats, g.finished, g.result, g.ratings, p.seat "
            "FROM game_players p JOIN games g ON g.id = p.game_id "
            "WHERE p.player = ? ORDER BY p.finished DESC, g.id LIMIT ?", (name, limit))
        out = []
        for row in rows:
            board = await self.board_of_game(row["id"])  # one indexed read for another game
            if board is not None and not board["complete"]:
                continue  # its score is its deals' points, which another table has yet to play
            result = json.loads(row["result"])
            ratings = json.loads(row["ratings"]) if row["ratings"] is not None else None
            mine = next((c for c in ratings or () if c.get("rated")
                         and str(c.get("player", "")).lower() == name.lower()), None)
            seat = row["seat"]
            seats = json.loads(row["seats"])
            out.append({
                "game_id": row["id"],
                "game": row["kind"],
                "room": row["room"],
                "rated": ratings is not None,
                "ended_at": row["finished"],
                "seat": seat,
                "players": [s.get("starter") or s.get("name")
                            for s in sorted(seats, key=lambda s: s["seat"])],
                "registered_players": _registered(seats),
                "scores": result["scores"],
                "won": seat in result["winners"],
                "abandoned": not result["finished"],
                "rating_delta": mine["delta"] if mine is not None else None,
            })
        return out

    async def recent_accuracy(self, name: str, limit: int = RECENT_GAMES
                              ) -> list[dict[str, Any]]:
        """The player's accuracy over their last ``limit`` analysed games (issue 38), per
        game (Spades' and Hearts' scales differ): the mean of each game's accuracy at the
        seat they held, and over how many games and decisions. Read from the analyses
        kept (a game counts once analysed, asked for or automatic)."""
        rows = await self._fetchall(
            "SELECT p.game_id, p.seat, g.kind, a.result FROM game_players p "
            "JOIN analyses a ON a.game_id = p.game_id JOIN games g ON g.id = p.game_id "
            "WHERE p.player = ? AND a.state = 'done' ORDER BY p.finished DESC, p.game_id "
            "LIMIT ?", (name, limit))
        per: dict[str, list[tuple[float, int]]] = {}
        for row in rows:
            mine = seat_accuracies(row["game_id"], row["result"]).get(row["seat"])
            if mine is not None:
                per.setdefault(row["kind"], []).append(mine)
        return [{"game": kind, "accuracy": round(sum(a for a, _ in found) / len(found), 1),
                 "games": len(found), "decisions": sum(n for _, n in found)}
                for kind, found in sorted(per.items())]

    async def player_games(self, name: str, limit: int, since: float | None = None,
                           before: tuple[float, str] | None = None
                           ) -> list[tuple[str, float]]:
        """One page of a player's ended games for an export (``GET
        /api/players/NAME/games.jsonl``): at most ``limit`` ids, each with when it ended,
        newest first (by when each ended, then by id, so that ties have an order), those
        ended at ``since`` or after, strictly after ``before`` in that order (the last of
        the page before: a key, not an offset, so a game ending meanwhile neither repeats
        nor hides one). Read from the profile's index (``game_players``), which holds
        ended games only."""
        sql = "SELECT game_id, finished FROM game_players WHERE player = ?"
        params: list[Any] = [name]
        if since is not None:
            sql += " AND finished >= ?"
            params.append(since)
        if before is not None:
            sql += " AND (finished < ? OR (finished = ? AND game_id < ?))"
            params += [before[0], before[0], before[1]]
        sql += " ORDER BY finished DESC, game_id DESC LIMIT ?"
        rows = await self._fetchall(sql, [*params, limit])
        return [(row["game_id"], float(row["finished"])) for row in rows]

    async def last_ranked_games(self, names: Sequence[str]) -> dict[str, str]:
        """Each player's last ranked game (the newest ended game with ratings they sat
        in, from the start or as a substitute), by name, for those who have one."""
        found: dict[str, str] = {}
        for name in names:
            row = await self._fetchone(
                "SELECT p.game_id AS game_id FROM game_players p JOIN games g ON "
                "g.id = p.game_id WHERE p.player = ? AND g.ratings IS NOT NULL "
                "ORDER BY p.finished DESC LIMIT 1", (name,))
            if row is not None:
                found[name] = row["game_id"]
        return found

    async def action_count(self, game_id: str) -> int:
        row = await self._fetchone("SELECT COUNT(*) AS n FROM actions WHERE game_id = ?",
                                   (game_id,))
        return int(row["n"]) if row else 0

    # -- retention: a finished game's moves go, its packed record stays (server/retention.py)

    async def games_with_moves(self, after: str, limit: int) -> list[tuple[str, float | None]]:
        """Up to ``limit`` games that still have moves in ``actions``, in the order of their
        ids after ``after``, each with when it ended (None: in play). A walk of the moves'
        key, a seek a game: a pass over every game costs what the moves kept are, not
        every game ever played (no index on when games ended is needed)."""
        rows = await self._fetchall(WALK_SQL, (after, limit))
        return [(row["game_id"], row["finished"]) for row in rows]

    async def drop_moves(self, game_ids: Sequence[str]) -> int:
        """Keep each ended game of ``game_ids`` as its packed record alone: a record kept
        whole is packed, and the game's moves are dropped, all in one write. A game in
        play is never touched, nor one whose record holds fewer actions than its moves
        (it keeps them, and a warning says so). Returns the moves dropped."""
        if not game_ids:
            return 0
        marks = ", ".join("?" * len(game_ids))
        records = await self._fetchall(f"SELECT id, record FROM games WHERE id IN ({marks}) "
                                       "AND finished IS NOT NULL AND record IS NOT NULL",
                                       list(game_ids))
        counted = await self._fetchall(f"SELECT game_id, COUNT(*) AS n FROM actions WHERE "
                                       f"game_id IN ({marks}) GROUP BY game_id", list(game_ids))
        moves = {row["game_id"]: int(row["n"]) for row in counted}
        kept = await asyncio.to_thread(archivable, [(row["id"], row["record"],
                                                          moves.get(row["id"], 0))
                                                         for row in records])
        written: list[Statement] = []
        for game_id, record in kept:
            if record is not None:
                written.append(("UPDATE games SET record = ? WHERE id = ? AND finished IS NOT "
                                "NULL", (record, game_id)))
            written.append((DROP_MOVES_SQL, (game_id, game_id)))
        if written:
            await self._write_all(written)
        return sum(moves.get(game_id, 0) for game_id, _ in kept)

    # -- accounts for ranked play ---------------------------------------------------------------

    async def account(self, name: str) -> dict[str, Any] | None:
        """A registered player's ranked settings: rank_me, banned_until, casual_games, and
        whether the account is a BOT's."""
        row = await self._fetchone("SELECT name, rank_me, banned_until, ban_reason, "
                                   "casual_games, bot, language FROM users WHERE name = ?",
                                   (name,))
        return dict(row) if row else None

    async def make_bot(self, name: str) -> None:
        """The account is a BOT's from now on (there is no way back)."""
        await self._write("UPDATE users SET bot = 1 WHERE name = ?", (name,))

    async def has_ratings(self, name: str) -> bool:
        """Whether the player was ever rated (a ranked game played)."""
        return await self._fetchone("SELECT 1 AS one FROM rating_history WHERE player = ? "
                                    "LIMIT 1", (name,)) is not None

    async def set_casual_games(self, name: str, games: int) -> None:
        await self._write("UPDATE users SET casual_games = ? WHERE name = ?", (games, name))

    async def set_rank_me(self, name: str, on: bool, ban_until: float | None) -> None:
        """Turn "rank me" on or off; off resets the player's ratings and bans until then."""
        statements: list[Statement] = [
            ("UPDATE users SET rank_me = ? WHERE name = ?", (int(on), name))]
        if not on and ban_until is not None:
            statements += [ban(name, ban_until, "turned rank me off"),
                           ("DELETE FROM ratings WHERE player = ?", (name,))]
        await self._write_all(statements)

    # -- ratings ---------------------------------------------------------------------------

    async def standings(self, players: Sequence[str], kind: str,
                        system: str) -> dict[str, Standing]:
        """The players' standings in this game and system (those who have one)."""
        out: dict[str, Standing] = {}
        for player in players:
            row = await self._fetchone("SELECT value, sigma, stats FROM ratings WHERE "
                                       "player = ? AND kind = ? AND system = ?",
                                       (player, kind, system))
            if row:
                out[player] = standing(row["value"], row["sigma"], row["stats"])
        return out

    async def leaderboard(self, kind: str, system: str, min_games: int,
                          limit: int = 100, bots: bool = False) -> list[dict[str, Any]]:
        """The players' leaderboard of a game and system, or (``bots``) the bot ladder's:
        BOT accounts are rated apart from people, and each list has only its own."""
        rows = await self._fetchall("SELECT r.player, r.value, r.sigma, r.stats FROM ratings r "
                                    "JOIN users u ON u.name = r.player WHERE r.kind = ? AND "
                                    "r.system = ? AND u.bot = ? ORDER BY r.value DESC",
                                    (kind, system, int(bots)))
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
        rows = await self._fetchall("SELECT kind, system, value, sigma, stats FROM ratings "
                                    "WHERE player = ? ORDER BY kind, system", (name,))
        history = [dict(r) for r in await self._fetchall(
            "SELECT kind, system, game_id, time, value, sigma, delta FROM rating_history "
            "WHERE player = ? ORDER BY time", (name,))]
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
        return {"name": account["name"], "bot": bool(account["bot"]),
                "rank_me": bool(account["rank_me"]),
                "banned_until": account["banned_until"] or None,
                "casual_games": account["casual_games"], "ratings": ratings,
                "recent_games": await self.recent_games(account["name"]),
                "accuracy": await self.recent_accuracy(account["name"])}


def _record(record: dict[str, Any], texts: bool) -> dict[str, Any]:
    """A stored game record; without ``texts``, less its texts' templates and values
    (``said``: a review's, for another language)."""
    if not texts:
        record.pop("said", None)
    return record

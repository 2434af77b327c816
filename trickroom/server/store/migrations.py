"""Schema versions: which version a database is at, and the migrations that bring it to
this code's, the same way on both engines.

**Why a chain of our own, not a tool.** The well-kept migration tools do not fit both
our engines through our drivers: alembic runs on SQLAlchemy (which nothing else here
uses); yoyo-migrations and pyway reach PostgreSQL through psycopg, a second driver
beside asyncpg, and run synchronously; dbmate is a Go program run beside the server;
asyncpg-migrate knows PostgreSQL alone and is no longer kept; caribou and sqlite-utils'
migrations know SQLite alone. None reads our ``?schema=`` URLs, and migration 1 fills a
table in Python (who played each game, :func:`~.statements.players_of`), which a tool
of SQL files cannot run. What we need is small: a table of applied versions, a list,
and a loop, here.

**Theory of operation.**

* A database records its version in ``schema_version``, one row per migration applied
  (its number, its name, when); its version is the largest. A database with trickroom's
  tables and no such table was made before versions were recorded: version 0. An empty
  one has none (``None``).
* Each engine has its chain (``sqlite_schema.CHAIN``, ``postgres_schema.CHAIN``):
  migrations 1, 2, ... with the same numbers and names on both. A migration is a list of
  named steps, run in one transaction with its row in ``schema_version``: a database is
  at one version or the next, never between, and a failed migration leaves it at the
  version before. Each step is logged.
* Version 1 is the schema a fresh database got when versions began (commit ee0192b).
  Its steps also bring a database of version 0 to it, whatever older code made that
  one: they are the checks that ran at every start before versions (a table or index
  made if missing, a column added where missing, who played each game filled in where
  it was never written), so each looks before it changes. A later migration runs once,
  on a database at the version before it, and needs no such checks.
* A store migrates its database as it opens (a fresh machine's ``make run`` just
  works); ``trickroom migrate`` does it on its own, or only reports (``--check``). A
  database newer than the code is refused (:class:`SchemaTooNew`) and left as it is:
  this code does not know what the newer one wrote.
* A migration should leave the schema usable by the release before it (add; drop only
  what no release still reads), so that a cluster's nodes not yet restarted keep
  running while the first new one migrates.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from trickroom.server.store.values import StoreError

log = logging.getLogger("trickroom.store")

C = TypeVar("C")  # an engine's connection

# The same SQL on both engines (``?`` numbered for PostgreSQL).
VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                 "name TEXT NOT NULL, applied DOUBLE PRECISION NOT NULL)")
RECORD_VERSION = "INSERT INTO schema_version (version, name, applied) VALUES (?, ?, ?)"

FIRST = "the first versioned schema"  # migration 1's name, on both engines

# Migration 2 (issue 32, item D): a registered session ends when idle too long (when it
# was last used) and is listed with the address it was used from; a device that logged
# in with the right password is remembered, so a stranger's guesses do not lock it out.
# The same SQL on both engines (PostgreSQL's REAL read as DOUBLE PRECISION).
SESSIONS = "sessions that expire, and known devices"
SESSION_COLUMNS = (("last_used", "REAL"), ("address", "TEXT"))
DEVICES = """
CREATE TABLE IF NOT EXISTS devices (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS devices_name ON devices (name);
"""

# Migration 3 (issue 32, item E): a registered player's ignore list is kept with the
# account (a guest's ends with its connection, and is never stored). ``{nocase}`` is each
# engine's case-blind collation: an account's name, as ``users.name`` compares it.
IGNORES = "ignore lists kept with the account"
IGNORES_TABLE = """
CREATE TABLE IF NOT EXISTS ignores (
    name TEXT COLLATE {nocase} NOT NULL,
    other TEXT NOT NULL,
    PRIMARY KEY (name, other)
);
"""

# Migration 4 (issue 32, items 15 and 20; issue 35): a table's options are kept with its
# game in play, which a restart or a take-over resumes with them: its spectator chat, who
# opened it, and a private table's invite and seats (JSON, null for a public table). The
# same SQL on both.
TABLE_OPTIONS = "a table's options kept with its game"
SPECTATOR_CHAT = ("games", "spectator_chat", "INTEGER NOT NULL DEFAULT 0")
TABLE_OPTION_COLUMNS = (SPECTATOR_CHAT, ("games", "creator", "TEXT"),
                        ("games", "private", "TEXT"))


# Migration 5 (issue 35, item 2): whom a player follows (a mutual follow is a friend), and
# whether they hide their presence from those who follow them.
FOLLOWS = "follows, and presence a player may hide"
FOLLOWS_TABLE = """
CREATE TABLE IF NOT EXISTS follows (
    name TEXT COLLATE {nocase} NOT NULL,
    other TEXT COLLATE {nocase} NOT NULL,
    PRIMARY KEY (name, other)
);
CREATE INDEX IF NOT EXISTS follows_other ON follows (other);
"""
HIDE_PRESENCE = ("users", "hide_presence", "INTEGER NOT NULL DEFAULT 0")

# Migration 6 (issue 36, item 1): BOT accounts, which play on a ladder of their own.
BOTS = "BOT accounts"
BOT_COLUMN = ("users", "bot", "INTEGER NOT NULL DEFAULT 0")

# Migration 7 (issue 37): the language a registered player chose (``settings``), which
# their connections speak when a login names none (null: none chosen, the browser's).
LANGUAGES = "the language a player chose"
LANGUAGE_COLUMN = ("users", "language", "TEXT")

# Migration 8 (issue 38): each finished game's analysis: the queue every node's workers
# take jobs from (``claimed`` by a node, renewed as it goes), its progress (any node
# reads it) and its result, kept and reused.
ANALYSES = "game analyses"
ANALYSES_TABLE = """
CREATE TABLE IF NOT EXISTS analyses (
    game_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    done INTEGER NOT NULL,
    total INTEGER NOT NULL,
    requested REAL NOT NULL,
    asker TEXT NOT NULL,
    node TEXT,
    claimed REAL,
    finished REAL,
    result TEXT
);
CREATE INDEX IF NOT EXISTS analyses_waiting ON analyses (state, requested);
"""

# Migration 9 (issue 39): a duplicate room's board sets: each set's seed (its deals) and
# tables, a table claimed by the table that plays it (``table_id``, with the players it
# was claimed for, so no one plays a set twice) and its game; each table's points on each
# deal, by the board set's seats. Tables of one set may run on different nodes: they meet
# here. ``rated_by``: the table that rated the complete set (a ranked room), once, and
# ``ratings`` the changes it applied (the other tables show those).
BOARDS = "duplicate board sets"
BOARDS_TABLE = """
CREATE TABLE IF NOT EXISTS board_sets (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    kind TEXT NOT NULL,
    seed BIGINT NOT NULL,
    dealer INTEGER NOT NULL,
    slots INTEGER NOT NULL,
    created REAL NOT NULL,
    rated_by TEXT,
    ratings TEXT
);
CREATE INDEX IF NOT EXISTS board_sets_room ON board_sets (room, created);
CREATE TABLE IF NOT EXISTS board_tables (
    set_id TEXT NOT NULL,
    slot INTEGER NOT NULL,
    table_id TEXT NOT NULL,
    players TEXT NOT NULL,
    claimed REAL NOT NULL,
    game_id TEXT,
    finished REAL,
    PRIMARY KEY (set_id, slot)
);
CREATE INDEX IF NOT EXISTS board_tables_game ON board_tables (game_id);
CREATE TABLE IF NOT EXISTS board_deals (
    set_id TEXT NOT NULL,
    slot INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (set_id, slot, deal)
);
"""


class SchemaTooNew(StoreError):
    """The database is at a schema version this code does not know (a later release
    migrated it): the store does not open, and writes nothing."""


@dataclass(frozen=True, slots=True)
class Step(Generic[C]):
    """One change of a migration. ``run`` makes it in the open transaction and says what
    it did, or None when it found nothing to do (a step of version 1 may find its change
    made already)."""

    name: str
    run: Callable[[C], Awaitable[str | None]]


@dataclass(frozen=True, slots=True)
class Migration(Generic[C]):
    """The steps from the version before to ``version``."""

    version: int
    name: str
    steps: tuple[Step[C], ...]


@dataclass(frozen=True, slots=True)
class Upgrade:
    """Where a database stood and what migrating it did (or, only checked, would do)."""

    where: str
    found: int | None  # its version before (None: an empty database)
    latest: int  # this code's
    pending: tuple[str, ...]  # the migrations run (or to run), as "N (name)"
    checked: bool = False  # only checked: nothing was changed

    def __str__(self) -> str:
        """What ``trickroom migrate`` says, in one line."""
        found = "none (an empty database)" if self.found is None else str(self.found)
        if not self.pending:
            return (f"{self.where}: at schema version {found}, this trickroom's: "
                    f"{'up to date' if self.checked else 'nothing to do'}")
        if self.checked:
            return (f"{self.where}: at schema version {found}, this trickroom's is "
                    f"{self.latest}: {len(self.pending)} migration(s) to run: "
                    f"{'; '.join(self.pending)} (trickroom migrate runs them)")
        return (f"{self.where}: migrated from schema version {found} to {self.latest}: "
                f"{'; '.join(self.pending)}")


def pending(where: str, found: int | None, chain: Sequence[Migration[C]]) -> list[Migration[C]]:
    """The migrations a database at version ``found`` lacks, in order. Raises
    :class:`SchemaTooNew` for a version past the chain's last."""
    latest = chain[-1].version
    if found is not None and found > latest:
        raise SchemaTooNew(
            f"the database {where} is at schema version {found}, newer than this trickroom "
            f"knows (up to {latest}): a later release migrated it; run that release or a "
            f"later one (or restore the backup made before the upgrade)")
    return [m for m in chain if found is None or m.version > found]


async def upgrade(where: str, found: int | None, chain: Sequence[Migration[C]],
                  apply: Callable[[Migration[C]], Awaitable[None]] | None) -> Upgrade:
    """Bring a database at version ``found`` to the chain's last, one migration at a time
    (``apply`` runs one in its transaction, with its row); without ``apply``, only say
    what that would run."""
    todo = pending(where, found, chain)
    report = Upgrade(where, found, chain[-1].version,
                     tuple(f"{m.version} ({m.name})" for m in todo), checked=apply is None)
    if apply is None:
        return report
    at = found
    for migration in todo:
        log.info("schema of %s: migrating from version %s to %d (%s)", where,
                 "none" if at is None else at, migration.version, migration.name)
        try:
            await apply(migration)
        except Exception:
            log.error("schema of %s: migration %d failed; the database stays at version %s",
                      where, migration.version, "none" if at is None else at)
            raise
        at = migration.version
    return report


async def run_steps(conn: C, migration: Migration[C], where: str) -> None:
    """A migration's steps, in order, each logged (inside its transaction)."""
    for number, step in enumerate(migration.steps, 1):
        done = await step.run(conn)
        log.log(logging.DEBUG if done is None else logging.INFO,
                "schema of %s: version %d, step %d of %d, %s: %s", where, migration.version,
                number, len(migration.steps), step.name, done or "nothing to do")

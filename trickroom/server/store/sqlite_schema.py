"""The SQLite store's schema, as its chain of migrations (how a chain runs:
server/store/migrations.py).

Version 1 is the schema a fresh file got when versions began. A file from before
versions (version 0) is brought to it by the same steps, which were the checks run at
every start until then: the tables and indexes it lacks are made, the columns added
after the first release are added where missing, and a file from before ``game_players``
has it filled from its ended games.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

import aiosqlite

from trickroom.server.store.migrations import (
    ANALYSES,
    ANALYSES_TABLE,
    BOARDS,
    BOARDS_TABLE,
    BOT_COLUMN,
    BOTS,
    DEVICES,
    FIRST,
    FOLLOWS,
    FOLLOWS_TABLE,
    HIDE_PRESENCE,
    IGNORES,
    IGNORES_TABLE,
    LANGUAGE_COLUMN,
    LANGUAGES,
    SESSION_COLUMNS,
    SESSIONS,
    TABLE_OPTION_COLUMNS,
    TABLE_OPTIONS,
    Migration,
    Step,
)
from trickroom.server.store.statements import INDEX_PLAYER, players_of

TABLES = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    pw_hash TEXT NOT NULL,
    created REAL NOT NULL,
    rank_me INTEGER NOT NULL DEFAULT 1,
    banned_until REAL NOT NULL DEFAULT 0,
    ban_reason TEXT,
    casual_games INTEGER NOT NULL DEFAULT 0
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
    record TEXT,
    ratings TEXT
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
    sigma REAL,  -- NULL on points written before it was kept
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
-- Each table's newest owner (a cluster node's epoch); one process never writes here.
CREATE TABLE IF NOT EXISTS table_owners (
    table_id TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL
) WITHOUT ROWID;
"""

# Columns added after the first release, before versions: (table, column, declaration),
# in the order they came (a file that lacks them gets them at its tables' ends, where a
# fresh file has them too).
COLUMNS = (
    ("users", "rank_me", "INTEGER NOT NULL DEFAULT 1"),
    ("users", "banned_until", "REAL NOT NULL DEFAULT 0"),
    ("users", "ban_reason", "TEXT"),
    ("users", "casual_games", "INTEGER NOT NULL DEFAULT 0"),
    ("games", "ratings", "TEXT"),
    ("rating_history", "sigma", "REAL DEFAULT NULL"),
)


def statements(script: str) -> list[str]:
    """A script's statements one by one (``executescript`` would commit the migration's
    transaction first)."""
    out: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"an incomplete statement: {pending.strip()[:60]!r}")
    return out


async def fetchall(db: aiosqlite.Connection, sql: str,
                   params: Sequence[Any] = ()) -> list[sqlite3.Row]:
    async with db.execute(sql, params) as cur:
        return list(await cur.fetchall())


async def _objects(db: aiosqlite.Connection) -> set[str]:
    return {row[0] for row in await fetchall(db, "SELECT name FROM sqlite_master")}


async def _tables(db: aiosqlite.Connection) -> str | None:
    """The tables and indexes of version 1 that the file lacks."""
    before = await _objects(db)
    for statement in statements(TABLES):
        await db.execute(statement)
    made = sorted(await _objects(db) - before)
    return f"made {', '.join(made)}" if made else None


def _column(table: str, column: str, declaration: str) -> Step[aiosqlite.Connection]:
    async def add(db: aiosqlite.Connection) -> str | None:
        if column in {row[1] for row in await fetchall(db, f"PRAGMA table_info({table})")}:
            return None
        await db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        return "added"
    return Step(f"{table}.{column}", add)


async def _players(db: aiosqlite.Connection) -> str | None:
    """Who played each ended game, from its seats, in a file from before ``game_players``
    (where it was just made, empty; it is written at every game's end since)."""
    if await fetchall(db, "SELECT 1 FROM game_players LIMIT 1"):
        return None
    rows = await fetchall(db, "SELECT id, seats, finished FROM games "
                              "WHERE finished IS NOT NULL")
    played = [(player, row[0], seat, row[2]) for row in rows
              for player, seat in players_of(json.loads(row[1]))]
    await db.executemany(INDEX_PLAYER, played)
    return f"{len(played)} player(s) of {len(rows)} ended game(s)" if played else None


async def _devices(db: aiosqlite.Connection) -> str | None:
    before = await _objects(db)
    for statement in statements(DEVICES):
        await db.execute(statement)
    return "made devices" if await _objects(db) - before else None


async def _follows(db: aiosqlite.Connection) -> str | None:
    before = await _objects(db)
    for statement in statements(FOLLOWS_TABLE.format(nocase="NOCASE")):
        await db.execute(statement)
    return "made follows" if await _objects(db) - before else None


async def _analyses(db: aiosqlite.Connection) -> str | None:
    before = await _objects(db)
    for statement in statements(ANALYSES_TABLE):
        await db.execute(statement)
    return "made analyses" if await _objects(db) - before else None


async def _boards(db: aiosqlite.Connection) -> str | None:
    before = await _objects(db)
    for statement in statements(BOARDS_TABLE):
        await db.execute(statement)
    return "made board sets" if await _objects(db) - before else None


async def _ignores(db: aiosqlite.Connection) -> str | None:
    before = await _objects(db)
    await db.execute(IGNORES_TABLE.format(nocase="NOCASE"))
    return "made ignores" if await _objects(db) - before else None


CHAIN: tuple[Migration[aiosqlite.Connection], ...] = (
    Migration(1, FIRST, (
        Step("tables and indexes", _tables),
        *(_column(*added) for added in COLUMNS),
        Step("game_players of the ended games", _players),
    )),
    Migration(2, SESSIONS, (
        *(_column("sessions", *added) for added in SESSION_COLUMNS),
        Step("devices", _devices),
    )),
    Migration(3, IGNORES, (Step("ignores", _ignores),)),
    Migration(4, TABLE_OPTIONS, tuple(_column(*added) for added in TABLE_OPTION_COLUMNS)),
    Migration(5, FOLLOWS, (Step("follows", _follows), _column(*HIDE_PRESENCE))),
    Migration(6, BOTS, (_column(*BOT_COLUMN),)),
    Migration(7, LANGUAGES, (_column(*LANGUAGE_COLUMN),)),
    Migration(8, ANALYSES, (Step("analyses", _analyses),)),
    Migration(9, BOARDS, (Step("board sets", _boards),)),
)


async def version(db: aiosqlite.Connection) -> int | None:
    """The file's schema version: 0 for trickroom's tables without one recorded, None for
    a file without them (a new one)."""
    tables = {row[0] for row in await fetchall(db, "SELECT name FROM sqlite_master "
                                                   "WHERE type = 'table'")}
    if "schema_version" in tables:
        [(found,)] = await fetchall(db, "SELECT MAX(version) FROM schema_version")
        return int(found or 0)
    return 0 if tables & {"users", "games"} else None

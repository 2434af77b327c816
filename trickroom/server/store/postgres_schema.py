"""The PostgreSQL store's schema, as its chain of migrations (how a chain runs:
server/store/migrations.py). Everything lives in the URL's ``?schema=``, or in the
connection's search path without one.

Version 1 is the schema a fresh database got when versions began. A database from
before versions (version 0) is brought to it by the same steps, which were what every
start ran until then: the collation, tables and indexes it lacks are made (a database
of commit f4b8ed6 has no ``cluster`` table), and ``rating_history.sigma`` is added where
missing.
"""

from __future__ import annotations

import asyncpg

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

# Names compare without case as SQLite's COLLATE NOCASE does (ICU at strength 2).
NOCASE = ("CREATE COLLATION IF NOT EXISTS tr_nocase "
          "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)")

TABLES = """
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
CREATE TABLE IF NOT EXISTS cluster (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    prefix TEXT NOT NULL,
    redis_db INTEGER NOT NULL,
    since DOUBLE PRECISION NOT NULL
);
"""

# What the search path's first schema holds: relations (tables, indexes) and collations.
_HERE = "(SELECT oid FROM pg_namespace WHERE nspname = current_schema())"
_RELATIONS = f"SELECT relname AS name FROM pg_class WHERE relnamespace = {_HERE}"
_COLLATIONS = f"SELECT collname AS name FROM pg_collation WHERE collnamespace = {_HERE}"


async def _made(conn: asyncpg.Connection, sql: str, listed: str) -> str | None:
    """Run ``sql`` (of IF NOT EXISTS statements); what it made, if anything."""
    before = {row["name"] for row in await conn.fetch(listed)}
    await conn.execute(sql)
    made = sorted({row["name"] for row in await conn.fetch(listed)} - before)
    return f"made {', '.join(made)}" if made else None


async def _collation(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, NOCASE, _COLLATIONS)


async def _tables(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, TABLES, _RELATIONS)


async def _sigma(conn: asyncpg.Connection) -> str | None:
    """The rating history's sigma, kept since after the first release (NULL before)."""
    if await conn.fetchval("SELECT 1 FROM information_schema.columns WHERE table_schema = "
                           "current_schema() AND table_name = 'rating_history' AND "
                           "column_name = 'sigma'"):
        return None
    await conn.execute("ALTER TABLE rating_history ADD COLUMN sigma DOUBLE PRECISION "
                       "DEFAULT NULL")
    return "added"


async def _session_columns(conn: asyncpg.Connection) -> str:
    for column, kind in SESSION_COLUMNS:
        kind = kind.replace("REAL", "DOUBLE PRECISION")
        await conn.execute(f"ALTER TABLE sessions ADD COLUMN IF NOT EXISTS {column} {kind}")
    return "added"


async def _devices(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, DEVICES.replace("REAL", "DOUBLE PRECISION"), _RELATIONS)


async def _follows(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, FOLLOWS_TABLE.format(nocase="tr_nocase"), _RELATIONS)


async def _analyses(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, ANALYSES_TABLE.replace("REAL", "DOUBLE PRECISION"), _RELATIONS)


async def _boards(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, BOARDS_TABLE.replace("REAL", "DOUBLE PRECISION"), _RELATIONS)


async def _ignores(conn: asyncpg.Connection) -> str | None:
    return await _made(conn, IGNORES_TABLE.format(nocase="tr_nocase"), _RELATIONS)


def _option_column(table: str, column: str, declaration: str) -> Step[asyncpg.Connection]:
    async def add(conn: asyncpg.Connection) -> str:
        await conn.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} "
                           f"{declaration}")
        return "added"
    return Step(f"{table}.{column}", add)


CHAIN: tuple[Migration[asyncpg.Connection], ...] = (
    Migration(1, FIRST, (
        Step("the collation tr_nocase", _collation),
        Step("tables and indexes", _tables),
        Step("rating_history.sigma", _sigma),
    )),
    Migration(2, SESSIONS, (
        Step("sessions.last_used, sessions.address", _session_columns),
        Step("devices", _devices),
    )),
    Migration(3, IGNORES, (Step("ignores", _ignores),)),
    Migration(4, TABLE_OPTIONS, tuple(_option_column(*added)
                                      for added in TABLE_OPTION_COLUMNS)),
    Migration(5, FOLLOWS, (Step("follows", _follows), _option_column(*HIDE_PRESENCE))),
    Migration(6, BOTS, (_option_column(*BOT_COLUMN),)),
    Migration(7, LANGUAGES, (_option_column(*LANGUAGE_COLUMN),)),
    Migration(8, ANALYSES, (Step("analyses", _analyses),)),
    Migration(9, BOARDS, (Step("board sets", _boards),)),
)


async def version(conn: asyncpg.Connection) -> int | None:
    """The schema's version: 0 for trickroom's tables without one recorded, None for a
    schema without them (a new one)."""
    if await conn.fetchval("SELECT to_regclass('schema_version')") is not None:
        return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))
    ours = await conn.fetchval("SELECT to_regclass('users') IS NOT NULL "
                               "OR to_regclass('games') IS NOT NULL")
    return 0 if ours else None

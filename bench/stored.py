"""What a finished game costs the database: with every move kept, and after retention.

Read on a database a bench's server has played games on and has stopped using
(``bench/soak.py`` calls :func:`game_bytes`), on the two tables a game writes, ``games``
and ``actions``, with their indexes (and on PostgreSQL their TOAST), once each is packed
(SQLite's ``VACUUM``, PostgreSQL's ``VACUUM FULL``), so that both figures count what the
rows take and not what earlier writes left free: on SQLite the pages ``dbstat`` gives
them, on PostgreSQL ``pg_total_relation_size``. Less what the same tables take empty
(their roots, an index's first page: 16 KiB on SQLite, about 50 KiB on PostgreSQL,
measured last, once every row is deleted), divided by the finished games: so that a
short run's figures are not those few pages shared out.

*Before* is the database as every version before retention kept it: each finished
game's record whole, as JSON (exactly what the server wrote then, ``json.dumps`` of the
same record), and every move a row. *After* is what one pass of the server's own
retention (``keep_moves_seconds = 0``, :mod:`trickroom.server.retention`) leaves: each
game's packed record, and no move of a finished game. That pass packs the records kept
whole as it goes, so it is the path an upgraded server takes on an older database; and
every game's answer to ``GET /api/games/<id>`` (the store's part of it) is checked to be
the same before and after.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

import asyncpg

from trickroom.server.retention import Retention
from trickroom.server.store import is_postgres, open_store
from trickroom.server.store.archive import unpack
from trickroom.server.store.postgres import split_url

TABLES = ("games", "actions")
ENDED = "SELECT id, record FROM games WHERE finished IS NOT NULL"
MOVES = ("SELECT COUNT(*) FROM actions WHERE game_id IN "
         "(SELECT id FROM games WHERE finished IS NOT NULL)")


async def game_bytes(target: str) -> dict[str, Any]:
    """Bytes per finished game before and after retention, on the store at ``target``."""
    engine = _Postgres(target) if is_postgres(target) else _Sqlite(target)
    games, moves = await engine.kept_whole()
    before = await engine.table_bytes()
    store = open_store(target)
    await store.open()
    try:
        ids = [g for g, _ in await engine.ended()]
        answers = [json.dumps(await store.game(g)) for g in ids]
        dropped = await Retention(store, 0, pause=0).sweep()
        if [json.dumps(await store.game(g)) for g in ids] != answers:
            raise AssertionError("a game's answer changed when its moves were dropped")
    finally:
        await store.close()
    after = await engine.table_bytes()
    if dropped != moves:
        raise AssertionError(f"retention dropped {dropped} moves of {moves}")
    await engine.empty()
    empty = await engine.table_bytes()
    before, after = before - empty, after - empty
    return {"games": games, "moves": moves, "empty_tables_bytes": empty,
            "bytes_per_game_before": round(before / max(games, 1)),
            "bytes_per_game_after": round(after / max(games, 1)),
            "bytes_per_move_before": round(before / max(moves, 1), 1),
            "ratio": round(after / before, 3) if before > 0 else float("nan")}


class _Sqlite:
    def __init__(self, path: str) -> None:
        self.path = path

    async def ended(self) -> list[tuple[str, str]]:
        with closing(sqlite3.connect(self.path)) as conn:
            return list(conn.execute(ENDED).fetchall())

    async def kept_whole(self) -> tuple[int, int]:
        """Each finished game's record whole, as before retention; (games, their moves)."""
        ended = await self.ended()
        with closing(sqlite3.connect(self.path)) as conn:
            conn.executemany("UPDATE games SET record = ? WHERE id = ?",
                             [(json.dumps(unpack(r)), g) for g, r in ended])
            conn.commit()
            return len(ended), int(conn.execute(MOVES).fetchone()[0])

    async def empty(self) -> None:
        with closing(sqlite3.connect(self.path)) as conn:
            for table in TABLES:
                conn.execute(f"DELETE FROM {table}")
            conn.commit()

    async def table_bytes(self) -> int:
        with closing(sqlite3.connect(self.path)) as conn:
            conn.execute("VACUUM")
            marks = ", ".join("?" * len(TABLES))
            return int(conn.execute(f"SELECT SUM(pgsize) FROM dbstat WHERE name IN (SELECT "
                                    f"name FROM sqlite_schema WHERE tbl_name IN ({marks}))",
                                    TABLES).fetchone()[0])


class _Postgres:
    def __init__(self, url: str) -> None:
        self.url, self.schema = split_url(url)

    async def _connect(self) -> asyncpg.Connection:
        settings = {"search_path": self.schema} if self.schema else {}
        return await asyncpg.connect(self.url, server_settings=settings)

    async def ended(self) -> list[tuple[str, str]]:
        conn = await self._connect()
        try:
            return [(row["id"], row["record"]) for row in await conn.fetch(ENDED)]
        finally:
            await conn.close()

    async def kept_whole(self) -> tuple[int, int]:
        """Each finished game's record whole, as before retention; (games, their moves)."""
        ended = await self.ended()
        conn = await self._connect()
        try:
            await conn.executemany("UPDATE games SET record = $1 WHERE id = $2",
                                   [(json.dumps(unpack(r)), g) for g, r in ended])
            return len(ended), int(await conn.fetchval(MOVES))
        finally:
            await conn.close()

    async def empty(self) -> None:
        conn = await self._connect()
        try:
            for table in TABLES:
                await conn.execute(f"DELETE FROM {table}")
        finally:
            await conn.close()

    async def table_bytes(self) -> int:
        conn = await self._connect()
        try:
            total = 0
            for table in TABLES:
                await conn.execute(f"VACUUM FULL {table}")
                total += int(await conn.fetchval("SELECT pg_total_relation_size($1::regclass)",
                                                 table))
            return total
        finally:
            await conn.close()

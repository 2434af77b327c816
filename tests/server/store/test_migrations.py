"""Schema versions (server/store/migrations.py), on both engines: a database knows its
version; opening a store brings an older one up one migration at a time, each in one
transaction with its record, and refuses one newer than the code, leaving it as it is."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.server.store import Store, open_store, postgres_schema, sqlite_schema
from trickroom.server.store.migrations import Migration, SchemaTooNew, Step

LATEST = sqlite_schema.CHAIN[-1].version


@pytest.fixture(params=["sqlite", "postgresql"])
async def target(request, tmp_path: Path) -> AsyncIterator[str]:
    """Where a store lives: an SQLite file, or a PostgreSQL schema of its own."""
    if request.param == "sqlite":
        yield str(tmp_path / "db.sqlite3")
        return
    need("postgresql")
    schema = fresh_name("t_migrate")
    yield f"{POSTGRES}?schema={schema}"
    await drop_schema(schema)


async def sql(target: str, statement: str) -> list[tuple[Any, ...]]:
    """Run one statement on the database beside any store (a host's psql or sqlite3)."""
    if "?schema=" not in target:
        conn = sqlite3.connect(target)
        try:
            rows = conn.execute(statement).fetchall()
            conn.commit()
            return rows
        finally:
            conn.close()
    url, schema = target.split("?schema=")
    pg = await asyncpg.connect(url, server_settings={"search_path": schema})
    try:
        return [tuple(row) for row in await pg.fetch(statement)]
    finally:
        await pg.close()


async def versions(target: str) -> list[tuple[int, str]]:
    return [tuple(row) for row in await sql(target, "SELECT version, name FROM "
                                                    "schema_version ORDER BY version")]


async def made(target: str) -> Store:
    """A database made by this code, closed again."""
    store = open_store(target)
    await store.open()
    await store.create_user("ann", "x")
    await store.close()
    return store


def chain_of(target: str) -> Any:
    return postgres_schema if "?schema=" in target else sqlite_schema


def step(statement: str) -> Step[Any]:
    """A step running one statement the same on both engines."""
    async def run(conn: Any) -> str:
        await conn.execute(statement)
        return "done"
    return Step(statement, run)


def failing(name: str) -> Step[Any]:
    async def run(conn: Any) -> str:
        raise RuntimeError(f"{name} failed")
    return Step(name, run)


def test_both_engines_know_the_same_versions_by_the_same_names():
    sqlite = [(m.version, m.name) for m in sqlite_schema.CHAIN]
    assert sqlite == [(m.version, m.name) for m in postgres_schema.CHAIN]
    assert [version for version, _ in sqlite] == list(range(1, LATEST + 1))


async def test_a_new_database_is_made_at_this_code_s_version(target):
    store = await made(target)
    assert [v for v, _ in await versions(target)] == list(range(1, LATEST + 1))
    checked = await store.migrate(check=True)
    assert (checked.found, checked.latest, checked.pending) == (LATEST, LATEST, ())


async def test_migrating_an_up_to_date_database_changes_nothing(target):
    store = await made(target)
    recorded = await sql(target, "SELECT * FROM schema_version")
    again = await store.migrate()
    assert (again.found, again.pending) == (LATEST, ())
    assert str(again).endswith(f"at schema version {LATEST}, this trickroom's: nothing to do")
    assert await sql(target, "SELECT * FROM schema_version") == recorded


async def test_a_database_newer_than_the_code_is_refused_and_left_as_it_is(target):
    store = await made(target)
    await sql(target, f"INSERT INTO schema_version (version, name, applied) VALUES "
                      f"({LATEST + 1}, 'from a later release', 0)")
    for attempt in (store.open(), store.migrate(), store.migrate(check=True)):
        with pytest.raises(SchemaTooNew, match=f"is at schema version {LATEST + 1}, newer "
                                               f"than this trickroom knows \\(up to {LATEST}\\)"):
            await attempt
    assert [v for v, _ in await versions(target)] == [*range(1, LATEST + 1), LATEST + 1]
    assert await sql(target, "SELECT name FROM users") == [("ann",)]


async def test_later_migrations_run_in_order_once_each_and_log_each_step(
        target, monkeypatch, caplog):
    store = await made(target)
    engine = chain_of(target)
    monkeypatch.setattr(engine, "CHAIN", (*engine.CHAIN,
        Migration(LATEST + 1, "notes", (step("CREATE TABLE notes (id INTEGER PRIMARY KEY)"),)),
        Migration(LATEST + 2, "note bodies", (step("ALTER TABLE notes ADD COLUMN body TEXT"),
                                              step("INSERT INTO notes VALUES (1, 'hi')")))))
    checked = await store.migrate(check=True)
    assert checked.pending == (f"{LATEST + 1} (notes)", f"{LATEST + 2} (note bodies)")
    assert await sql(target, "SELECT count(*) FROM schema_version") == [(LATEST,)]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="trickroom.store"):
        done = await store.migrate()
    assert (done.found, done.latest) == (LATEST, LATEST + 2)
    assert f"migrated from schema version {LATEST} to {LATEST + 2}" in str(done)
    said = [r.getMessage().partition(": ")[2] for r in caplog.records
            if r.name == "trickroom.store"]
    assert said == [
        f"migrating from version {LATEST} to {LATEST + 1} (notes)",
        f"version {LATEST + 1}, step 1 of 1, CREATE TABLE notes (id INTEGER PRIMARY KEY): done",
        f"migrating from version {LATEST + 1} to {LATEST + 2} (note bodies)",
        f"version {LATEST + 2}, step 1 of 2, ALTER TABLE notes ADD COLUMN body TEXT: done",
        f"version {LATEST + 2}, step 2 of 2, INSERT INTO notes VALUES (1, 'hi'): done"]
    assert [v for v, _ in await versions(target)][-2:] == [LATEST + 1, LATEST + 2]
    assert await sql(target, "SELECT id, body FROM notes") == [(1, "hi")]
    assert (await store.migrate()).pending == ()  # each runs once


async def test_a_failed_migration_leaves_the_database_at_the_version_before(
        target, monkeypatch):
    store = await made(target)
    engine = chain_of(target)
    monkeypatch.setattr(engine, "CHAIN", (*engine.CHAIN,
        Migration(LATEST + 1, "notes", (step("CREATE TABLE notes (id INTEGER PRIMARY KEY)"),)),
        Migration(LATEST + 2, "half done", (step("CREATE TABLE drafts (id INTEGER)"),
                                            failing("the second step")))))
    with pytest.raises(RuntimeError, match="the second step failed"):
        await store.open()
    assert [v for v, _ in await versions(target)][-1] == LATEST + 1
    assert await sql(target, "SELECT count(*) FROM notes") == [(0,)]
    with pytest.raises((sqlite3.OperationalError, asyncpg.UndefinedTableError)):
        await sql(target, "SELECT count(*) FROM drafts")  # its first step was undone too


async def test_a_file_from_before_ranked_play_gets_its_columns_with_their_defaults(tmp_path):
    """A file of the first release: no schema version, and none of the columns added
    since (ranked play's on users, a game's ratings)."""
    path = str(tmp_path / "first.sqlite3")
    await made(path)
    for statement in ("DROP TABLE schema_version", "ALTER TABLE users DROP COLUMN rank_me",
                      "ALTER TABLE users DROP COLUMN banned_until",
                      "ALTER TABLE users DROP COLUMN ban_reason",
                      "ALTER TABLE users DROP COLUMN casual_games",
                      "ALTER TABLE games DROP COLUMN ratings"):
        await sql(path, statement)
    store = open_store(path)
    assert (await store.migrate(check=True)).found == 0
    await store.open()
    try:
        assert await store.account("ann") == {"name": "ann", "rank_me": 1, "banned_until": 0,
                                              "ban_reason": None, "casual_games": 0, "bot": 0,
                                              "language": None}
    finally:
        await store.close()
    assert [v for v, _ in await versions(path)] == list(range(1, LATEST + 1))

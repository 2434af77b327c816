"""The databases earlier releases left behind (``fixtures/``, made by make_fixtures.py on
each release's own code), restored where a test wants them, and a database's schema as
a value two databases can be compared by."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from tests.services import POSTGRES

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Each release whose schema a database may still be at: f4b8ed6 (its PostgreSQL has no
# cluster table) and ee0192b (the schema that became version 1).
RELEASES = ("f4b8ed6", "ee0192b")


def said(commit: str, engine: str) -> dict[str, Any]:
    """What that release's server said while it wrote the fixture (games, scores, ratings
    shown, moves acknowledged)."""
    return dict(json.loads((FIXTURES / f"{commit}.json").read_text())[engine])


def restore_sqlite(commit: str, into: Path) -> Path:
    """A copy of the release's SQLite file."""
    path = into / f"{commit}.sqlite3"
    shutil.copyfile(FIXTURES / f"{commit}.sqlite", path)
    return path


def restore_postgres(commit: str, schema: str) -> str:
    """The release's ``pg_dump`` restored with ``psql``, as a host restores one, into
    ``schema``; the store's URL for it."""
    psql = shutil.which("psql")
    if psql is None:
        reason = "psql is not installed (apt-get install postgresql-client)"
        if os.environ.get("TRICKROOM_REQUIRE_SERVICES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    dump = (FIXTURES / f"{commit}.sql").read_text().replace(f"fixture_{commit}", schema)
    subprocess.run([psql, "--quiet", "--no-psqlrc", "--set", "ON_ERROR_STOP=1",
                    "--dbname", POSTGRES], input=dump, text=True, check=True,
                   capture_output=True)
    return f"{POSTGRES}?schema={schema}"


def sqlite_schema_of(path: str | Path) -> dict[str, Any]:
    """Each table's columns (name, type, not null, default, key), whether it has a rowid,
    and its indexes with their columns."""
    conn = sqlite3.connect(path)
    try:
        out: dict[str, Any] = {}
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = "
                                      "'table' AND name NOT LIKE 'sqlite_%'"):
            indexes = {row[1]: (row[2], row[4], [c[2] for c in conn.execute(
                f"PRAGMA index_info({row[1]})")])
                for row in conn.execute(f"PRAGMA index_list({name})")}
            out[name] = {"columns": [row[1:] for row in conn.execute(
                f"PRAGMA table_info({name})")], "rowid": "WITHOUT ROWID" not in sql,
                "indexes": indexes}
        return out
    finally:
        conn.close()


async def postgres_schema_of(schema: str) -> dict[str, Any]:
    """Each table's columns (name, type, nullable, default, collation), its constraints,
    and the schema's indexes, as PostgreSQL describes them (the schema's name left out)."""
    conn = await asyncpg.connect(POSTGRES)
    try:
        columns = await conn.fetch(
            "SELECT table_name, column_name, data_type, is_nullable, column_default, "
            "collation_name FROM information_schema.columns WHERE table_schema = $1 "
            "ORDER BY table_name, ordinal_position", schema)
        constraints = await conn.fetch(
            "SELECT conrelid::regclass::text AS rel, pg_get_constraintdef(oid) AS def FROM "
            "pg_constraint WHERE connamespace = $1::text::regnamespace ORDER BY 1, 2", schema)
        indexes = await conn.fetch("SELECT indexname, indexdef FROM pg_indexes "
                                   "WHERE schemaname = $1 ORDER BY indexname", schema)
    finally:
        await conn.close()
    tables: dict[str, Any] = {}
    for row in columns:
        tables.setdefault(row["table_name"], []).append(tuple(row)[1:])
    return {"tables": tables,
            "constraints": sorted((r["rel"].split(".")[-1], r["def"]) for r in constraints),
            "indexes": {r["indexname"]: r["indexdef"].replace(f"{schema}.", "")
                        for r in indexes}}

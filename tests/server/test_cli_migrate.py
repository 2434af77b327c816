"""``trickroom migrate`` as a host meets it: it says which schema version a database is at
and what it would run (``--check``, which changes nothing), migrates saying from which
version to which, and refuses, in one line, a database newer than this trickroom; so
does ``trickroom serve``."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.store.releases import restore_postgres, restore_sqlite
from tests.server.test_cli_start import ROOT, said, trickroom
from tests.services import drop_schema, fresh_name, need
from trickroom.server.store import open_store
from trickroom.server.store.sqlite_schema import CHAIN

LATEST = CHAIN[-1].version


def migrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trickroom.server.cli", "migrate", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.fixture(params=["sqlite", "postgresql"])
def old_database(request, tmp_path: Path) -> Iterator[list[str]]:
    """A database the release before versions left (f4b8ed6's), as migrate's arguments."""
    if request.param == "sqlite":
        yield ["--db", str(restore_sqlite("f4b8ed6", tmp_path))]
        return
    need("postgresql")
    schema = fresh_name("t_cli_migrate")
    try:
        yield ["--store", restore_postgres("f4b8ed6", schema)]
    finally:
        asyncio.run(drop_schema(schema))


def fingerprint(args: list[str]) -> str:
    """The SQLite file's bytes (a check must not write); a schema's version otherwise."""
    if args[0] == "--db":
        return hashlib.sha256(Path(args[1]).read_bytes()).hexdigest()
    return str(asyncio.run(open_store(args[1]).migrate(check=True)).found)


def test_check_says_the_version_and_what_would_run_and_changes_nothing(old_database):
    before = fingerprint(old_database)
    checked = migrate(*old_database, "--check")
    assert checked.returncode == 1, checked.stderr
    assert f"at schema version 0, this trickroom's is {LATEST}: {LATEST} migration(s) to " \
           f"run: 1 (the first versioned schema)" in checked.stdout
    assert fingerprint(old_database) == before


def test_migrate_says_from_which_version_to_which_and_then_that_nothing_is_left(old_database):
    done = migrate(*old_database)
    assert done.returncode == 0, done.stderr
    assert f"migrated from schema version 0 to {LATEST}" in done.stdout
    assert "migrating from version 0 to 1" in done.stderr  # the log says each step
    again = migrate(*old_database)
    assert again.returncode == 0 and "this trickroom's: nothing to do" in again.stdout
    checked = migrate(*old_database, "--check")
    assert checked.returncode == 0 and "this trickroom's: up to date" in checked.stdout


async def newer_than_this(path: Path) -> None:
    store = open_store(path)
    await store.open()
    await store.close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_version VALUES (?, 'from a later release', 0)",
                 (LATEST + 1,))
    conn.commit()
    conn.close()


def test_a_database_newer_than_this_trickroom_is_refused_in_one_line(tmp_path: Path):
    path = tmp_path / "newer.sqlite3"
    asyncio.run(newer_than_this(path))
    newer = f"is at schema version {LATEST + 1}, newer than this trickroom knows (up to " \
            f"{LATEST})"
    assert newer in said(trickroom("--db", str(path)))  # the server does not start
    for args in ([], ["--check"]):
        assert newer in said(migrate("--db", str(path), *args))


def test_a_missing_file_is_named_not_made(tmp_path: Path):
    path = tmp_path / "typo.sqlite3"
    line = said(migrate("--db", str(path)))
    assert f"no database at {path}" in line
    assert not path.exists()


def test_the_hosting_doc_shows_what_migrate_says(tmp_path: Path):
    """docs/hosting.md's example lines are this command's, for a database from before
    versions: checked, migrated, and migrated again."""
    doc = (ROOT / "docs" / "hosting.md").read_text()
    section = doc[doc.index("## Upgrading: migrations"):]
    shown = [line for line in section.splitlines()
             if line.startswith("/srv/trickroom/trickroom.sqlite3: ")][:3]
    path = restore_sqlite("f4b8ed6", tmp_path)
    ran = [migrate("--db", str(path), *args).stdout.strip() for args in (["--check"], [], [])]
    assert ran == [line.replace("/srv/trickroom/trickroom.sqlite3", str(path))
                   for line in shown]

"""``trickroom serve`` as a host meets it: what stops a start (a database role or database
that does not exist, a Redis that does not answer) is one line on standard error saying
what is missing and how to make it, never a traceback; and no password of the store's or
the cluster's URL is ever printed or logged, whether the server starts or not."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.server.conftest import FAST
from tests.server.hub.conftest import drop_keys
from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.config import load_config

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret"
# The test PostgreSQL's host and database (trust auth: any password will do).
_PG = urlsplit(POSTGRES)
PG_USER, PG_HOST, PG_DB = _PG.username, _PG.netloc.rpartition("@")[2], _PG.path[1:]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def trickroom(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``trickroom serve`` with ``args`` to its end (a start that fails)."""
    return subprocess.run([sys.executable, "-m", "trickroom.server.cli", "--log-level", "debug",
                           "serve", "--port", "0", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def said(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed start says (the rest of standard error is JSON log lines)."""
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("{")]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("trickroom: "), lines
    return lines[0]


@pytest.fixture
def schema():
    """A PostgreSQL schema of the test's own, dropped after."""
    need("postgresql")
    name = fresh_name("t_cli")
    yield name
    asyncio.run(drop_schema(name))


@pytest.fixture
def redis_with_password():
    """A redis-server of the test's own, on a free port, that asks for ``SECRET``."""
    need("redis")
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--requirepass", SECRET],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        yield f"redis://:{SECRET}@127.0.0.1:{port}/0"
    finally:
        proc.kill()
        proc.wait()


# -- one clear line, not a traceback --------------------------------------------------------


def test_a_missing_role_is_named_with_how_to_create_it():
    need("postgresql")
    role = fresh_name("nosuchrole")
    line = said(trickroom("--store", f"postgresql://{role}:{SECRET}@{PG_HOST}/{PG_DB}"))
    assert f"no role '{role}'" in line
    assert f"CREATE ROLE {role} LOGIN PASSWORD" in line and "createuser" in line
    assert f"CREATE DATABASE {PG_DB} OWNER" in line
    assert SECRET not in line


def test_a_missing_database_is_named_with_how_to_create_it():
    need("postgresql")
    database = fresh_name("nosuchdb")
    line = said(trickroom("--store", f"postgresql://{PG_USER}@{PG_HOST}/{database}"))
    assert f"no database '{database}'" in line
    assert f"CREATE DATABASE {database} OWNER {PG_USER}" in line and "createdb" in line


def test_a_redis_that_does_not_answer_is_one_line(schema):
    need("redis")
    port = free_port()  # nothing listens there
    line = said(trickroom("--store", f"postgresql://{PG_USER}@{PG_HOST}/{PG_DB}?schema={schema}",
                          "--cluster", f"redis://:{SECRET}@127.0.0.1:{port}/0"))
    assert f"the cluster's Redis at redis://:***@127.0.0.1:{port}/0 does not answer" in line
    assert SECRET not in line


def test_a_redis_that_refuses_the_password_is_one_line(schema):
    need("redis")
    prefix = fresh_name("trcli")
    try:
        # The machine's Redis asks for no password: the node's own connections refuse one.
        line = said(trickroom(
            "--store", f"postgresql://{PG_USER}@{PG_HOST}/{PG_DB}?schema={schema}",
            "--cluster", f"redis://:{SECRET}@127.0.0.1:6379/0", "--cluster-prefix", prefix))
        assert "the cluster's Redis at redis://:***@127.0.0.1:6379/0 refused this node" in line
        assert SECRET not in line
    finally:
        asyncio.run(drop_keys(prefix))


def test_an_sqlite_file_that_cannot_be_opened_is_one_line(tmp_path):
    """A TRICKROOM_DB (or --db) that names a directory, say: said, not a traceback."""
    taken = tmp_path / "trickroom.sqlite3"
    taken.mkdir()
    line = said(trickroom("--db", str(taken)))
    assert line == (f"trickroom: cannot open the SQLite file {taken}: unable to open "
                    "database file")


# -- no secret in any output --------------------------------------------------------------------


def test_a_node_started_with_passwords_shows_neither_on_any_line(schema, redis_with_password):
    store = f"postgresql://{PG_USER}:{SECRET}@{PG_HOST}/{PG_DB}?schema={schema}"
    proc = subprocess.Popen([sys.executable, "-m", "trickroom.server.cli", "--log-level", "debug",
                             "serve", "--port", "0", "--store", store,
                             "--cluster", redis_with_password],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        assert line.startswith("trickroom serving http://"), line
        assert f"database postgresql://{PG_USER}:***@{PG_HOST}/{PG_DB}" in line
        assert "via redis://:***@127.0.0.1:" in line
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "joined the cluster at redis://:***@" in err  # the logs did run, at debug level
    assert SECRET not in line + out + err


def test_a_node_s_own_log_records_hold_no_password(schema, redis_with_password, caplog):
    """Below the command's log formatter (which masks any URL it meets): what the app
    itself logs, at every level."""
    async def start_and_stop() -> str:
        app = App(load_config(**FAST),
                  f"postgresql://{PG_USER}:{SECRET}@{PG_HOST}/{PG_DB}?schema={schema}",
                  cluster=redis_with_password, cluster_prefix=fresh_name("trcli"))
        await app.start("127.0.0.1", 0)
        try:
            return app.hub.description()
        finally:
            await app.stop()

    with caplog.at_level(logging.DEBUG):
        description = asyncio.run(start_and_stop())
    assert "redis://:***@" in description and SECRET not in description
    assert any("joined the cluster" in r.getMessage() for r in caplog.records)
    for record in caplog.records:
        assert SECRET not in record.getMessage()
        assert SECRET not in (record.exc_text or "")


# -- secrets from the environment and files, never the command line -----------------------------


def test_a_node_takes_its_passwords_from_files_with_none_on_its_command_line(
        schema, redis_with_password, tmp_path):
    """The store's password from a ``_FILE`` (a container's secret), the cluster's from
    the secrets directory (a systemd credential): the node joins a Redis that asks for
    it, with neither password in its argv nor in any line it writes."""
    (tmp_path / "store_password").write_text(SECRET + "\n")
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "trickroom_cluster_password").write_text(SECRET)
    redis_url = redis_with_password.replace(f":{SECRET}@", "")
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "TRICKROOM_STORE": f"postgresql://{PG_USER}@{PG_HOST}/{PG_DB}?schema={schema}",
           "TRICKROOM_STORE_PASSWORD_FILE": str(tmp_path / "store_password"),
           "TRICKROOM_CLUSTER": redis_url, "TRICKROOM_SECRETS_DIR": str(credentials),
           "TRICKROOM_PORT": "0", "TRICKROOM_LOG_LEVEL": "debug"}
    argv = [sys.executable, "-m", "trickroom.server.cli", "serve"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("trickroom serving http://"), line + proc.stderr.read()
        assert f"database postgresql://{PG_USER}:***@{PG_HOST}/{PG_DB}" in line
        assert "via redis://:***@127.0.0.1:" in line  # it joined: Redis took the password
        assert SECRET not in Path(f"/proc/{proc.pid}/cmdline").read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "joined the cluster at redis://:***@" in err
    assert SECRET not in line + out + err

"""docs/hosting.md as a host reads it: its table of variables is every setting with its
option and default, and its backup and restore commands, run as written against a
throwaway database, bring a finished game back the same."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import subprocess
from dataclasses import fields
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.server.conftest import FAST, http_get, play_until_over, url, wait_for
from tests.server.test_seats import solo_table
from tests.services import POSTGRES, fresh_name, need
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import ServerSettings, load_config
from trickroom.server.effective import FLAGS, NAMES, ServeOptions
from trickroom.server.environment import variable

DOC = Path(__file__).resolve().parents[2] / "docs" / "hosting.md"
ROW = re.compile(r"^\| `(TRICKROOM_\w+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$", re.M)


def section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def shown_default(value: object) -> str:
    return "none" if value in (None, ()) else f"`{value}`"


def test_the_variables_table_is_every_setting_with_its_option_and_default():
    rows = {name: (option, default, what) for name, option, default, what
            in ROW.findall(section("Configuration by environment"))}
    assert list(rows) == [variable(name) for name in NAMES]  # in the code's order
    defaults = {f.name: f.default for f in (*fields(ServeOptions), *fields(ServerSettings))}
    for name in NAMES:
        option, default, what = rows[variable(name)]
        assert option == (f"`{FLAGS[name]}`" if name in FLAGS else "none"), name
        assert default == shown_default(defaults[name]), name
        assert what.strip(), name


def test_each_deploy_way_and_task_has_its_own_section():
    text = DOC.read_text()
    for title in ("## Configuration by environment", "## Deploy",
                  "### In a container (podman or docker)", "### With systemd",
                  "### With compose: PostgreSQL, Redis, three nodes and nginx with TLS",
                  "## Backup and restore (PostgreSQL)", "## Scale out and in"):
        assert f"\n{title}\n" in text, title


def shell_block(name: str) -> str:
    found = re.search(rf"```sh {name}\n(.*?)\n```", DOC.read_text(), re.S)
    assert found is not None, name
    return found.group(1)


def database_url(name: str) -> str:
    return urlunsplit(urlsplit(POSTGRES)._replace(path=f"/{name}"))


@pytest.fixture
def two_databases():
    """Two new, empty databases on the machine's PostgreSQL: a cluster's and the one it
    is restored into; dropped after."""
    need("postgresql")
    need("postgresql-client")
    import asyncpg

    names = [fresh_name("t_backup"), fresh_name("t_restored")]

    async def run(statements: list[str]) -> None:
        conn = await asyncpg.connect(POSTGRES)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()

    asyncio.run(run([f'CREATE DATABASE "{name}"' for name in names]))
    yield [database_url(name) for name in names]
    asyncio.run(run([f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)' for name in names]))


def test_a_finished_game_survives_the_documented_backup_and_restore(two_databases, tmp_path):
    database, restored = two_databases

    async def play_one_game() -> tuple[str, dict]:
        app = App(load_config(**FAST), database)
        await app.start("127.0.0.1", 0)
        try:
            async with TrickroomClient.connect(url(app)) as client:
                table_id, _ = await solo_table(client, rules={"target": 100, "mercy": 50})
                await asyncio.wait_for(play_until_over(client, table_id, random.Random(5)), 120)
            table = app.lobby.tables[table_id].machine
            await wait_for(lambda: table.state.phase == "over")
            game_id = table.state.game_id
            status, _, body = await http_get(app, f"/api/games/{game_id}")
            assert status == 200
            return game_id, json.loads(body)
        finally:
            await app.stop()

    async def read_back(game_id: str) -> dict:
        app = App(load_config(**FAST), restored)
        await app.start("127.0.0.1", 0)
        try:
            status, _, body = await http_get(app, f"/api/games/{game_id}")
            assert status == 200, body
            return json.loads(body)
        finally:
            await app.stop()

    game_id, record = asyncio.run(play_one_game())
    assert record["result"]["finished"]
    env = {**os.environ, "DATABASE": database, "RESTORED": restored}
    for block in ("backup", "restore"):
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", shell_block(block)],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, (block, done.stderr)
    assert (tmp_path / "trickroom.dump").stat().st_size > 0
    assert asyncio.run(read_back(game_id)) == record

"""The JavaScript client package (clients/js): its tarball, as ``npm pack`` makes it,
installed into an empty project and its tests (``node --test``) run there against a live
server, whole games included; and, on the checkout, its TypeScript types checked against
the schema the server publishes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.js import JS, QUIET, checkout, npm
from tests.server.conftest import url
from trickroom.server.protocol import json_schema

ROOT = Path(__file__).resolve().parents[2]
__all__ = ["checkout"]


def passed(output: str, tests: int) -> bool:
    """Whether ``node --test`` says all ``tests`` tests passed (and none failed)."""
    return (re.search(rf"^# pass {tests}$", output, re.M) is not None
            and re.search(r"^# fail 0$", output, re.M) is not None)


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty project with the package's tarball installed (and its dependency, ws), and
    the package's live tests beside it, which import it by its name."""
    work = tmp_path_factory.mktemp("js")
    done = subprocess.run([npm(), "pack", "--json", "--pack-destination", str(work)], cwd=JS,
                          check=True, capture_output=True, text=True, timeout=120)
    [tarball] = json.loads(done.stdout)
    files = {f["path"] for f in tarball["files"]}
    assert {"package.json", "src/index.js", "src/index.d.ts", "src/protocol.d.ts",
            "src/bot.js"} <= files
    assert all(f.startswith("src/") for f in files - {"package.json", "README.md"}), files
    project = work / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps(
        {"name": "uses-trickroom-client", "private": True, "type": "module"}))
    subprocess.run([npm(), "install", *QUIET, "--prefer-offline", str(work / tarball["filename"])],
                   cwd=project, check=True, timeout=300)
    shutil.copy(JS / "test" / "live.test.mjs", project)
    return project


# Node 20 has no WebSocket of its own (the client then takes ws's); with this flag it has
# the one a browser has, which the client then uses.
@pytest.mark.parametrize("websocket", ["ws", "global"])
async def test_the_packed_client_plays_whole_games_against_a_live_server(make_app, packed,
                                                                        websocket):
    app, slow = await make_app(), await make_app(turn_seconds=0.5)
    flags = ["--experimental-websocket"] if websocket == "global" else []
    proc = await asyncio.create_subprocess_exec(
        "node", *flags, "--test", "live.test.mjs", cwd=packed,
        env={**os.environ, "TRICKROOM_URL": url(app), "TRICKROOM_SLOW_URL": url(slow),
             "TRICKROOM_WEBSOCKET": websocket},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    output = out.decode()
    assert proc.returncode == 0 and passed(output, 7), output


def test_the_types_are_those_of_the_published_schema(checkout, tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(json_schema()))
    done = subprocess.run(["node", "--test", "test/types.test.mjs"], cwd=checkout,
                          env={**os.environ, "TRICKROOM_SCHEMA": str(schema)},
                          capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and passed(output, 2), output


async def test_the_docs_example_plays_with_the_installed_package(app, packed):
    """docs/protocol.md's JavaScript bot, on the installed tarball, against a live server."""
    [code] = re.findall(r"```js\n(.*?)\n```", (ROOT / "docs" / "protocol.md").read_text(),
                        re.S)
    assert "ws://127.0.0.1:8765/ws" in code
    (packed / "example.mjs").write_text(code.replace("ws://127.0.0.1:8765/ws", url(app)))
    proc = await asyncio.create_subprocess_exec(
        "node", "example.mjs", cwd=packed,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    games = re.findall(r"\[ (-?\d+(?:, -?\d+){3}) \]", out.decode())  # console.log's arrays
    assert len(games) == 2, out.decode()  # two games' four scores

"""A bot in another language, from the docs alone (tests/node/bot.mjs, Node with ws and
ajv): it plays whole games and every message it receives passes the published schema."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from trickroom.server.protocol import json_schema

NODE_BOT = Path(__file__).resolve().parents[1] / "node"


@pytest.fixture(scope="module")
def node_bot() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "Node.js is needed: sudo apt-get install nodejs npm (.ci/run does)"
    # One install at a time (xdist's workers each have this fixture): the folder is the lock.
    folder = os.open(NODE_BOT, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        if not (NODE_BOT / "node_modules" / "ajv").exists():
            subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent"],
                           cwd=NODE_BOT, check=True, timeout=300)
    finally:
        os.close(folder)  # and the lock with it
    return NODE_BOT / "bot.mjs"


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_a_node_bot_plays_a_game_and_every_message_passes_the_schema(app, node_bot, room,
                                                                           tmp_path):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(json_schema()))
    proc = await asyncio.create_subprocess_exec(
        "node", str(node_bot), f"ws://127.0.0.1:{app.port}/ws", room, str(schema),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode == 0, err.decode()
    result = json.loads(out.decode())
    assert len(result["scores"]) == (2 if room == "spades" else 4)
    assert result["checked"] > 100  # a whole game's messages, each validated

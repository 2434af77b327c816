"""``trickroom config``: every setting ``serve`` would run with, its value and where it
came from, passwords masked; a setting that cannot be used is one line naming it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.server.test_cli_start import ROOT, said
from trickroom.server.effective import NAMES

SECRET = "s3cret"


def trickroom_config(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("TRICKROOM_")}
    return subprocess.run([sys.executable, "-m", "trickroom.server.cli", "config", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**env, **variables})


def test_it_lists_every_setting_with_its_value_and_origin():
    done = trickroom_config("--port", "9001", TRICKROOM_PORT="9000", TRICKROOM_HOST="0.0.0.0",
                            TRICKROOM_STORE=f"postgresql://trickroom:{SECRET}@db/trickroom",
                            TRICKROOM_CLUSTER="redis://redis:6379/0",
                            TRICKROOM_CLUSTER_PASSWORD=SECRET)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["setting", "value", "from"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert list(rows) == list(NAMES)
    assert rows["port"] == ["9001", "argv", "--port"]
    assert rows["host"] == ["0.0.0.0", "env", "TRICKROOM_HOST"]
    assert rows["store"] == ["postgresql://trickroom:***@db/trickroom", "env", "TRICKROOM_STORE"]
    assert rows["cluster"] == ["redis://:***@redis:6379/0", "env", "TRICKROOM_CLUSTER"]
    assert rows["cluster_password"] == ["***", "env", "TRICKROOM_CLUSTER_PASSWORD"]
    assert rows["turn_seconds"][1:] == ["file", str(ROOT / "trickroom/server/rooms.toml")]
    assert rows["http_burst_per_address"] == ["60", "default"]
    assert SECRET not in done.stdout + done.stderr


def test_as_json_it_names_each_setting_s_variable():
    done = trickroom_config("--json", TRICKROOM_NODE_URL="/node/2/ws")
    assert done.returncode == 0, done.stderr
    settings = {s["name"]: s for s in json.loads(done.stdout)}
    assert settings["node_url"] == {"name": "node_url", "value": "/node/2/ws", "from": "env",
                                    "source": "TRICKROOM_NODE_URL",
                                    "variable": "TRICKROOM_NODE_URL"}
    assert settings["trusted_proxies"]["value"] == []


def test_a_bad_variable_is_one_line_naming_it():
    assert said(trickroom_config(TRICKROOM_TURN_SECONDS="soon")).startswith(
        "trickroom: TRICKROOM_TURN_SECONDS: input should be a valid number")
    assert said(trickroom_config(TRICKROOM_TURN_SECOND="5")) == (
        "trickroom: TRICKROOM_TURN_SECOND is no setting: did you mean "
        "TRICKROOM_TURN_SECONDS? (trickroom config lists every setting)")


def test_serve_refuses_a_bad_variable_as_config_does():
    done = subprocess.run([sys.executable, "-m", "trickroom.server.cli", "serve"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "TRICKROOM_PORT": "eighty"})
    assert said(done).startswith("trickroom: TRICKROOM_PORT: input should be a valid integer")

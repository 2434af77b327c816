"""The server runs on uvloop where it is installed, and on asyncio's own loop when the host
says so; `trickroom serve` says which."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from trickroom import compiled
from trickroom.server.config import ConfigError, load_config
from trickroom.server.loops import loop_factory, run

ROOT = Path(__file__).resolve().parents[2]


async def which_loop() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_the_default_loop_is_uvloop_and_asyncio_on_request():
    pytest.importorskip("uvloop")  # a dependency wherever it builds (CPython, not Windows)
    assert load_config().settings.event_loop == "uvloop"
    assert loop_factory("uvloop")[0] == "uvloop"
    assert run(which_loop(), "uvloop").startswith("uvloop")
    assert loop_factory("asyncio") == ("asyncio", None)
    assert run(which_loop(), "asyncio").startswith("asyncio")


def test_an_unknown_event_loop_is_refused_naming_the_choices(tmp_path):
    config = tmp_path / "rooms.toml"
    config.write_text('[server]\nevent_loop = "trio"\n[[rooms]]\nname = "s"\ngame = "spades"\n')
    with pytest.raises(ConfigError, match="event_loop must be one of uvloop, asyncio, not 'trio'"):
        load_config(config)


@pytest.mark.parametrize("setting", ["uvloop", "asyncio"])
def test_serve_runs_on_the_loop_the_host_chose_and_says_so(tmp_path, setting):
    pytest.importorskip("uvloop")
    config = tmp_path / "rooms.toml"
    config.write_text(f'[server]\nevent_loop = "{setting}"\n'
                      '[[rooms]]\nname = "spades"\ngame = "spades"\n')
    proc = subprocess.Popen([sys.executable, "-m", "trickroom.server.cli", "serve", "--port", "0",
                             "--db", str(tmp_path / "t.sqlite3"), "--config", str(config)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = proc.stdout.readline()
        assert line.startswith("trickroom serving http://"), line
        assert line.rstrip().endswith(f"event loop {setting}"), line
        # ... and whether its engines are the compiled ones (trickroom/compiled.py).
        assert f", engines {compiled.status()[1]}, " in line, line
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert proc.returncode == 0

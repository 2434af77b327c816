"""The typed contracts hold: mypy --strict passes on the package, the Python client package
(clients/python) and the benches, ruff on all (and the examples).

The engine contract (``trickroom.game.engine.Engine``), the table's commands and effects and
the protocol models are checked here, and the benches' use of them, so a change that breaks
one fails the suite (``make lint`` runs the same two checks).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENT = "clients/python/src/trickroom_client"


def test_mypy_strict_passes_on_the_package_and_the_benches(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path),
                           "trickroom", "bench", CLIENT], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_passes_on_every_python_folder():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "trickroom", "tests", "bench",
                           "clients/python", "examples"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

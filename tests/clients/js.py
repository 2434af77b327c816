"""Node and npm for the JavaScript client's tests (here and on the cluster's nodes)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "clients" / "js"
QUIET = ["--no-audit", "--no-fund", "--silent"]


def npm() -> str:
    found = shutil.which("npm")
    assert found and shutil.which("node"), \
        "Node.js is needed: sudo apt-get install nodejs npm (.ci/run does)"
    return found


@pytest.fixture(scope="module")
def checkout() -> Path:
    """clients/js with its devDependencies (the type generator, TypeScript), installed from
    its lock file once (xdist's workers each have this fixture: the folder is the lock)."""
    folder = os.open(JS, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        modules = JS / "node_modules"
        if not all((modules / m).exists() for m in ("ws", "json-schema-to-typescript",
                                                     "typescript")):
            subprocess.run([npm(), "ci", *QUIET], cwd=JS, check=True, timeout=300)
    finally:
        os.close(folder)
    return JS

"""The browser client's table state, unit-tested in Node: tests/web/js runs with Node's
own test runner (``node --test``, no packages), and this test runs it in the suite.

The client's modules are ES modules with no package.json beside them (the browser loads
them as they are): Node.js 20.19 or 22.7 and later read them so. Without node the test
skips and says how to install it, unless ``TRICKROOM_REQUIRE_BROWSER=1`` (CI sets it),
when it fails instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent / "js"


def test_the_table_reducer_passes_its_node_tests():
    node = shutil.which("node")
    if node is None:
        why = "no node on PATH: install Node.js 20.19 or later (`sudo apt-get install nodejs`)"
        if os.environ.get("TRICKROOM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"the client's unit tests are required here, but {why}")
        pytest.skip(why)
    done = subprocess.run([node, "--test", "--test-reporter=spec", str(TESTS)], cwd=TESTS,
                          capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    if "Cannot use import statement outside a module" in out:
        out += ("\nThis node does not read trickroom/web/js as ES modules without a package.json:"
                " Node.js 20.19 or 22.7 and later do.")
    assert done.returncode == 0, f"node --test {TESTS} failed:\n{out}"

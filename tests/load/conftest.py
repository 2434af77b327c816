"""Load, crash and fuzz tests: they start the benches' pieces (a server process, bots), and
run the benches themselves at the smallest size that exercises them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.server.conftest import make_app as make_app  # a server with settings changed

ROOT = Path(__file__).resolve().parents[2]
FIGURE = re.compile(r"(\w+)=(-?[\d.]+|nan)\b")


def run_bench(name: str, *args: str) -> tuple[str, dict[str, float]]:
    """Run ``python -m bench.<name> <args>`` (it must succeed): its output, and the
    ``key=value`` figures of its last line, each a number."""
    run = subprocess.run([sys.executable, "-m", f"bench.{name}", *args],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return run.stdout, last_figures(run.stdout, name)


def last_figures(out: str, name: str) -> dict[str, float]:
    """The figures of a bench's last line, ``<name> key=value ...``: every value must be a
    number (``nan`` where the bench measured nothing to show)."""
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"{name} "), last
    figures = {key: float(value) for key, value in FIGURE.findall(last)}
    assert len(figures) == last.count("="), last  # no figure that is not a number
    return figures

"""bench/rejoin.py: what a rejoin replaying its missed events costs the server."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rejoin_bench_replays_the_events_asked_for_and_reports_their_cost():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "rejoin.py"), "--back", "100",
                          "--rejoins", "20"], capture_output=True, text=True, timeout=240,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    figures = dict(re.findall(r"(\w+)=([\d.]+)", last))
    assert figures["back"] == "100", last
    frames = int(re.search(r"\((\d+) frames\)", run.stdout).group(1))
    assert frames >= 100, run.stdout  # every missed event came (with the ok and a prompt)
    assert float(figures["cpu_us_per_rejoin"]) >= 0, last

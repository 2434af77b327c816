"""bench/guests.py: a guest's visit measured beside few and many open tables."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_guests_bench_reports_a_visit_s_cost_at_each_level_and_their_ratio():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "guests.py"), "--tables", "2,30",
                          "--visits", "20"], capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    figures = dict(re.findall(r"(\w+)=([\d.]+)", last))
    assert figures["tables"] == "30", last
    assert float(figures["cpu_us_per_visit"]) > 0 and float(figures["ratio_vs_smallest"]) > 0

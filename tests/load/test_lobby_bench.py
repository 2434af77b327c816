"""bench/lobby.py: a guest's visit and a room's lists, beside few and many open tables."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lobby_bench_reports_each_request_s_cost_at_each_level_and_their_ratio():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "lobby.py"), "--tables", "2,30",
                          "--visits", "200", "--subscribers", "20"],
                         capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    figures = dict(re.findall(r"(\w+)=([\d.]+)", last))
    assert figures["tables"] == "30", last
    # /proc counts CPU in 10 ms ticks: 200 visits and lists are enough to see, but 200
    # lists of the rooms may fall within one tick.
    for name in ("visit_ratio", "list_tables_ratio", "list_tables_us", "watch_us"):
        assert float(figures[name]) > 0, last
    assert float(figures["list_rooms_ratio"]) >= 0, last

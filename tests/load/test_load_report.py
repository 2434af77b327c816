"""bench/load.py's report: the server's CPU per action beside the bare relay's, per level
and on the last line (the busiest level without think time)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_load_reports_cpu_per_action_beside_the_relays():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "load.py"), "--tables", "1,2@50",
                          "--duration", "1.5", "--idle", "5"],
                         capture_output=True, text=True, timeout=240, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    last = run.stdout.strip().splitlines()[-1]
    figures = dict(re.findall(r"(\w+)=([\d.]+)", last))
    # The busiest level without think time is the 1-table one here; both figures measured.
    assert float(figures["cpu_us_per_action"]) > 0, last
    assert float(figures["relay_cpu_us_per_action"]) > 0, last
    assert "us/act" in run.stdout and "rly us" in run.stdout

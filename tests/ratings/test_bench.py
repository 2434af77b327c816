"""bench/ratings.py runs end to end on a tiny season and ends with its summary line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "ratings.py"


def test_the_bench_ends_with_the_summary_line(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH), "--games", "400", "--players", "24",
                          "--hearts-games", "200",
                          "--real-games", "40", "--real-cache", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    last = out.strip().splitlines()[-1]
    assert re.fullmatch(r"ratings best=\w+ oracle_gain_high_luck=-?\d+\.\d\d "
                        r"oracle_gain_low_luck=-?\d+\.\d\d calibration=-?\d+\.\d\d "
                        r"real_spades_logloss_vs_oracle=\d+\.\d\d "
                        r"real_hearts_logloss_vs_oracle=\d+\.\d\d", last), last
    assert "oracle gain" in out and "coin flip" in out
    assert "simulated hearts, low luck" in out and "real hearts" in out

"""bench/rejoin.py: what a rejoin replaying its missed events costs the server."""

from __future__ import annotations

import re

from tests.load.conftest import run_bench


def test_rejoin_bench_replays_the_events_asked_for_and_reports_their_cost():
    out, figures = run_bench("rejoin", "--back", "100", "--rejoins", "20")
    assert figures["back"] == "100", figures
    frames = re.search(r"\((\d+) frames\)", out)
    assert frames and int(frames.group(1)) >= 100, out  # every missed event came
    assert float(figures["cpu_us_per_rejoin"]) >= 0, figures

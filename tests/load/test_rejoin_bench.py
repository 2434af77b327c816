"""``bench.rejoin``: what a rejoin replaying its missed events costs the server."""

from __future__ import annotations

import re

from tests.load.conftest import run_bench


def test_rejoin_bench_replays_the_events_asked_for_and_reports_their_cost():
    out, figures = run_bench("rejoin", "--back", "20", "--rejoins", "3")
    assert set(figures) == {"back", "cpu_us_per_rejoin", "cpu_us_per_event"}, figures
    assert figures["back"] == 20
    frames = re.search(r"\((\d+) frames\)", out)
    assert frames and int(frames.group(1)) >= 20, out  # every missed event came
    assert figures["cpu_us_per_rejoin"] >= 0 and figures["cpu_us_per_event"] >= 0, figures

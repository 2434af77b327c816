"""``bench.lobby``: a guest's visit and a room's lists, beside few and more open tables."""

from __future__ import annotations

import math

from tests.load.conftest import run_bench


def test_lobby_bench_reports_each_request_s_cost_at_each_level_and_their_ratio():
    out, figures = run_bench("lobby", "--tables", "1,3", "--visits", "10",
                             "--subscribers", "2")
    assert set(figures) == {"tables", "visit_ratio", "list_tables_ratio", "list_rooms_ratio",
                            "list_tables_us", "watch_us"}, figures
    assert figures["tables"] == 3
    # /proc counts CPU in 10 ms ticks: a smoke run's costs may round to none, never below.
    assert all(math.isfinite(v) and v >= 0 for v in figures.values()), figures
    assert "visit us" in out and "watch us" in out  # the table of every level

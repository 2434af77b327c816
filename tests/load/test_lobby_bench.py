"""bench/lobby.py: a guest's visit and a room's lists, beside few and many open tables."""

from __future__ import annotations

from tests.load.conftest import run_bench


def test_lobby_bench_reports_each_request_s_cost_at_each_level_and_their_ratio():
    _, figures = run_bench("lobby", "--tables", "2,30", "--visits", "200",
                           "--subscribers", "20")
    assert figures["tables"] == "30", figures
    # /proc counts CPU in 10 ms ticks: 200 visits and lists are enough to see, but 200
    # lists of the rooms may fall within one tick.
    for name in ("visit_ratio", "list_tables_ratio", "list_tables_us", "watch_us"):
        assert float(figures[name]) > 0, figures
    assert float(figures["list_rooms_ratio"]) >= 0, figures

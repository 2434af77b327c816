"""``bench.profile``: a profile of the server under bots, each part of an action's path
given a share (issue 40)."""

from __future__ import annotations

from tests.load.conftest import run_bench


def test_the_profile_bench_gives_every_part_a_share_that_sums_to_the_whole():
    out, figures = run_bench("profile", "--tables", "2", "--duration", "1", "--top", "3")
    parts = {k: v for k, v in figures.items() if k not in ("actions", "us_per_action")}
    assert {"engine", "table", "parsing", "encoding", "store", "connection", "loop",
            "startup", "other"} <= set(parts), figures
    assert figures["actions"] > 0 and figures["us_per_action"] > 0, figures
    assert abs(sum(parts.values()) - 100) < 1.0, figures  # every own second in one part
    assert "functions of most own time" in out

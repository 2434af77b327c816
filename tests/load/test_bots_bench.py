"""``bench.bots``: every bot's event stream hears its game's start and end, and what a
stream costs the server is measured (issue 36)."""

from __future__ import annotations

import math

from tests.load.conftest import run_bench


def test_the_bots_bench_hears_every_game_and_measures_a_stream_s_memory():
    out, figures = run_bench("bots", "--streams", "30", "--warm", "3", "--games", "2",
                             "--settle", "0.2")
    # (The bench exits 1 if a stream missed an event: run_bench asserts it exited 0.)
    assert set(figures) == {"streams", "kib_per_stream", "start_p99_ms", "missed"}, figures
    assert figures["streams"] == 30 and figures["missed"] == 0, figures
    assert math.isfinite(figures["kib_per_stream"]) and figures["start_p99_ms"] > 0, figures
    assert "2 of 2 games heard start and end" in out, out

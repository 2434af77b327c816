"""``bench.presence``: a followed player's every change reaches each follower, on one process
and on two nodes, and what a follower edge costs the server is measured."""

from __future__ import annotations

import math

from tests.load.conftest import run_bench
from tests.services import need


def test_presence_bench_hears_every_change_and_measures_an_edge_s_memory():
    need("postgresql")
    need("redis")
    out, figures = run_bench("presence", "--players", "4", "--followers-each", "2",
                             "--follows", "2", "--rounds", "1", "--rate", "1000",
                             "--edges", "40", "--edge-follows", "4")
    # (The bench exits 1 if a push never came: run_bench asserts it exited 0.)
    assert set(figures) == {"p50_ms", "p99_ms", "cluster_p99_ms", "kib_per_edge"}, figures
    assert all(math.isfinite(v) for v in figures.values()), figures
    assert 0 <= figures["p50_ms"] <= figures["p99_ms"], figures
    assert "2 nodes" in out  # the cluster's row
    assert "40 follower edges subscribed" in out, out

"""``bench.analysis``: the cost of a whole game's analysis, its validity on players of known
levels, and the tables' p99 while it runs, each printed (issue 38)."""

from __future__ import annotations

import math

from tests.load.conftest import run_bench


def test_the_analysis_bench_prints_cost_validity_and_load():
    out, figures = run_bench("analysis", "--per-level", "1", "--games", "2", "--samples",
                             "2", "--cost-samples", "2", "--tables", "2", "--duration", "0.5",
                             "--warmup", "0.5", "--rating-games", "1",
                             "--askers", "1", "--jobs", "1", "--rounds", "1")
    assert set(figures) == {"spades_s_per_game", "hearts_s_per_game", "level_spearman_spades",
                            "level_spearman_hearts", "accuracy_vs_rating_spearman",
                            "load_p99_ratio"}, figures
    assert all(math.isfinite(v) for v in figures.values()), figures
    assert figures["spades_s_per_game"] > 0 and figures["hearts_s_per_game"] > 0
    assert -1 <= figures["level_spearman_spades"] <= 1, figures
    assert "analyses ended" in out and "% of a core" in out, out


def test_the_load_s_control_runs_an_idle_class_process_beside_the_tables_instead():
    out, figures = run_bench("analysis", "--no-validity", "--hog", "--tables", "2",
                             "--warmup", "0.5", "--duration", "0.5", "--rounds", "1")
    assert math.isfinite(figures["load_p99_ratio"]), figures
    assert math.isnan(figures["level_spearman_spades"]), figures
    assert "an idle-class process counted" in out, out

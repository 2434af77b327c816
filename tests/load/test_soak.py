"""A short ``bench.soak``: games back to back, and every finished table leaves the lobby."""

from __future__ import annotations

import pytest

from bench import soak
from tests.services import POSTGRES, need


async def test_a_short_soak_closes_every_table_and_keeps_the_lobby_and_logs_bounded(tmp_path):
    out = await soak.soak_run(games=6, tables=2, seconds=60, workdir=tmp_path, quiet=True,
                              every=0.1)
    assert out["games"] >= 6
    assert out["open_tables_end"] == out["playing_end"] == 0  # nothing left behind
    assert out["lobby_end"] == 0
    assert out["max_lobby"] <= 2  # never more listed than in play
    assert 0 < out["max_logged_events"] <= 2 * 1000  # each table's log is bounded


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
async def test_a_soak_reports_a_finished_game_s_bytes_with_every_move_and_after_retention(
        tmp_path, engine):
    """Thirty games: enough that the tables' last pages, part filled (4 or 8 KiB each, a
    few a table), weigh little in a game's share."""
    if engine == "postgresql":
        need(engine)
    out = await soak.soak_run(games=30, tables=4, seconds=120, workdir=tmp_path, quiet=True,
                              every=0.1, store=POSTGRES if engine == "postgresql" else None)
    stored = out["stored"]
    assert stored["games"] >= 30 and stored["moves"] >= 100 * stored["games"]
    assert stored["bytes_per_game_after"] <= 0.25 * stored["bytes_per_game_before"]


def test_memory_growth_is_the_slope_after_the_warm_up():
    samples = [soak.Sample(g, 50_000 + (g // 2 if g >= 100 else 3 * g), 1, 1, 1)
               for g in range(0, 1001, 50)]
    assert round(soak.growth_per_1000(samples, warmup=100)) == 500
    assert str(soak.growth_per_1000(samples[:2], warmup=0)) == "nan"


def test_the_slope_s_standard_error_grows_with_the_rss_s_ups_and_downs():
    line = [soak.Sample(g, 50_000 + g // 2, 1, 1, 1) for g in range(0, 1001, 10)]
    assert soak.growth_stderr_per_1000(line, warmup=0) == pytest.approx(0, abs=1)
    errors = []
    for wobble in (100, 1000):
        noisy = [soak.Sample(s.games, s.rss_kib + (wobble if i % 2 else -wobble), 1, 1, 1)
                 for i, s in enumerate(line)]
        assert round(soak.growth_per_1000(noisy, warmup=0)) == 500
        errors.append(soak.growth_stderr_per_1000(noisy, warmup=0))
    # ±100 KiB on 101 samples over 1,000 games: 100 / √(Σ (games − mean)²) × 1,000 ≈ 34.5
    assert 33 < errors[0] < 36 and errors[1] == pytest.approx(10 * errors[0])

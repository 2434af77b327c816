"""``bench.rating_systems`` runs end to end on a tiny season and ends with its summary line;
its fit moves a tuned preset's constants and keeps its name."""

from __future__ import annotations

import re

from bench import rating_systems

LAST = re.compile(r"ratings best=\w+ oracle_gain_high_luck=-?\d+\.\d\d "
                  r"oracle_gain_low_luck=-?\d+\.\d\d calibration=-?\d+\.\d\d "
                  r"real_spades_logloss_vs_oracle=\d+\.\d\d "
                  r"real_hearts_logloss_vs_oracle=\d+\.\d\d")


def test_the_bench_ends_with_the_summary_line(tmp_path, capsys):
    rating_systems.main(["--games", "24", "--players", "6", "--hearts-games", "12", "--no-fit",
                         "--real-games", "8", "--real-cache", str(tmp_path)])
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert LAST.fullmatch(last), last
    assert "oracle gain" in out and "coin flip" in out
    assert "simulated hearts, low luck" in out and "real hearts" in out


def test_a_tuned_preset_is_fitted_on_a_season_under_its_own_name():
    season = rating_systems.simulate(6, 40, rating_systems.Luck("low", 0.8), seed=1)
    ticks: list[int] = []
    fitted = rating_systems.fit("wocg_tuned", season, ticks.append)
    assert fitted.name == "wocg_tuned" and sum(ticks) > 0  # games were rated to fit it
    assert rating_systems.describe(fitted).startswith("K ")

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


def test_the_simulation_scores_a_stronger_side_s_win_by_more():
    """The simulated seasons have a score model (issue 39: ``margin`` then learns from
    margins, not from who won alone): a Spades winner ends on 500 and the losers below,
    by more the wider the skill gap; a Hearts table's scores follow its finishing order."""
    luck = rating_systems.Luck("high", 0.6)
    season = rating_systems.simulate(40, 3000, luck, seed=3)
    gaps, margins = [], []
    for game in season.games:
        north, east, south, west = (season.skills[p] for p in game.seats)
        ns, ew = game.scores[0], game.scores[1]
        assert game.scores == (ns, ew, ns, ew) and max(ns, ew) == 500 and ns != ew
        assert (ns > ew) == (game.result[0] == 1.0)
        gaps.append((north + south - east - west) / 2)
        margins.append(ns - ew)
    assert rating_systems.spearman(margins, gaps) > 0.1  # stronger sides win by more
    assert len(set(margins)) > 50  # not one margin for every game
    hearts = rating_systems.simulate(12, 200, luck, seed=3, kind="hearts")
    for game in hearts.games:
        winner = game.result.index(1.0)
        assert game.scores[winner] == min(game.scores) and len(set(game.scores)) == 4

"""``bench.ratings_real`` plays real games, rates them with every system and sums up."""

from __future__ import annotations

import re

import pytest

from bench import ratings_real as bench

LAST = re.compile(r"ratings_real best_spades=\w+ best_hearts=\w+ real_spades_logloss_vs_oracle"
                  r"=\d+\.\d\d real_hearts_logloss_vs_oracle=\d+\.\d\d "
                  r"duplicate_spades_rho_at_100=-?\d\.\d{3} normal_spades_rho_at_300=-?\d\.\d{3} "
                  r"duplicate_hearts_rho_at_100=-?\d\.\d{3} normal_hearts_rho_at_300=-?\d\.\d{3} "
                  r"duplicate_spades_logloss_vs_oracle=\d+\.\d\d "
                  r"duplicate_hearts_logloss_vs_oracle=\d+\.\d\d")


def test_a_small_run_rates_both_kinds_refits_the_presets_and_caches_its_games(tmp_path,
                                                                              capsys):
    bench.main(["--games", "8", "--per-level", "1", "--jobs", "1", "--cache", str(tmp_path)])
    out = capsys.readouterr().out
    assert LAST.fullmatch(out.strip().splitlines()[-1]), out
    assert "real spades" in out and "real hearts" in out and "share won" in out
    assert "old rule" in out  # the mean of pairwise chances, beside the four-way model
    assert "wocg_tuned_refit" in out and "refitted on season 2" in out
    assert "duplicate seasons" in out and "duplicate_fit" in out
    assert len(list(tmp_path.glob("*.json"))) == 8  # two kinds, two seasons, normal and duplicate


def test_a_season_is_played_once_then_read_from_its_cache(tmp_path, monkeypatch):
    eps = bench.LEVELS[:4]
    played = bench.season("hearts", eps, 3, 1, 1, tmp_path, False, lambda n: None)
    monkeypatch.setattr(bench, "play_chunk", lambda *args: pytest.fail("played again"))
    assert bench.season("hearts", eps, 3, 1, 1, tmp_path, False, lambda n: None) == played


def test_kendall_counts_ties_in_the_true_levels():
    # four concordant pairs, two tied in the levels only: 4 / sqrt(4 × 6)
    assert bench.kendall([1, 2, 3, 4], [0, 0, 1, 1]) == pytest.approx(4 / 24 ** 0.5)


def test_a_rank_correlation_stays_above_the_bar_from_its_last_dip():
    assert bench.stays_from([0.5, 0.95, 0.8, 0.91, 0.97], 0.9) == 4
    assert bench.stays_from([0.95, 0.97], 0.9) == 1
    assert bench.stays_from([0.95, 0.7], 0.9) is None


def test_the_oracle_learns_that_the_careful_robot_wins():
    games = [bench.Played((0, 1, 2, 3), (0, 50, 60, 70), (0,), 9)] * 30 + [
        bench.Played((1, 0, 2, 3), (0, 50, 60, 70), (0,), 9)] * 10
    chances = bench.oracle("hearts", games, [0, 1, 1, 1], 2)
    assert chances[0][0] == pytest.approx(0.75, abs=1e-6)  # 30 of 40 games
    assert sum(chances[0]) == pytest.approx(1)


def test_the_joint_filter_ranks_players_by_the_points_a_hand_their_sides_score():
    import random

    rng = random.Random(4)
    strength = [0.0, -0.2, -0.4, -0.6, -0.8, -1.0, -1.2, -1.4]
    games = []
    for _ in range(300):
        seats = tuple(rng.sample(range(8), 4))
        hands = rng.randint(2, 9)
        sides = [round(hands * (10 + 60 * (strength[seats[side]] + strength[seats[side + 2]])
                                + rng.gauss(0, 5))) for side in (0, 1)]
        games.append(bench.Played(seats, (*sides, *sides), (), hands))
    assert bench.joint_rho(games, strength, bench.Margin()) == pytest.approx(1.0)
    shuffled = [bench.Played(g.seats, g.scores, (), g.hands) for g in games]
    rng.shuffle(strength)  # the same games against levels they do not follow
    assert bench.joint_rho(shuffled, strength, bench.Margin()) < 0.9

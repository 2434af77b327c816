"""Refitting a tuned preset on a room's games: lower log-loss, faithful presets untouched."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from trickroom.ratings import SYSTEMS, GameResult, Points, UnknownSystem
from trickroom.ratings.refit import fitted_fields, outcome, refit, replay_loss


def spades_games(system: str, n: int) -> list[GameResult]:
    """A and C beat B and D every time, whoever sits where."""
    lineups = ["ABCD", "BADC", "CBAD", "DCBA"]
    out = []
    for i in range(n):
        seats = lineups[i % 4]
        ns_strong = seats[0] in "AC"
        scores = (500, 100, 500, 100) if ns_strong else (100, 500, 100, 500)
        out.append(GameResult.of("spades", system, seats, scores))
    return out


def test_the_first_game_between_newcomers_costs_a_coin_flip():
    games = spades_games("wocg_tuned", 1)
    assert replay_loss(SYSTEMS["wocg_tuned"], games) == pytest.approx(math.log(2))


@pytest.mark.parametrize("name", ["zone_tuned", "wocg_tuned", "openskill_tuned"])
def test_a_room_where_skill_always_wins_gets_bolder_constants_and_predicts_better(name):
    fit = refit(SYSTEMS[name], spades_games(name, 40))
    assert fit.after < fit.before and fit.gain > 0 and fit.games == 40
    assert fit.system.name == name
    assert fit.system != SYSTEMS[name]


@pytest.mark.parametrize("name", ["zone", "wocg", "points_en", "points_el"])
def test_faithful_presets_keep_the_seeds_constants(name):
    with pytest.raises(UnknownSystem, match="faithful"):
        refit(SYSTEMS[name], spades_games(name, 4))


def test_only_systems_with_constants_to_fit_are_refitted():
    with pytest.raises(UnknownSystem):
        fitted_fields(Points(name="points_custom"))


def test_a_hearts_outcome_shares_the_win_between_equal_lowest_scores():
    r = GameResult.of("hearts", "wocg_tuned", "ABCD", (40, 40, 70, 101))
    assert outcome(r) == (0.5, 0.5, 0.0, 0.0)


def test_weng_lin_fits_its_beta_its_prior_and_its_predictions_luck():
    assert fitted_fields(SYSTEMS["openskill_tuned"]) == ("beta", "sigma", "luck")
    system, games = SYSTEMS["openskill_tuned"], spades_games("openskill_tuned", 40)
    # Skill always wins here: predictions wider than the update's cost more.
    assert replay_loss(replace(system, luck=2.0), games) > replay_loss(system, games)

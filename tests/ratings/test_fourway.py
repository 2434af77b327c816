"""Hearts chances from a four-player model: Plackett-Luce on each system's pairwise chances."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.ratings import SYSTEMS, Rating, WengLin, expected
from trickroom.ratings.fourway import (
    finishing_orders,
    hearts_from_pairs,
    mean_of_pairs,
    plackett_luce,
    strengths_from_pairs,
    thurstone,
)

PLAYERS = "ABCD"
FAST = settings(max_examples=60, deadline=None)
ratings4 = st.lists(st.floats(0, 3000), min_size=4, max_size=4)


def at(values, sigma=0.0):
    return {p: Rating(v, sigma) for p, v in zip(PLAYERS, values, strict=True)}


@FAST
@given(values=ratings4)
def test_elo_hearts_chances_agree_with_every_pairwise_expectation(values):
    p = SYSTEMS["wocg"].win_probability("hearts", PLAYERS, at(values))
    for a in range(4):
        for b in range(4):
            if a != b and p[a] > 1e-9 and p[b] > 1e-9:
                assert p[a] / (p[a] + p[b]) == pytest.approx(expected(values[a], values[b]),
                                                             abs=1e-6)


def test_a_player_who_beats_each_other_three_times_in_four_wins_half_the_games():
    def pair(a: int, b: int) -> float:
        return 0.75 if a == 0 else 0.25 if b == 0 else 0.5

    assert hearts_from_pairs(pair) == pytest.approx((0.5, 1 / 6, 1 / 6, 1 / 6))
    assert mean_of_pairs(pair)[0] == pytest.approx(0.375)  # the old, flat rule


def test_strengths_sum_to_zero_and_even_players_share_the_win():
    assert sum(strengths_from_pairs(lambda a, b: 0.6 if a < b else 0.4)) == pytest.approx(0)
    assert hearts_from_pairs(lambda a, b: 0.5) == (0.25,) * 4


def test_finishing_orders_are_chances_whose_first_places_are_the_win_chances():
    strengths = (1.0, 0.2, -0.3, -0.9)
    orders = finishing_orders(strengths)
    assert sum(orders.values()) == pytest.approx(1)
    first = [sum(p for order, p in orders.items() if order[0] == i) for i in range(4)]
    assert first == pytest.approx(plackett_luce(strengths))


def test_thurstone_two_players_is_the_normal_chance_of_the_gap():
    assert thurstone([1.0, 0.0], [1.0, 2.0])[0] == pytest.approx(
        0.5 * math.erfc(-1.0 / math.sqrt(2 * 5)), abs=1e-9)
    assert thurstone([0.0] * 4, [1.0] * 4) == pytest.approx((0.25,) * 4)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@FAST
@given(values=ratings4)
def test_every_systems_hearts_chances_follow_the_ratings(name, values):
    system = SYSTEMS[name]
    sigma = system.start_rating.sigma
    p = system.win_probability("hearts", PLAYERS, at(values, sigma))
    assert sum(p) == pytest.approx(1)
    order = sorted(range(4), key=lambda i: values[i])
    assert all(p[order[i]] <= p[order[i + 1]] + 1e-9 for i in range(3))


def test_zone_hearts_chances_are_never_certain():
    p = SYSTEMS["zone"].win_probability("hearts", PLAYERS, at([2000, 1500, 1500, 1500]))
    assert 0.5 < p[0] < 0.99 and min(p) > 0.005


@pytest.mark.parametrize("model", ["plackett_luce", "thurstone_mosteller", "bradley_terry"])
def test_weng_lin_hearts_chances_use_the_model_it_rates_with(model):
    system = WengLin(model=model)
    ratings = at([1800, 1500, 1500, 1200], 300.0)
    p = system.win_probability("hearts", PLAYERS, ratings)
    assert sum(p) == pytest.approx(1) and p[0] > p[1] > p[3]
    assert p[1] == pytest.approx(p[2])
    if model == "plackett_luce":
        c = math.sqrt(4 * (300.0 ** 2 + system.beta ** 2))
        assert p == pytest.approx(plackett_luce([v / c for v in (1800, 1500, 1500, 1200)]))

"""The number a player reads: Elo-like systems show their rating, Weng-Lin a familiar scale."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.ratings import SYSTEMS, Rating, WengLin

FAST = settings(max_examples=60, deadline=None)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_a_new_player_reads_the_systems_start(name):
    system = SYSTEMS[name]
    expected = 1500.0 if isinstance(system, WengLin) else system.start_rating.value
    assert system.shown(system.start_rating) == expected


@pytest.mark.parametrize("name", ["zone", "wocg", "points_en", "points_el"])
def test_elo_like_systems_show_the_rating_itself(name):
    assert SYSTEMS[name].shown(Rating(1234.5)) == 1234.5


@pytest.mark.parametrize("name", ["openskill", "openskill_tuned"])
@FAST
@given(mu=st.floats(-50_000, 50_000), sigma=st.floats(1, 1000))
def test_weng_lin_shows_a_bounded_number_that_grows_with_skill(name, mu, sigma):
    system = SYSTEMS[name]
    shown = system.shown(Rating(mu, sigma))
    assert 0 <= shown <= 3000
    assert system.shown(Rating(mu + 100, sigma)) >= shown
    assert system.shown(Rating(mu, sigma / 2)) >= shown  # known players are shown less cautiously


@pytest.mark.parametrize("name", ["openskill", "openskill_tuned"])
def test_four_hundred_shown_points_are_about_ten_to_one(name):
    system = SYSTEMS[name]
    strong, weak = Rating(1500 + system.beta * system.luck * 1.91, 1e-6), Rating(1500.0, 1e-6)
    assert system.shown(strong) - system.shown(weak) == pytest.approx(400, abs=2)
    assert system.pair_chance(strong, weak) == pytest.approx(10 / 11, abs=0.01)

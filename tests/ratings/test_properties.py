"""Properties every game must keep, checked on generated results with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.ratings import SYSTEMS, Departure, GameResult, Rating
from trickroom.ratings.registry import WOCG_TUNED
from trickroom.ratings.wocg import WOCG

PLAYERS = ("A", "B", "C", "D")
rating_values = st.floats(min_value=100, max_value=3000, allow_nan=False)
seatings = st.sampled_from(["random_queue", "random_seating", "fixed_seating"])
FAST = settings(max_examples=60, deadline=None)


@st.composite
def spades_results(draw, system: str, leavers: bool = True) -> GameResult:
    ns, ew = draw(st.integers(-300, 600)), draw(st.integers(-300, 600))
    completed = draw(st.booleans())
    if completed and ns == ew:
        ew += 10
    departures = ()
    if leavers and draw(st.booleans()):
        departures = (Departure(draw(st.sampled_from(PLAYERS)), "dropped", 3),)
    return GameResult.of("spades", system, PLAYERS, (ns, ew, ns, ew), seating=draw(seatings),
                         completed=completed, progress=draw(st.floats(0, 1)),
                         departures=departures)


@st.composite
def hearts_results(draw, system: str, leavers: bool = True) -> GameResult:
    scores = draw(st.lists(st.integers(0, 130), min_size=4, max_size=4))
    departures = ()
    if leavers and draw(st.booleans()):
        departures = (Departure(draw(st.sampled_from(PLAYERS)), "dropped", 3),)
    return GameResult.of("hearts", system, PLAYERS, scores, seating=draw(seatings),
                         completed=draw(st.booleans()), progress=draw(st.floats(0, 1)),
                         departures=departures)


def ratings_of(values: list[float]) -> dict[str, Rating]:
    return dict(zip(PLAYERS, (Rating(v) for v in values), strict=True))


four_ratings = st.lists(rating_values, min_size=4, max_size=4)


@pytest.mark.parametrize("name", ["points_en", "points_el"])
@FAST
@given(data=st.data(), values=four_ratings)
def test_the_points_system_is_zero_sum(name, data, values):
    results = spades_results(name) | hearts_results(name)
    result = data.draw(results)
    changes = SYSTEMS[name].rate(result, ratings_of(values))
    assert sum(c.delta for c in changes) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("system", [WOCG, WOCG_TUNED], ids=lambda s: s.name)
@FAST
@given(data=st.data(), values=four_ratings)
def test_elo_changes_sum_to_zero_without_clamp_or_floor(system, data, values):
    result = data.draw(spades_results(system.name, leavers=False)
                       | hearts_results(system.name, leavers=False))
    changes = system.rate(result, ratings_of(values))
    assert sum(c.delta for c in changes) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@FAST
@given(data=st.data(), values=st.lists(st.floats(100, 400), min_size=4, max_size=4))
def test_no_system_moves_a_rating_below_its_floor(name, data, values):
    system = SYSTEMS[name]
    result = data.draw(spades_results(name) | hearts_results(name))
    for change in system.rate(result, ratings_of(values)):
        if system.floor is not None:
            assert change.after.value >= system.floor


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@FAST
@given(data=st.data(), others=st.lists(rating_values, min_size=3, max_size=3),
       low=rating_values, raise_by=st.floats(0, 1500))
def test_a_higher_rated_winner_gains_no_more_than_a_lower_rated_one(name, data, others, low,
                                                                    raise_by):
    system = SYSTEMS[name]
    game = data.draw(st.sampled_from(["spades", "hearts"]))
    if game == "spades":
        result = GameResult.of("spades", name, PLAYERS, (500, 300, 500, 300))
    else:
        result = GameResult.of("hearts", name, PLAYERS, (10, 40, 60, 100))

    def gain(own: float) -> float:
        ratings = ratings_of([own, *others])
        if system.start_rating.sigma:
            ratings = {p: Rating(r.value, system.start_rating.sigma) for p, r in ratings.items()}
        return next(c.delta for c in system.rate(result, ratings) if c.player == "A")

    assert gain(low + raise_by) <= gain(low) + 1e-9
    if name != "margin":  # it judges scores, so a win can fall short of what was expected
        assert gain(low) > 0


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@FAST
@given(values=four_ratings, game=st.sampled_from(["spades", "hearts"]))
def test_win_probabilities_are_chances_that_sum_to_one(name, values, game):
    system = SYSTEMS[name]
    p = system.win_probability(game, PLAYERS, ratings_of(values))
    assert len(p) == (2 if game == "spades" else 4)
    assert all(0 <= x <= 1 for x in p)
    assert sum(p) == pytest.approx(1)

"""The final-score model: ratings that learn from how much a side won by, not only whether."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.ratings import SYSTEMS, Departure, GameResult, Rating
from trickroom.ratings.margin import MARGIN, solve
from trickroom.ratings.refit import fitted_fields, refit
from trickroom.ratings.registry import with_constants


def spades(players: str, north_south: int, east_west: int, **kwargs: object) -> GameResult:
    return GameResult.of("spades", "margin", players,
                         (north_south, east_west, north_south, east_west), **kwargs)


def hearts(players: str, scores: tuple[int, int, int, int], **kwargs: object) -> GameResult:
    return GameResult.of("hearts", "margin", players, scores, **kwargs)


def newcomers(players: str = "ABCD") -> dict[str, Rating]:
    return {p: MARGIN.start_rating for p in players}


def after(result: GameResult, ratings: dict[str, Rating]) -> dict[str, Rating]:
    return {c.player: c.after for c in MARGIN.rate(result, ratings)}


def test_the_preset_is_in_the_registry_as_a_tuned_system():
    assert SYSTEMS["margin"] is MARGIN
    assert fitted_fields(MARGIN) == ("sigma", "luck", "spades_beta", "spades_par",
                                     "hearts_beta", "hearts_par")


def test_a_bigger_win_moves_the_ratings_more():
    close = after(spades("ABCD", 300, 260), newcomers())
    wide = after(spades("ABCD", 300, -150), newcomers())
    assert 0 < close["A"].value - 1500 < wide["A"].value - 1500
    assert wide["B"].value < close["B"].value


def test_a_score_is_judged_against_par_as_well_as_against_the_other_side():
    # Par is -42 a hand: a side that loses 450 to 500 in ten hands has still scored far above.
    new = after(spades("ABCD", 500, 450, hands=10), newcomers())
    assert new["B"].value > 1500 and new["A"].value > new["B"].value


def test_a_win_in_fewer_hands_is_the_wider_win():
    # 300 to 100 in four hands is 75 against 25 a hand; in twelve, 25 against 8.
    quick = after(spades("ABCD", 300, 100, hands=4), newcomers())
    slow = after(spades("ABCD", 300, 100, hands=12), newcomers())
    assert quick["A"].value - quick["B"].value > slow["A"].value - slow["B"].value > 0


def test_a_longer_game_at_the_same_pace_tells_more():
    # 60 against −20 a hand, over three hands or over ten: ten hands are more evidence.
    short = after(spades("ABCD", 180, -60, hands=3), newcomers())
    long = after(spades("ABCD", 600, -200, hands=10), newcomers())
    assert long["A"].sigma < short["A"].sigma
    assert long["A"].value > short["A"].value > 1500


def test_a_result_that_does_not_say_its_hands_is_read_over_a_typical_game():
    typical = round(MARGIN.spades_hands)
    assert after(spades("ABCD", 300, 100), newcomers()) == after(
        spades("ABCD", 300, 100, hands=typical), newcomers())


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(100, 3000), min_size=4, max_size=4),
       sigmas=st.lists(st.floats(20, 400), min_size=4, max_size=4),
       scores=st.lists(st.integers(-300, 600), min_size=2, max_size=2),
       more=st.integers(1, 400), kind=st.sampled_from(["spades", "hearts"]))
def test_a_better_own_score_never_costs_rating(values, sigmas, scores, more, kind):
    ratings = {p: Rating(v, s) for p, v, s in zip("ABCD", values, sigmas, strict=True)}
    if kind == "spades":
        worse, better = spades("ABCD", *scores), spades("ABCD", scores[0] + more, scores[1])
    else:
        rest = (40, 60, 90)
        worse = hearts("ABCD", (max(scores[0], 0) + more, *rest))
        better = hearts("ABCD", (max(scores[0], 0), *rest))
    assert after(better, ratings)["A"].value >= after(worse, ratings)["A"].value - 1e-9


def test_a_side_can_win_and_still_be_told_it_did_less_than_expected():
    ratings = {"A": Rating(1900, 60), "B": Rating(1300, 60), "C": Rating(1900, 60),
               "D": Rating(1300, 60)}
    assert MARGIN.win_probability("spades", "ABCD", ratings)[0] > 0.95
    new = after(spades("ABCD", 150, 140, hands=6), ratings)  # expected about 20 to −100 a hand
    assert new["A"].value < 1900 and new["B"].value > 1300


def test_the_update_is_the_exact_gaussian_posterior():
    # rho 0 decouples the sides: NS's score is par + points (xN + xS) + noise.
    system = replace(MARGIN, spades_rho=0.0)
    ratings = newcomers()
    result = replace(spades("ABCD", 300, 0, hands=6), system="margin")
    new = {c.player: c.after for c in system.rate(result, ratings)}
    p, s, b, par = system.spades_points, system.sigma, system.spades_beta, system.spades_par
    spread = 2 * p * p * s * s + b * b / 6  # the noise of a mean over six hands
    assert new["A"].value == pytest.approx(1500 + s * s * p * (300 / 6 - par) / spread)
    assert new["A"].sigma == pytest.approx(math.sqrt(s * s * (1 - s * s * p * p / spread)))


def test_certainty_grows_with_every_game():
    ratings = newcomers()
    for scores in ((300, 100), (100, 300), (250, 240)):
        new = after(spades("ABCD", *scores), ratings)
        assert all(new[p].sigma < ratings[p].sigma for p in "ABCD")
        ratings = new


def test_lopsided_games_rank_the_stronger_players_first_whoever_they_partner():
    ratings = newcomers("ABCDEFGH")
    strong = set("ACE")
    rng = random.Random(7)
    for _ in range(12):
        table = "".join(rng.sample("ABCDEFGH", 4))
        north_south = sum(p in strong for p in table[0::2])
        east_west = sum(p in strong for p in table[1::2])
        ratings.update(after(spades(table, 100 + 250 * north_south,
                                    100 + 250 * east_west, hands=5), ratings))
    order = sorted(ratings, key=lambda p: -ratings[p].value)
    assert set(order[:3]) == strong


def test_hearts_orders_and_spaces_the_players_by_their_scores():
    new = after(hearts("ABCD", (20, 45, 70, 101)), newcomers())
    assert new["A"].value > new["B"].value > 1500 > new["C"].value > new["D"].value
    near = after(hearts("ABCD", (60, 62, 64, 101)), newcomers())
    assert new["A"].value - new["B"].value > near["A"].value - near["B"].value


@pytest.mark.parametrize("kind", ["spades", "hearts"])
def test_chances_are_proper_and_favour_the_stronger(kind):
    ratings = {"A": Rating(1800, 100), "B": Rating(1400, 100), "C": Rating(1700, 200),
               "D": Rating(1500, 300)}
    chances = MARGIN.win_probability(kind, "ABCD", ratings)
    assert sum(chances) == pytest.approx(1.0) and all(0 < c < 1 for c in chances)
    assert chances[0] > chances[1]
    even = MARGIN.win_probability(kind, "ABCD", newcomers())
    assert even == pytest.approx((0.5,) * 2 if kind == "spades" else (0.25,) * 4)


def test_a_wider_luck_flattens_the_chances():
    ratings = {"A": Rating(1800, 100), "B": Rating(1400, 100), "C": Rating(1700, 100),
               "D": Rating(1500, 100)}
    sharp = MARGIN.win_probability("spades", "ABCD", ratings)[0]
    flat = replace(MARGIN, luck=2.0).win_probability("spades", "ABCD", ratings)[0]
    assert 0.5 < flat < sharp


def test_four_hundred_rating_points_are_about_ten_to_one():
    for kind in ("spades", "hearts"):
        assert 0.85 < MARGIN.elo_per_point(kind) < 1.2


def test_rating_is_deterministic():
    result = hearts("ABCD", (33, 58, 91, 104))
    assert MARGIN.rate(result, newcomers()) == MARGIN.rate(result, newcomers())


def test_a_quitter_loses_even_when_the_partner_and_robot_win():
    result = spades("ABCD", 520, 300, departures=[Departure("A", "quit", 3)])
    changes = {c.player: c for c in MARGIN.rate(result, newcomers())}
    assert changes["A"].delta < 0 < changes["C"].delta
    assert changes["A"].outcome == "loss" and changes["C"].outcome == "win"
    alone = {c.player: c for c in MARGIN.rate(spades("ABCD", 520, 300), newcomers())}
    assert alone["C"].after == changes["C"].after  # the partner is rated on the real game


def test_a_hearts_quitter_loses_rating_though_the_robot_finished_first():
    result = hearts("ABCD", (10, 40, 70, 101), departures=[Departure("A", "dropped", 2)])
    new = after(result, newcomers())
    assert new["A"].value < 1500 < after(hearts("ABCD", (10, 40, 70, 101)), newcomers())[
        "A"].value


def test_unfinished_games_and_robots_rate_no_one():
    for result in (spades("ABCD", 300, 100, completed=False, progress=0.6),
                   spades("ABCD", 300, 100, robots=[1])):
        assert all(not c.rated and c.delta == 0 for c in MARGIN.rate(result, newcomers()))


def test_the_breakdown_says_what_was_expected_and_the_model():
    change = MARGIN.rate(spades("ABCD", 480, 120, hands=8), newcomers())[0]
    words = [str(t) for t in change.breakdown]
    assert words[2] == "North–South finished on 480 in 8 hands (60 a hand); expected −42 a hand"
    assert words[3].startswith("final-score model: a side scores −42 a hand + 0.075 × (own")


def test_shown_is_conservative_and_bounded():
    assert MARGIN.shown(MARGIN.start_rating) == 1500
    assert MARGIN.shown(Rating(1600, 100)) == 1500 + (1600 - 100) - (1500 - MARGIN.sigma)
    assert MARGIN.shown(Rating(9000, 10)) == 3000 and MARGIN.shown(Rating(-900, 10)) == 0


def test_the_small_solver_solves():
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
    x = solve(a, [1.0, 2.0, 3.0])
    assert [sum(r * v for r, v in zip(row, x, strict=True)) for row in a] == pytest.approx(
        [1.0, 2.0, 3.0])


def test_a_room_s_par_may_be_negative_but_not_infinite():
    assert with_constants("margin", {"spades_par": -150}).spades_par == -150.0
    with pytest.raises(Exception, match="finite"):
        with_constants("margin", {"spades_par": math.inf})
    with pytest.raises(Exception, match="positive"):
        with_constants("margin", {"spades_beta": -1})


def synthetic_spades(par: float, games: int, seed: int) -> list[GameResult]:
    """Games drawn from the model itself, with known skills (averaging a newcomer's) and
    the given par."""
    rng = random.Random(seed)
    drawn = [rng.gauss(0.0, MARGIN.sigma) for _ in range(12)]
    skill = {f"p{i}": x - sum(drawn) / len(drawn) for i, x in enumerate(drawn)}
    out = []
    for _ in range(games):
        table = rng.sample(sorted(skill), 4)
        own = [skill[table[0]] + skill[table[2]], skill[table[1]] + skill[table[3]]]
        hands = rng.randint(3, 12)
        rates = [par + MARGIN.spades_points * (own[s] - MARGIN.spades_rho * own[1 - s])
                 + rng.gauss(0.0, MARGIN.spades_beta / math.sqrt(hands)) for s in (0, 1)]
        scores = [round(hands * r) for r in rates]
        out.append(GameResult.of("spades", "margin", table, (*scores, *scores), hands=hands))
    return out


def test_refit_finds_a_room_s_par_and_predicts_its_games_better():
    games = synthetic_spades(par=25.0, games=300, seed=3)
    fit = refit(MARGIN, games, rounds=1)
    assert fit.gain > 0
    assert fit.system.spades_par == pytest.approx(25.0, abs=4.0)
    assert fit.system.hearts_par == MARGIN.hearts_par  # a Spades room moves Spades' only
    assert fit.system.hearts_beta == MARGIN.hearts_beta

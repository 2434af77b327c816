"""The duplicate rating: each player scored against the field who held the same cards."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trickroom.ratings import Rating
from trickroom.ratings.duplicate import DUPLICATE, Duplicate, DuplicateResult, fit
from trickroom.ratings.errors import InvalidResult, MissingRating, PlayerInTwoSeats, WrongSystem
from trickroom.ratings.registry import DUPLICATE_SYSTEMS, duplicate_system_named


def spades(first: list[tuple[int, int]], second: list[tuple[int, int]],
           players: str = "ABCD") -> DuplicateResult:
    """Two tables of the same deals, each player one seat on at the second: the side that
    held North-South's cards at the first holds East-West's at the second. Points are
    (North-South, East-West) a deal."""
    moved = players[3] + players[:3]
    return DuplicateResult.of("spades", "duplicate", [
        (players, [(ns, ew, ns, ew) for ns, ew in first]),
        (moved, [(ns, ew, ns, ew) for ns, ew in second])])


def hearts(*tables: list[tuple[int, int, int, int]], players: str = "ABCD"
           ) -> DuplicateResult:
    """Four tables of the same deals, each player one seat on at each."""
    lineups = [players[-k:] + players[:-k] if k else players for k in range(len(tables))]
    return DuplicateResult.of("hearts", "duplicate", list(zip(lineups, tables, strict=True)))


def newcomers(players: str = "ABCD") -> dict[str, Rating]:
    return {p: DUPLICATE.start_rating for p in players}


PURE = replace(DUPLICATE, spades_cards=math.inf, hearts_cards=math.inf)
"""A pure duplicate: the cards' worth unknown, so only the tables' differences count."""


def moved(result: DuplicateResult, ratings: dict[str, Rating], system: Duplicate = DUPLICATE
          ) -> dict[str, float]:
    return {c.player: c.after.value - c.before.value for c in system.rate(result, ratings)}


def test_the_system_is_in_the_registry_by_name():
    assert DUPLICATE_SYSTEMS["duplicate"] is DUPLICATE is duplicate_system_named("duplicate")


def test_equal_players_on_equal_cards_move_nobody():
    # The same points with the same cards at both tables: nobody beat the field, and the
    # cards made par.
    par = DUPLICATE.spades_par
    result = spades([(par, par)] * 2, [(par, par)] * 2)
    assert moved(result, newcomers()) == pytest.approx(dict.fromkeys("ABCD", 0.0))
    # In a pure duplicate (the cards' worth unknown) whatever the cards made.
    result = spades([(60, 20), (-40, 31)], [(60, 20), (-40, 31)])
    assert moved(result, newcomers(), PURE) == pytest.approx(dict.fromkeys("ABCD", 0.0))
    # Each Hearts player held every seat's cards: the table's total says nothing of them.
    hands = [(0, 13, 4, 9)]
    assert moved(hearts(hands, hands, hands, hands), newcomers()) == pytest.approx(
        dict.fromkeys("ABCD", 0.0))


def test_a_side_that_outscores_the_field_with_the_same_cards_gains():
    # A and C made 10 over par with North-South's cards, where B and D made 10 under.
    par = DUPLICATE.spades_par
    result = spades([(par + 10, par)], [(par - 10, par)])
    delta = moved(result, newcomers())
    assert delta["A"] == delta["C"] > 0 > delta["B"] == delta["D"]
    assert delta["A"] == pytest.approx(-delta["B"])


def test_a_big_score_that_the_cards_gave_everyone_lifts_everyone_alike():
    # North-South's cards make 120 at both tables: the cards' luck, not A and C's skill;
    # the four made 10 a side a deal where par is below, which lifts all four alike.
    delta = moved(spades([(120, -100)], [(120, -100)]), newcomers())
    assert delta["A"] == pytest.approx(delta["B"]) and delta["A"] > 0
    assert moved(spades([(120, -100)], [(120, -100)]), newcomers(), PURE)["A"] == (
        pytest.approx(0))


def test_against_the_field_the_changes_at_a_table_of_equals_sum_to_zero():
    delta = moved(spades([(60, 20), (13, 50)], [(40, 20), (-100, 51)]), newcomers(), PURE)
    assert sum(delta.values()) == pytest.approx(0, abs=1e-9)
    # With the cards' worth a random effect the table's total against par moves all four
    # alike, so partners still move together and the sides apart by the same.
    delta = moved(spades([(60, 20), (13, 50)], [(40, 20), (-100, 51)]), newcomers())
    assert delta["A"] == pytest.approx(delta["C"]) and delta["B"] == pytest.approx(delta["D"])
    hearts_delta = moved(hearts([(0, 13, 4, 9)], [(3, 10, 4, 9)], [(0, 0, 26, 0)],
                                [(5, 5, 5, 11)]), newcomers())
    assert sum(hearts_delta.values()) == pytest.approx(0, abs=1e-9)


def test_fewer_hearts_points_with_the_same_cards_is_better():
    # A took 0 with seat 0's cards where each of the others took 3 with them; the three
    # points went to D at A's table, who took 8 with seat 3's cards where the others took 5.
    tables = [[(0, 9, 9, 8)], [(3, 9, 9, 5)], [(3, 9, 9, 5)], [(3, 9, 9, 5)]]
    assert hearts(*tables).margins("A") == (1.0,)
    delta = moved(hearts(*tables), newcomers())
    assert delta["A"] > 0 > delta["D"] and delta["A"] == max(delta.values())


@given(st.lists(st.tuples(st.integers(-200, 200), st.integers(-200, 200),
                          st.integers(-200, 200), st.integers(-200, 200)),
                min_size=1, max_size=6))
def test_swapping_the_sides_swaps_their_changes(deals):
    # Symmetry: B and D sit where A and C sat and score what they scored, and back.
    first = [(a, b) for a, b, _, _ in deals]
    second = [(c, d) for _, _, c, d in deals]
    one = moved(spades(first, second), newcomers())
    other = moved(spades(first, second, players="BCDA"), newcomers())
    assert other["B"] == pytest.approx(one["A"], abs=1e-9)
    assert other["A"] == pytest.approx(one["B"], abs=1e-9)
    pure = moved(spades(first, second), newcomers(), PURE)
    assert pure["A"] == pytest.approx(-pure["B"], abs=1e-9)


def test_the_prior_weighs_a_newcomer_s_evidence_against_a_known_player_s():
    known = {"A": Rating(1500, 50), "B": Rating(1500, 300), "C": Rating(1500, 300),
             "D": Rating(1500, 300)}
    delta = moved(spades([(60, 20)] * 3, [(40, 20)] * 3), known)
    assert 0 < delta["A"] < delta["C"]
    changes = DUPLICATE.rate(spades([(60, 20)] * 3, [(40, 20)] * 3), known)
    assert all(c.after.sigma < known[c.player].sigma for c in changes)


def test_more_deals_are_more_evidence():
    one = moved(spades([(60, 20)], [(40, 20)]), newcomers())
    ten = moved(spades([(60, 20)] * 10, [(40, 20)] * 10), newcomers())
    assert ten["A"] > one["A"] > 0


def test_only_the_deals_every_table_reached_are_compared():
    # The second game ended after one deal: the first table's second deal is not compared.
    short = spades([(60, 20), (500, -500)], [(40, 20)])
    assert short.deals == 1 and short.margins("A") == (10.0,)
    assert moved(short, newcomers()) == moved(spades([(60, 20)], [(40, 20)]), newcomers())


def test_the_forecast_favours_the_stronger_side_with_a_spread():
    ratings = {"A": Rating(1800, 50), "B": Rating(1400, 50), "C": Rating(1800, 50),
               "D": Rating(1400, 50)}
    f = DUPLICATE.forecast("spades", ["ABCD", "DABC"], ratings)
    assert f["A"].mean == pytest.approx(-f["B"].mean) and f["A"].mean > 0
    assert f["A"].chance == pytest.approx(1 - f["B"].chance) and f["A"].chance > 0.5
    assert f["A"].chance == pytest.approx(0.5 * math.erfc(-f["A"].mean / f["A"].sd / 2 ** 0.5))


def test_the_review_says_what_the_deals_showed_and_the_model():
    par = DUPLICATE.spades_par
    change = DUPLICATE.rate(spades([(par + 10, par), (par, par)], [(par - 10, par), (par, par)]),
                            newcomers())[0]
    texts = [t.text for t in change.breakdown]
    assert texts[0] == "skill 1500 ± 300 before"
    assert texts[1].startswith("expected 0 ± ")
    assert texts[2] == ("+5 a deal against the field over 2 deals at 2 of 2 tables "
                        "(beat it on 1, level on 1)")
    assert texts[3].startswith("duplicate model: ")
    assert texts[4].startswith("skill 15") and change.outcome == "win"


@pytest.mark.parametrize(("build", "error"), [
    (lambda: DuplicateResult.of("spades", "duplicate", [("ABCD", [(1, 2, 1, 2)])]),
     InvalidResult),
    (lambda: DuplicateResult.of("spades", "duplicate", [("ABCD", [(1, 2, 3, 2)]),
                                                        ("DABC", [(1, 2, 1, 2)])]),
     InvalidResult),
    (lambda: DuplicateResult.of("hearts", "duplicate", [("ABCA", [(1, 2, 3, 20)]),
                                                        ("DABC", [(1, 2, 3, 20)])]),
     PlayerInTwoSeats),
    (lambda: DuplicateResult.of("bridge", "duplicate", [("ABCD", []), ("DABC", [])]),  # type: ignore[arg-type]
     InvalidResult),
])
def test_a_result_that_contradicts_itself_is_refused(build, error):
    with pytest.raises(error):
        build()


def test_a_result_for_another_system_or_without_ratings_is_refused():
    result = spades([(60, 20)], [(40, 20)])
    with pytest.raises(WrongSystem):
        DUPLICATE.rate(DuplicateResult("spades", "margin", result.tables), newcomers())
    with pytest.raises(MissingRating, match="'D'"):
        DUPLICATE.rate(result, newcomers("ABC"))


def test_the_noise_and_the_cards_spread_are_learned_from_the_deals():
    # Equal players whose points on the same cards differ by a normal spread of 30, the
    # cards being worth 10 ± 80.
    rng = random.Random(3)
    results = []
    for _ in range(60):
        value = [(rng.gauss(10, 80), rng.gauss(10, 80)) for _ in range(5)]
        first = [(round(ns + rng.gauss(0, 30)), round(ew + rng.gauss(0, 30)))
                 for ns, ew in value]
        second = [(round(ns + rng.gauss(0, 30)), round(ew + rng.gauss(0, 30)))
                  for ns, ew in value]
        results.append(spades(first, second, players="".join(rng.sample("ABCDEFGH", 4))))
    learned = fit(DUPLICATE, "spades", results)
    assert learned.spades_beta == pytest.approx(30, rel=0.15)
    assert learned.spades_cards == pytest.approx(80, rel=0.15)
    assert learned.spades_par == pytest.approx(10, abs=10)


def test_a_player_who_held_the_same_cards_at_every_table_is_their_own_field():
    result = DuplicateResult.of("hearts", "duplicate", [
        ("ABCD", [(0, 13, 4, 9)]), ("AEFG", [(3, 10, 4, 9)])])
    assert result.margins("A") == (0.0,)
    assert DUPLICATE.forecast("hearts", ["ABCD", "AEFG"], newcomers("ABCDEFG"))["A"].chance == 0.5
    assert len(DUPLICATE.rate(result, newcomers("ABCDEFG"))) == 7
    # Against the field alone: E took 3 fewer with seat 1's cards than B did.
    delta = moved(result, newcomers("ABCDEFG"), PURE)
    assert delta["B"] < 0 < delta["E"] and delta["A"] == pytest.approx(0)

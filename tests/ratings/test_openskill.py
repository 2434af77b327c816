"""Weng-Lin through openskill: teams for Spades, the finishing order for Hearts."""

from __future__ import annotations

import pytest

from tests.ratings.helpers import deltas, hearts, spades, texts
from trickroom.ratings import Departure, Rating, WengLin
from trickroom.ratings.openskill_system import OPENSKILL

NEW = {p: OPENSKILL.start_rating for p in "ABCD"}


def test_it_starts_at_openskills_defaults_times_60():
    assert OPENSKILL.start_rating == Rating(1500, 500)
    assert (OPENSKILL.beta, OPENSKILL.tau) == (250, 5)


def test_winners_gain_losers_lose_and_everyone_grows_surer():
    changes = OPENSKILL.rate(spades("openskill", "ABCD", "NS"), NEW)
    d = deltas(changes)
    assert d["A"] > 0 and d["C"] > 0 and d["B"] < 0 and d["D"] < 0
    assert d["A"] == pytest.approx(-d["B"])
    assert all(c.after.sigma < c.before.sigma for c in changes)


def test_a_well_known_player_moves_less_than_a_new_one():
    ratings = {**NEW, "A": Rating(1500, 100)}
    d = deltas(OPENSKILL.rate(spades("openskill", "ABCD", "NS"), ratings))
    assert 0 < d["A"] < d["C"]


def test_hearts_rates_the_finishing_order():
    d = deltas(OPENSKILL.rate(hearts("openskill", {"A": 25, "B": 50, "C": 50, "D": 100}), NEW))
    assert d["A"] > d["B"] > d["D"]
    assert d["B"] == pytest.approx(d["C"])


def test_a_quitter_is_ranked_last_even_when_the_partner_wins():
    r = spades("openskill", "ABCD", "EW", departures=[Departure("D", "quit", 3)])
    changes = {c.player: c for c in OPENSKILL.rate(r, NEW)}
    assert changes["D"].delta < 0 < changes["B"].delta
    assert changes["D"].outcome == "loss"
    assert "left before the end: ranked last" in texts(changes["D"])


def test_the_breakdown_shows_skill_chance_and_model():
    a = texts(OPENSKILL.rate(spades("openskill", "ABCD", "NS"), NEW)[0])
    assert a[0] == "skill 1500 ± 500 before"
    assert a[1] == "chance of winning 0.5 before the game"
    assert a[2] == "North–South won"
    assert a[3].startswith("Weng-Lin (Plackett-Luce), beta 250")


def test_win_probability_favours_the_stronger_side():
    ratings = {**NEW, "A": Rating(1800, 200), "C": Rating(1700, 200)}
    ns, ew = OPENSKILL.win_probability("spades", "ABCD", ratings)
    assert ns > 0.5 and ns + ew == pytest.approx(1)
    four = OPENSKILL.win_probability("hearts", "ABCD", ratings)
    assert sum(four) == pytest.approx(1) and max(four) == four[0]


def test_an_unfinished_game_rates_no_one():
    r = spades("openskill", "ABCD", "NS", completed=False, progress=0.3)
    assert not any(c.rated for c in OPENSKILL.rate(r, NEW))


def test_other_models_are_available_as_presets():
    tm = WengLin(name="openskill", model="thurstone_mosteller")
    assert deltas(tm.rate(spades("openskill", "ABCD", "NS"), NEW))["A"] > 0


@pytest.mark.parametrize("model", ["plackett_luce", "thurstone_mosteller", "bradley_terry"])
def test_luck_widens_the_predictions_and_not_the_update(model):
    """``luck`` is the spread of a prediction over the update's: 1 is openskill's own rule,
    more is flatter, in both games; the ratings move the same."""
    ratings = {"A": Rating(1900, 200), "B": Rating(1400, 300), "C": Rating(1700, 250),
               "D": Rating(1500, 400)}
    plain = WengLin(model=model, beta=800.0)
    lucky = WengLin(model=model, beta=800.0, luck=1.5)
    skills = [plain._skill(ratings[p]) for p in "ABCD"]
    openskill_own = float(plain._model.predict_win([[skills[0], skills[2]],
                                                    [skills[1], skills[3]]])[0])
    assert plain.win_probability("spades", "ABCD", ratings)[0] == pytest.approx(openskill_own)
    assert WengLin(model=model, beta=800.0, luck=1.0 + 1e-9).win_probability(
        "spades", "ABCD", ratings)[0] == pytest.approx(openskill_own, abs=1e-6)
    assert 0.5 < lucky.win_probability("spades", "ABCD", ratings)[0] < openskill_own
    favourite = plain.win_probability("hearts", "ABCD", ratings)[0]
    assert 0.25 < lucky.win_probability("hearts", "ABCD", ratings)[0] < favourite
    result = hearts(plain.name, {"A": 20, "B": 40, "C": 60, "D": 100})
    assert lucky.rate(result, ratings)[0].after == plain.rate(result, ratings)[0].after

"""The Zone's rated Spades and Hearts rooms, checked against seed pages 000 and 002."""

from __future__ import annotations

from typing import ClassVar

import pytest

from tests.ratings.helpers import at, deltas, hearts, spades, texts
from trickroom.ratings import Departure, Rating
from trickroom.ratings.zone import ZONE, Zone


def spades_change(player_rating: float, opponents: tuple[float, float], winners: str,
                  partner: float = 1600.0):
    """A's change when A (and partner C) meet B and D rated ``opponents``."""
    ratings = at(A=player_rating, B=opponents[0], C=partner, D=opponents[1])
    return next(c for c in ZONE.rate(spades("zone", "ABCD", winners), ratings)
                if c.player == "A")


def test_the_constants_are_the_pages():
    assert (ZONE.start, ZONE.floor, ZONE.step, ZONE.spread, ZONE.minimum) == (
        1600, 100, 16, 400, 1)
    assert ZONE.start_rating == Rating(1600)


class TestSpadesFormula:
    """R2 is the average of the two opponents; f = clamp((R2 - R1) / 400, -1, 1)."""

    def test_equal_ratings_win_16_and_lose_16(self):
        assert spades_change(1600, (1600, 1600), "NS").delta == 16
        assert spades_change(1600, (1600, 1600), "EW").delta == -16

    def test_opponents_are_averaged(self):
        # R2 = (1700 + 1500) / 2 = 1600: the same as meeting two 1600s.
        assert spades_change(1600, (1700, 1500), "NS").delta == 16
        assert "opponents' average 1600 (B 1700, D 1500)" in texts(
            spades_change(1600, (1700, 1500), "NS"))

    def test_beating_opponents_400_above_gives_the_maximum_32(self):
        assert spades_change(1200, (1600, 1600), "NS").delta == 32

    def test_more_than_400_above_still_gives_32(self):
        change = spades_change(1000, (1700, 1700), "NS")
        assert change.delta == 32
        assert any("clamped to 1" in t for t in texts(change))

    def test_a_win_against_much_weaker_opponents_gains_the_minimum_one_point(self):
        change = spades_change(2000, (1500, 1500), "NS")
        assert change.delta == 1
        assert any("minimum of 1 point applied" in t for t in texts(change))

    def test_a_loss_to_much_weaker_opponents_costs_32(self):
        assert spades_change(2000, (1600, 1600), "EW").delta == -32

    def test_a_loss_to_much_stronger_opponents_costs_the_minimum_one_point(self):
        change = spades_change(1200, (1600, 1700), "EW")
        assert change.delta == -1

    def test_a_partial_gap_is_linear(self):
        # f = (1700 - 1600) / 400 = 0.25: win +20, loss -12, tie +4.
        assert spades_change(1600, (1700, 1700), "NS").delta == 20
        assert spades_change(1600, (1700, 1700), "EW").delta == -12
        assert spades_change(1600, (1700, 1700), "tie", partner=1600).delta == 4

    def test_a_tie_between_equals_changes_nothing(self):
        assert spades_change(1600, (1600, 1600), "tie").delta == 0

    def test_a_tie_against_weaker_opponents_costs_points(self):
        assert spades_change(1600, (1500, 1500), "tie").delta == -4


class TestFloor:
    """The rating program never drops a rating below 100."""

    def test_a_loss_at_the_floor_stays_at_100(self):
        change = spades_change(100, (100, 100), "EW")
        assert change.after.value == 100
        assert "floor 100 applied" in texts(change)

    def test_a_loss_just_above_the_floor_stops_at_100(self):
        assert spades_change(110, (110, 110), "EW").after.value == 100

    def test_a_win_at_the_floor_gains_as_usual(self):
        assert spades_change(100, (100, 100), "NS").after.value == 116


class TestHeartsExample:
    """Seed 002: A 25, B 50, C 50, D 100 points; each opponent rated separately, then averaged."""

    scores: ClassVar[dict[str, int]] = {"A": 25, "B": 50, "C": 50, "D": 100}

    def changes(self, ratings):
        return {c.player: c for c in ZONE.rate(hearts("zone", self.scores), ratings)}

    def test_all_equal_ratings(self):
        d = deltas(ZONE.rate(hearts("zone", self.scores), at(A=1600, B=1600, C=1600, D=1600)))
        # A wins three (+16 each); B and C lose to A, tie, beat D; D loses three.
        assert d == {"A": 16, "B": 0, "C": 0, "D": -16}

    def test_each_players_three_results(self):
        ratings = at(A=1500, B=1700, C=1600, D=1600)
        c = self.changes(ratings)
        # A wins over B (f 0.5: +24), C (f 0.25: +20), D (+20): (1524 + 1520 + 1520) / 3.
        assert c["A"].after.value == pytest.approx((1524 + 1520 + 1520) / 3)
        # B loses to A (f -0.5: -24), ties C (f -0.25: -4), beats D (f -0.25: +12).
        assert c["B"].after.value == pytest.approx((1676 + 1696 + 1712) / 3)
        # C loses to A (f -0.25: -20), ties B (f 0.25: +4), beats D (f 0: +16).
        assert c["C"].after.value == pytest.approx((1580 + 1604 + 1616) / 3)
        # D loses to A (-20), B (f 0.25: -12) and C (f 0: -16).
        assert c["D"].after.value == pytest.approx((1580 + 1588 + 1584) / 3)

    def test_the_breakdown_lists_each_opponent_then_the_average(self):
        b = texts(self.changes(at(A=1500, B=1700, C=1600, D=1600))["B"])
        assert b[1].startswith("against A 1500:") and "lost" in b[1] and b[1].endswith("1676")
        assert b[2].startswith("against C 1600:") and "tied" in b[2] and b[2].endswith("1696")
        assert b[3].startswith("against D 1600:") and "won" in b[3] and b[3].endswith("1712")
        assert b[4] == "average of the three: (1676 + 1696 + 1712) / 3 = 1694.67"

    def test_outcomes_for_the_stats(self):
        c = self.changes(at(A=1600, B=1600, C=1600, D=1600))
        assert [c[p].outcome for p in "ABCD"] == ["win", "loss", "loss", "loss"]

    def test_the_floor_applies_to_the_average(self):
        # Far below everyone, D loses the minimum one point to each: 100 would become 99.
        c = self.changes(at(A=1600, B=1600, C=1600, D=100))
        assert c["D"].after.value == 100
        assert "floor 100 applied" in texts(c["D"])
        assert self.changes(at(A=1600, B=1600, C=1600, D=105))["D"].after.value == 104


class TestUnratedGames:
    def test_a_robot_seated_at_the_start_makes_the_game_unrated(self):
        r = spades("zone", "ABCD", "NS", robots=[3])
        changes = ZONE.rate(r, at(A=1600, B=1600, C=1600))
        assert [c.player for c in changes] == ["A", "B", "C"]
        assert not any(c.rated for c in changes)
        assert all(c.delta == 0 for c in changes)
        assert "not rated: a robot was seated at the start (seat 3)" in texts(changes[0])

    def test_dont_wait_leaves_the_remaining_players_unrated(self):
        r = spades("zone", "ABCD", "NS", departures=[Departure("D", "dropped", 3, "dont_wait")])
        changes = {c.player: c for c in ZONE.rate(r, at(A=1600, B=1600, C=1600, D=1600))}
        assert not any(c.rated for c in changes.values())
        assert "not rated: D left and the table voted Don't wait" in texts(changes["A"])

    def test_the_leaver_is_charged_an_incomplete_game(self):
        r = spades("zone", "ABCD", "NS", departures=[Departure("D", "dropped", 3, "dont_wait")])
        d = next(c for c in ZONE.rate(r, at(A=1600, B=1600, C=1600, D=1600)) if c.player == "D")
        assert not d.rated
        assert "not rated: left before the end: charged an incomplete game" in texts(d)


class TestWinProbability:
    """Zone's expectation is linear: a win pays 16(1+f), a loss 16(1-f); even at (1-f)/2."""

    def test_equal_sides_are_even(self):
        assert ZONE.win_probability("spades", "ABCD", at(A=1600, B=1600, C=1600, D=1600)) == (
            0.5, 0.5)

    def test_linear_in_the_gap_and_certain_at_400(self):
        p = ZONE.win_probability("spades", "ABCD", at(A=1700, B=1600, C=1700, D=1600))
        assert p[0] == pytest.approx(0.625)
        assert ZONE.win_probability("spades", "ABCD",
                                    at(A=2000, B=1600, C=2000, D=1600))[0] == 1.0

    def test_break_even(self):
        f = 0.25
        p = ZONE.pair_probability(1600, 1700)
        assert p * 16 * (1 + f) + (1 - p) * 16 * (-1 + f) == pytest.approx(0)


def test_a_tuned_step_is_its_own_preset():
    tuned = Zone(name="zone_tuned", step=4)
    r = spades("zone_tuned", "ABCD", "NS")
    assert deltas(tuned.rate(r, at(A=1600, B=1600, C=1600, D=1600)))["A"] == 4

"""Zero-sum ranking points, checked against seed pages 003 (en) and 004 (el)."""

from __future__ import annotations

import pytest

from tests.ratings.helpers import at, deltas, hearts, spades, texts
from trickroom.ratings import Departure
from trickroom.ratings.points import POINTS_EL, POINTS_EN

EVEN = at(A=1500, B=1500, C=1500, D=1500)


class TestFormula:
    """Points = ½ × Randomness × Completion × Odds."""

    def test_a_complete_random_queue_game_between_equal_teams_gives_16(self):
        d = deltas(POINTS_EN.rate(spades("points_en", "ABCD", "NS"), EVEN))
        assert d == {"A": 16, "B": -16, "C": 16, "D": -16}

    def test_the_breakdown_names_each_factor(self):
        a = texts(POINTS_EN.rate(spades("points_en", "ABCD", "NS"), EVEN)[0])
        assert "Randomness 8 (random queue)" in a
        assert "Completion 4 (complete game)" in a
        assert "Odds 10^((1500 − 1500) / 800) = 1" in a
        assert "Points = ½ × 8 × 4 × 1 = 16" in a
        assert "won: 16 = +16" in a

    @pytest.mark.parametrize(("seating", "points"), [
        ("random_queue", 16), ("random_seating", 4), ("fixed_seating", 2)])
    def test_randomness_8_2_1(self, seating, points):
        r = spades("points_en", "ABCD", "NS", seating=seating)
        assert deltas(POINTS_EN.rate(r, EVEN))["A"] == points

    @pytest.mark.parametrize(("progress", "en", "el"), [
        (0.9, 12, 8),   # past half: Completion 3 (en), 2 (el)
        (0.51, 12, 8),
        (0.5, 8, 4),    # half or less: 2 (en), 1 (el)
        (0.3, 8, 4),
        (0.2, 8, 4),    # under a quarter: 2 (en), 1 (el)
    ])
    def test_completion_of_an_incomplete_game(self, progress, en, el):
        r = spades("points_en", "ABCD", "NS", completed=False, progress=progress)
        assert deltas(POINTS_EN.rate(r, EVEN))["A"] == en
        r = spades("points_el", "ABCD", "NS", completed=False, progress=progress)
        assert deltas(POINTS_EL.rate(r, EVEN))["A"] == el

    def test_under_a_quarter_is_named_in_the_breakdown(self):
        r = spades("points_el", "ABCD", "NS", completed=False, progress=0.2)
        assert "Completion 1 (incomplete, 20% of the target: under a quarter)" in (
            texts(POINTS_EL.rate(r, EVEN)[0]))

    def test_odds_reward_an_upset(self):
        # Winners 1400 against losers 1600: Odds 10^(200/800) = 1.778.
        r = spades("points_en", "ABCD", "NS")
        d = deltas(POINTS_EN.rate(r, at(A=1400, B=1600, C=1400, D=1600)))
        assert d["A"] == pytest.approx(16 * 10 ** 0.25)
        assert d["B"] == pytest.approx(-16 * 10 ** 0.25)

    def test_odds_are_clamped_to_half_and_two_in_en(self):
        upset = at(A=1000, B=2000, C=1000, D=2000)
        assert deltas(POINTS_EN.rate(spades("points_en", "ABCD", "NS"), upset))["A"] == 32
        assert deltas(POINTS_EN.rate(spades("points_en", "ABCD", "EW"), upset))["B"] == 8

    def test_odds_are_clamped_to_a_quarter_and_four_in_el(self):
        upset = at(A=1000, B=2000, C=1000, D=2000)
        assert deltas(POINTS_EL.rate(spades("points_el", "ABCD", "NS"), upset))["A"] == 64
        assert deltas(POINTS_EL.rate(spades("points_el", "ABCD", "EW"), upset))["B"] == 4

    def test_equal_scores_exchange_nothing(self):
        r = spades("points_en", "ABCD", "tie", completed=False, progress=0.4)
        changes = POINTS_EN.rate(r, EVEN)
        assert all(c.delta == 0 and c.outcome == "tie" for c in changes)


class TestDisconnection:
    """The robot plays to the end of the hand; the game is ranked with the table's multipliers."""

    def test_the_disconnected_players_side_lost(self):
        # Seed example 1, a game worth 16: -24, -8, +16, +16.
        r = spades("points_en", "ABCD", "NS", departures=[Departure("B", "dropped", 3)])
        d = deltas(POINTS_EN.rate(r, EVEN))
        assert (d["B"], d["D"], d["A"], d["C"]) == (-24, -8, 16, 16)

    def test_the_disconnected_players_side_won(self):
        # Seed example 2, a game worth 16: 0, +8, -4, -4.
        r = spades("points_en", "ABCD", "EW", departures=[Departure("B", "dropped", 3)])
        d = deltas(POINTS_EN.rate(r, EVEN))
        assert (d["B"], d["D"], d["A"], d["C"]) == (0, 8, -4, -4)

    def test_the_player_responsible_for_the_first_disconnection_is_charged(self):
        r = spades("points_en", "ABCD", "NS", first_disconnect="D",
                   departures=[Departure("B", "dropped", 3), Departure("D", "dropped", 3)])
        d = deltas(POINTS_EN.rate(r, EVEN))
        assert (d["D"], d["B"]) == (-24, -8)

    def test_the_breakdown_explains_the_multiplier(self):
        r = spades("points_en", "ABCD", "NS", departures=[Departure("B", "dropped", 3)])
        b = next(c for c in POINTS_EN.rate(r, EVEN) if c.player == "B")
        assert "disconnected first, side lost: −1½ × 16 = −24" in texts(b)

    def test_an_incomplete_game_after_a_disconnection_is_still_zero_sum(self):
        r = spades("points_el", "ABCD", "EW", completed=False, progress=0.7,
                   departures=[Departure("A", "dropped", 3)])
        d = deltas(POINTS_EL.rate(r, at(A=1520, B=1480, C=1610, D=1390)))
        assert sum(d.values()) == pytest.approx(0)


class TestHearts:
    """Each pair is a match worth a third of Points; lower score wins; equal exchanges nothing."""

    def test_each_pair_is_a_third_of_points(self):
        d = deltas(POINTS_EN.rate(hearts("points_en", {"A": 25, "B": 50, "C": 50, "D": 100}),
                                  EVEN))
        third = 16 / 3
        assert d["A"] == pytest.approx(3 * third)
        assert d["B"] == pytest.approx(-third + 0 + third)
        assert d["D"] == pytest.approx(-3 * third)
        assert sum(d.values()) == pytest.approx(0)

    def test_a_disconnected_winner_earns_nothing_from_its_matches(self):
        r = hearts("points_en", {"A": 25, "B": 50, "C": 60, "D": 100},
                   departures=[Departure("A", "dropped", 4)], completed=False, progress=1.0)
        d = deltas(POINTS_EN.rate(r, EVEN))
        assert d["A"] == 0
        assert sum(d.values()) == pytest.approx(0)


class TestWinProbability:
    """Odds make the expected change zero for correctly rated teams."""

    def test_equal_teams_are_even(self):
        assert POINTS_EN.win_probability("spades", "ABCD", EVEN) == (0.5, 0.5)

    def test_expected_change_is_zero_at_the_stated_chance(self):
        ratings = at(A=1600, B=1450, C=1550, D=1500)
        p, _ = POINTS_EN.win_probability("spades", "ABCD", ratings)
        win = deltas(POINTS_EN.rate(spades("points_en", "ABCD", "NS"), ratings))["A"]
        loss = deltas(POINTS_EN.rate(spades("points_en", "ABCD", "EW"), ratings))["A"]
        assert p * win + (1 - p) * loss == pytest.approx(0)

    def test_unclamped_it_is_elos_logistic_curve(self):
        p, _ = POINTS_EL.win_probability("spades", "ABCD", at(A=1600, B=1500, C=1600, D=1500))
        assert p == pytest.approx(1 / (1 + 10 ** (-100 / 400)))

    def test_the_clamp_caps_the_chance(self):
        p, _ = POINTS_EN.win_probability("spades", "ABCD", at(A=2500, B=1500, C=2500, D=1500))
        assert p == pytest.approx(0.8)


def test_a_robot_at_the_start_makes_the_game_unrated():
    r = spades("points_en", "ABCD", "NS", robots=[1])
    assert not any(c.rated for c in POINTS_EN.rate(r, at(A=1500, C=1500, D=1500)))

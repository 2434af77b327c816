"""World of Card Games ranked Spades and Hearts, checked against seed page 001."""

from __future__ import annotations

import pytest

from tests.ratings.helpers import at, deltas, hearts, spades, texts
from trickroom.ratings import Departure, Rating, expected, tournament
from trickroom.ratings.wocg import WOCG, Wocg, skill_ratio


def test_the_constants_are_the_pages():
    assert (WOCG.name, WOCG.start, WOCG.k) == ("wocg", 1500, 25)
    assert WOCG.start_rating == Rating(1500)


class TestChessExample:
    """Wikipedia's five-round tournament, quoted on the page: 1613 to 1601 at K 32."""

    games = ((1609, 0), (1477, 0.5), (1388, 1), (1586, 1), (1720, 0))

    def test_each_expected_score(self):
        assert [round(expected(1613, r), 3) for r, _ in self.games] == pytest.approx(
            [0.506, 0.686, 0.785, 0.539, 0.351], abs=0.0011)

    def test_expected_total_is_2_867(self):
        assert sum(expected(1613, r) for r, _ in self.games) == pytest.approx(2.867, abs=5e-4)

    def test_new_rating_is_1601(self):
        assert round(tournament(1613, self.games, k=32)) == 1601


class TestTeamExample:
    """A 1512 and C 1484 beat B 1562 and D 1417: A expects 1.02 and rises to 1536."""

    ratings = at(A=1512, B=1562, C=1484, D=1417)

    def changes(self):
        return {c.player: c for c in WOCG.rate(spades("wocg", "ABCD", "NS"), self.ratings)}

    def test_a_rises_to_1536(self):
        assert round(self.changes()["A"].after.value) == 1536

    def test_expected_is_two_matches_of_the_team_averages(self):
        single = 1 / (1 + 10 ** ((1489.5 - 1498) / 400))
        a = self.changes()["A"]
        assert a.after.value == pytest.approx(1512 + 25 * (2 - 2 * single))
        assert 2 * single == pytest.approx(1.024, abs=5e-4)

    def test_breakdown_shows_the_calculation(self):
        a = texts(self.changes()["A"])
        assert "team average 1498 (A 1512, C 1484)" in a
        assert "opponents' average 1489.5 (B 1562, D 1417)" in a
        assert any(t.startswith("expected 1.02 against B and D") for t in a)
        assert "actual 2: beat B, beat D" in a
        assert "K 25" in a
        assert a.index("K 25") < a.index("new rating 1536.39")

    def test_partners_move_together_and_the_game_is_zero_sum(self):
        d = deltas(WOCG.rate(spades("wocg", "ABCD", "NS"), self.ratings))
        assert d["A"] == pytest.approx(d["C"])
        assert d["B"] == pytest.approx(d["D"])
        assert sum(d.values()) == pytest.approx(0)

    def test_outcomes_are_counted_per_side(self):
        assert {p: c.outcome for p, c in self.changes().items()} == {
            "A": "win", "B": "loss", "C": "win", "D": "loss"}


class TestQuitterExample:
    """Mary and Sue against John and Peter, all 1500. Peter quits; John goes on to win."""

    players = ("Mary", "John", "Sue", "Peter")
    start = at(Mary=1500, John=1500, Sue=1500, Peter=1500)
    result = spades("wocg", players, "EW", departures=[Departure("Peter", "quit", hand=4)])

    def test_peter_is_rated_at_once_1500_to_1475(self):
        change = WOCG.rate_quit(self.result, self.start, "Peter")
        assert change is not None
        assert change.after.value == 1475
        assert change.outcome == "loss"
        assert "25 × (0 − 1) = −25" in texts(change)

    def test_mary_and_sue_stay_at_1500(self):
        d = deltas(WOCG.rate(self.result, self.start))
        assert d["Mary"] == 0 and d["Sue"] == 0

    def test_mary_beat_peter_and_lost_to_john(self):
        mary = next(c for c in WOCG.rate(self.result, self.start) if c.player == "Mary")
        assert "actual 1: lost to John, beat Peter (quit)" in texts(mary)
        assert mary.outcome == "loss"

    def test_john_is_rated_on_the_real_result(self):
        d = deltas(WOCG.rate(self.result, self.start))
        assert d["John"] == 25

    def test_the_quitter_is_not_rated_again_at_the_end(self):
        assert "Peter" not in deltas(WOCG.rate(self.result, self.start))

    def test_an_unfinished_game_leaves_the_others_unrated(self):
        unfinished = spades("wocg", self.players, "EW", completed=False, progress=0.5,
                            departures=[Departure("Peter", "quit")])
        changes = WOCG.rate(unfinished, self.start)
        assert [c.rated for c in changes] == [False, False, False]


class TestHearts:
    """Pairwise Elo against each other player by final score; a quitter loses to all."""

    def test_pairwise_against_each_player(self):
        r = hearts("wocg", {"A": 25, "B": 50, "C": 50, "D": 100})
        ratings = at(A=1500, B=1600, C=1500, D=1400)
        a = next(c for c in WOCG.rate(r, ratings) if c.player == "A")
        e = expected(1500, 1600) + expected(1500, 1500) + expected(1500, 1400)
        assert a.delta == pytest.approx(25 * (3 - e))

    def test_equal_scores_are_draws_and_changes_sum_to_zero(self):
        r = hearts("wocg", {"A": 25, "B": 50, "C": 50, "D": 100})
        ratings = at(A=1500, B=1600, C=1500, D=1400)
        d = deltas(WOCG.rate(r, ratings))
        b_expected = expected(1600, 1500) * 2 + expected(1600, 1400)
        assert d["B"] == pytest.approx(25 * (1.5 - b_expected))
        assert sum(d.values()) == pytest.approx(0)

    def test_a_quitter_loses_to_every_remaining_player(self):
        r = hearts("wocg", {"A": 10, "B": 50, "C": 60, "D": 100},
                   departures=[Departure("A", "quit", hand=2)])
        change = WOCG.rate_quit(r, at(A=1500, B=1500, C=1500, D=1500), "A")
        assert change is not None
        assert change.delta == pytest.approx(25 * (0 - 1.5))

    def test_a_second_quitter_loses_only_to_those_still_seated(self):
        r = hearts("wocg", {"A": 10, "B": 50, "C": 60, "D": 100},
                   departures=[Departure("A", "quit", 2), Departure("B", "dropped", 3)])
        change = WOCG.rate_quit(r, at(A=1500, B=1500, C=1500, D=1500), "B")
        assert change is not None
        assert change.delta == pytest.approx(25 * (0 - 1.0))

    def test_the_others_count_the_quitter_as_beaten(self):
        r = hearts("wocg", {"A": 10, "B": 50, "C": 60, "D": 100},
                   departures=[Departure("A", "quit", 2)])
        d = deltas(WOCG.rate(r, at(A=1500, B=1500, C=1500, D=1500)))
        assert set(d) == {"B", "C", "D"}
        assert d["D"] == pytest.approx(25 * (1 - 1.5))  # beat A, lost to B and C


class TestWinProbability:
    def test_spades_uses_the_team_averages(self):
        ns, ew = WOCG.win_probability("spades", "ABCD", at(A=1512, B=1562, C=1484, D=1417))
        assert ns == pytest.approx(expected(1498, 1489.5))
        assert ns + ew == pytest.approx(1)

    def test_hearts_chances_sum_to_one_and_follow_the_ratings(self):
        p = WOCG.win_probability("hearts", "ABCD", at(A=1700, B=1500, C=1500, D=1300))
        assert sum(p) == pytest.approx(1)
        assert p[0] > p[1] > p[3]
        assert p[1] == pytest.approx(p[2])


class TestSkillRatio:
    """Opponents' nil bids set, over opponents' nil bids faced."""

    def test_three_set_of_four_faced(self):
        assert skill_ratio(3, 4) == 0.75

    def test_undefined_before_facing_a_nil(self):
        assert skill_ratio(0, 0) is None


def test_a_tuned_k_is_its_own_preset():
    tuned = Wocg(name="wocg_tuned", k=8)
    r = spades("wocg_tuned", "ABCD", "NS")
    assert deltas(tuned.rate(r, at(A=1500, B=1500, C=1500, D=1500)))["A"] == 8
    assert WOCG.k == 25

"""A GameResult that cannot be rated says why, with a typed error, and nothing is applied."""

from __future__ import annotations

import pytest

from tests.ratings.helpers import at, spades
from trickroom.ratings import (
    SYSTEMS,
    Departure,
    GameResult,
    InvalidResult,
    MissingRating,
    NotTwoTeams,
    PlayerInTwoSeats,
    Rating,
    RatingError,
    Seat,
    UnknownSystem,
    WrongSystem,
    rate,
)

EVEN = at(A=1500, B=1500, C=1500, D=1500)


class TestBadResults:
    def test_a_player_in_two_seats(self):
        with pytest.raises(PlayerInTwoSeats, match="player 'A' is listed twice, in seat 0 and "
                                                   "seat 2"):
            GameResult.of("spades", "wocg", "ABAD", (500, 300, 500, 300))

    def test_spades_winners_that_are_not_partners(self):
        with pytest.raises(NotTwoTeams, match=r"winners \(0, 1\) are not a partnership"):
            GameResult.of("spades", "wocg", "ABCD", (500, 500, 500, 500), winners=(0, 1))

    def test_spades_partners_with_different_scores(self):
        with pytest.raises(NotTwoTeams, match="seats 0 and 2 must share their side's score"):
            GameResult.of("spades", "wocg", "ABCD", (500, 300, 450, 300))

    def test_spades_with_three_seats(self):
        with pytest.raises(NotTwoTeams, match="two teams of two"):
            GameResult("spades", "wocg", "random_queue",
                       (Seat(0, "A"), Seat(1, "B"), Seat(2, "C")), (500, 300, 500, 300))

    def test_two_starting_players_in_one_seat(self):
        with pytest.raises(NotTwoTeams):
            GameResult("spades", "wocg", "random_queue",
                       (Seat(0, "A"), Seat(1, "B"), Seat(2, "C"), Seat(2, "D")),
                       (500, 300, 500, 300))

    def test_winners_without_the_best_score(self):
        with pytest.raises(InvalidResult, match="not more than the other side's"):
            GameResult.of("spades", "wocg", "ABCD", (300, 500, 300, 500), winners=(0, 2))
        with pytest.raises(InvalidResult, match="lowest scores"):
            GameResult.of("hearts", "wocg", "ABCD", (30, 20, 50, 100), winners=(0,))

    def test_progress_outside_0_1(self):
        with pytest.raises(InvalidResult, match="progress"):
            GameResult.of("spades", "wocg", "ABCD", (500, 300, 500, 300), progress=1.5)

    def test_a_negative_or_fractional_count_of_hands(self):
        for hands in (-1, 2.5):
            with pytest.raises(InvalidResult, match="hands must be a count"):
                GameResult.of("spades", "wocg", "ABCD", (500, 300, 500, 300), hands=hands)

    def test_unknown_game_kind_and_seating(self):
        with pytest.raises(InvalidResult, match="unknown game kind 'bridge'"):
            GameResult.of("bridge", "wocg", "ABCD", (1, 2, 1, 2))  # type: ignore[arg-type]
        with pytest.raises(InvalidResult, match="unknown seating mode"):
            GameResult.of("spades", "wocg", "ABCD", (1, 2, 1, 2),
                          seating="by_lot")  # type: ignore[arg-type]

    def test_a_departure_of_someone_who_did_not_play(self):
        with pytest.raises(InvalidResult, match="departure of 'Z'"):
            spades("wocg", "ABCD", "NS", departures=[Departure("Z", "quit")])

    def test_a_late_human_must_be_a_substitute(self):
        seats = (Seat(0, "A"), Seat(1, "B"), Seat(2, "C"), Seat(3, "D"), Seat(3, "E", "human",
                                                                                at_start=False))
        with pytest.raises(InvalidResult, match="substitute"):
            GameResult("spades", "wocg", "random_queue", seats, (500, 300, 500, 300))

    def test_every_error_is_a_rating_error_and_a_value_error(self):
        assert issubclass(PlayerInTwoSeats, RatingError)
        assert issubclass(RatingError, ValueError)


class TestBadCalls:
    @pytest.mark.parametrize("name", sorted(SYSTEMS))
    def test_a_missing_rating_names_the_player(self, name):
        r = spades(name, "ABCD", "NS")
        with pytest.raises(MissingRating, match=r"player 'D' \(seat 3\)"):
            SYSTEMS[name].rate(r, at(A=1500, B=1500, C=1500))

    def test_an_unknown_system(self):
        with pytest.raises(UnknownSystem, match="no rating system named 'glicko'"):
            rate(spades("glicko", "ABCD", "NS"), EVEN)

    def test_a_result_handed_to_the_wrong_system(self):
        with pytest.raises(WrongSystem, match="'zone', not 'wocg'"):
            SYSTEMS["wocg"].rate(spades("zone", "ABCD", "NS"), EVEN)

    def test_nothing_is_half_applied(self):
        ratings = {"A": Rating(1500), "B": Rating(1500), "C": Rating(1500)}
        before = dict(ratings)
        with pytest.raises(MissingRating):
            rate(spades("wocg", "ABCD", "NS"), ratings)
        assert ratings == before

    def test_win_probability_needs_four_different_players(self):
        with pytest.raises(NotTwoTeams):
            SYSTEMS["wocg"].win_probability("spades", "ABA", EVEN)
        with pytest.raises(MissingRating):
            SYSTEMS["wocg"].win_probability("spades", "ABCE", EVEN)


class TestReading:
    def test_winners_may_be_read_from_the_scores(self):
        r = GameResult.of("spades", "wocg", "ABCD", (120, 260, 120, 260), completed=False,
                          progress=0.52)
        assert r.winning_side() == 1
        assert r.outcome_of("A") == "loss"

    def test_hearts_lowest_score_wins_and_shared_lowest_ties(self):
        r = GameResult.of("hearts", "wocg", "ABCD", (40, 40, 70, 102))
        assert [r.outcome_of(p) for p in "ABCD"] == ["tie", "tie", "loss", "loss"]
        assert r.score_against("A", "C") == 1 and r.score_against("A", "B") == 0.5

    def test_opponents_and_partner(self):
        r = spades("wocg", "ABCD", "NS")
        assert r.opponents("A") == ("B", "D") and r.partner("A") == "C"

    def test_a_substitute_is_listed_but_never_rated(self):
        seats = (Seat(0, "A"), Seat(1, "B"), Seat(2, "C"), Seat(3, "D"),
                 Seat(3, "S", "substitute", at_start=False))
        r = GameResult("spades", "wocg", "random_queue", seats, (300, 500, 300, 500),
                       departures=(Departure("D", "quit", 2),))
        assert r.players == ("A", "B", "C", "D")
        changes = SYSTEMS["wocg"].rate(r, EVEN)
        assert {c.player for c in changes} == {"A", "B", "C"}

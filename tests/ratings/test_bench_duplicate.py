"""``bench.ratings_duplicate``: a board set is a normal game's deals replayed with the players
moved, and the duplicate system is scored deal by deal against an oracle."""

from __future__ import annotations

import pytest

from bench import graded, ratings_real
from bench import ratings_duplicate as duplicate

EPS = [e for e in graded.LEVELS for _ in range(2)]


@pytest.mark.parametrize("kind", ["spades", "hearts"])
def test_a_board_set_s_first_table_is_the_season_s_normal_game(kind):
    board = duplicate.play_set(kind, EPS, 1, 3)
    game = ratings_real.play_one(kind, EPS, 1, 3)
    first = board.tables[0]
    assert board.seats == game.seats and len(first) == game.hands
    assert tuple(sum(hand[s] for hand in first) for s in range(4)) == game.scores


def test_at_each_other_table_every_player_sits_one_seat_on():
    board = duplicate.play_set("hearts", EPS, 1, 0)
    north, east, south, west = board.seats
    assert board.lineups() == [(north, east, south, west), (west, north, east, south),
                               (south, west, north, east), (east, south, west, north)]
    assert len(duplicate.play_set("spades", EPS, 1, 0).tables) == 2


def test_a_deal_scored_the_same_at_every_table_is_level_and_not_scored():
    board = duplicate.BoardSet((0, 1, 2, 3), (((40, 20, 40, 20),), ((40, 20, 40, 20),)))
    result = board.result("duplicate")
    events, level = duplicate.events_of("spades", board, dict.fromkeys(
        result.players, 0.5), result, [0, 1, 2, 3], 4)
    assert (events, level) == ([], 1)


def test_the_oracle_learns_which_level_beats_the_field():
    # A level-0 side beats a level-1 side's field three deals in four.
    events = [duplicate.Event(0, 0.5, beat, (2.0, -2.0)) for beat in [True] * 30 + [False] * 10]
    chances = duplicate.oracle_chances(events, 2)
    assert chances[0] == pytest.approx(0.75, abs=1e-4)

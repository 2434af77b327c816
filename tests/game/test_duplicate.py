"""Duplicate scoring (issue 36, item 4): each deal scored against the field with the same
cards, the players one seat on in each game of a match."""

from __future__ import annotations

from trickroom.game.duplicate import PlayedGame, compare, hand_points
from trickroom.game.hearts import HeartsHandResult


def test_spades_each_side_is_scored_against_the_side_that_held_its_cards():
    # Deal 0: seats 0 and 2 made 60 with their cards in game 0, the others made 40 with
    # them in game 1: 20 points better than the field on those cards.
    game0 = PlayedGame(("ann", "r1", "r2", "r3"), ((60, -30, 60, -30), (10, 10, 10, 10)))
    game1 = PlayedGame(("r3", "ann", "r1", "r2"), ((40, -10, 40, -10), (10, 10, 10, 10),
                                                   (99, 0, 99, 0)))
    margins = {m.name: m for m in compare([game0, game1], {"ann": 0, "r1": 1, "r2": 2,
                                                           "r3": 3})}
    ann = margins["ann"]
    assert ann.seats == (0, 1)
    # Game 0, seat 0's cards: 60 against 40; game 1, seat 1's: -10 against -30.
    assert ann.deals == ((60 - 40 + (-10 - -30)) / 2, 0.0)  # the third deal: one game only
    assert margins["r1"].deals[0] == -ann.deals[0]  # the other side, on the same deal


def test_hearts_fewer_points_is_better_and_four_games_make_a_match():
    result = HeartsHandResult(0, 0, "left", (5, 0, 21, 0), None, None, (5, 0, 21, 0),
                              (5, 0, 21, 0))
    assert hand_points("hearts", result) == (-5, 0, -21, 0)
    hands = [(-5, 0, -21, 0), (-10, 0, -16, 0), (-5, -5, -16, 0), (0, -26, 0, 0)]
    games = [PlayedGame(("a", "b", "c", "d"), (h,)) for h in hands]
    margin = compare(games, {"a": 0})[0]
    assert margin.seats == (0, 1, 2, 3)
    expected = sum(hands[k][k] - sum(hands[j][k] for j in range(4) if j != k) / 3
                   for k in range(4)) / 4
    assert margin.deals == (round(expected, 2),)

"""Games, views, rules and actions cross to worker processes by pickle (robots that
think, analyses): each comes back equal, compiled by mypyc or not."""

import pickle
import random

import pytest

from trickroom.game.actions import BLIND_NIL, Bid, Pass, Play
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.outcome import NilStats
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.variants import recorded_rules


def round_trip(value):
    return pickle.loads(pickle.dumps(value))


def played(game, hands: int, seed: int = 1):
    rng = random.Random(seed)
    while len(game.hand_results) < hands:
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.awaiting[0]
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    game.next_hand()
    seat = game.awaiting[0]
    game.apply(rng.choice(game.legal_actions(seat)), seat)  # and into the next hand
    return game


@pytest.mark.parametrize("value", [
    SpadesRules(target=300, mercy=None, blind_nil=True), HeartsRules(jack_of_diamonds=True),
    Bid(4), BLIND_NIL, Play(12), Pass((1, 2, 3)), NilStats(bid=2, made=1, set=1),
])
def test_rules_actions_and_records_come_back_equal(value):
    assert round_trip(value) == value


def test_a_records_rules_past_todays_bounds_come_back_as_they_were():
    old = recorded_rules(SpadesRules, {"target": 5000})
    assert round_trip(old).target == 5000


@pytest.mark.parametrize("game", [SpadesGame(SpadesRules(blind_nil=True), seed=3),
                                  HeartsGame(HeartsRules(), seed=4)])
def test_a_game_in_play_comes_back_and_plays_on_as_the_original(game):
    game = played(game, hands=2)
    copy = round_trip(game)
    assert copy.hand_results == game.hand_results
    assert [copy.view(seat) for seat in range(4)] == [game.view(seat) for seat in range(4)]
    assert round_trip(game.view(1)) == game.view(1)
    seat = game.awaiting[0]
    action = game.legal_actions(seat)[0]
    assert copy.apply(action, seat) == game.apply(action, seat)

"""What the searches' play-outs rest on: how a sampled deal is weighed by the bids."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.game.robots import make_robot
from trickroom.game.robots.playout import bid_weight, expected_bid
from trickroom.game.robots.spades_heuristic import bid_value, sure_tricks
from trickroom.game.spades import SpadesGame, SpadesRules


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_expected_bid_is_within_half_a_trick_of_the_rules_of_thumb(seed):
    hand = sum(1 << c for c in random.Random(seed).sample(range(52), 13))
    bid = bid_value(hand, None, SpadesRules())
    if bid:
        assert abs(bid - expected_bid(sure_tricks(hand))) <= 0.5 + 1e-9


def test_a_deal_that_gives_each_bidder_the_hand_it_bid_weighs_more_than_a_shifted_one():
    """The true deal fits the heuristic's bids better than one with two hands swapped
    between a strong bidder and a weak one."""
    wins = 0
    for seed in range(40):
        game = SpadesGame(SpadesRules(), seed=seed)
        robot = make_robot("heuristic")
        while game.phase == "bid":
            seat = game.to_act
            game.apply(robot.choose(game.view(seat)), seat)
        seat = game.to_act
        weigh = bid_weight(game.view(seat), seat)
        assert weigh is not None
        hands = list(game.hands)
        others = sorted((s for s in range(4) if s != seat), key=lambda s: game.bids[s])
        weak, strong = others[0], others[-1]
        if game.bids[strong] - game.bids[weak] < 3 or game.bids[weak] == 0:
            continue
        swapped = list(hands)
        swapped[weak], swapped[strong] = hands[strong], hands[weak]
        assert weigh(hands) > weigh(swapped)
        wins += 1
    assert wins >= 5

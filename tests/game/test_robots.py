import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import ROBOTS, make_robot
from trickroom.game.spades import SpadesGame, SpadesRules


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hearts=st.booleans())
def test_the_random_robot_only_chooses_legal_actions(seed, hearts):
    game = HeartsGame(HeartsRules(moon="shooter_chooses"), seed=seed) if hearts else SpadesGame(
        SpadesRules(mercy=200, blind_nil=True, blind_nil_deficit=20), seed=seed)
    robots = [make_robot("random", seed + s) for s in range(4)]
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.awaiting[0]
        view = game.view(seat)
        action = robots[seat].choose(view)
        assert action in game.legal_actions(seat)
        game.apply(action, seat)


def test_the_same_seed_makes_the_same_choices():
    game = SpadesGame(seed=3)
    view = game.view(game.to_act)
    a = [make_robot("random", 9).choose(view) for _ in range(3)]
    b = [make_robot("random", 9).choose(view) for _ in range(3)]
    assert a == b


def test_a_random_choice_depends_only_on_the_view():
    """Changing another seat's hidden cards does not change what the robot picks."""
    game = SpadesGame(seed=4)
    seat = game.to_act
    other = (seat + 1) % 4
    rng = random.Random(0)
    first = make_robot("random", 5).choose(game.view(seat))
    # Swap two cards between two other seats: their hands change, this seat's view does not.
    third = (seat + 2) % 4
    a = rng.choice([c for c in range(52) if game.hands[other] >> c & 1])
    b = rng.choice([c for c in range(52) if game.hands[third] >> c & 1])
    game.hands[other] ^= (1 << a) | (1 << b)
    game.hands[third] ^= (1 << a) | (1 << b)
    assert make_robot("random", 5).choose(game.view(seat)) == first


def test_an_unknown_robot_level_names_the_levels():
    with pytest.raises(KeyError, match="random"):
        make_robot("genius")
    assert "random" in ROBOTS

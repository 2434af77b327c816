"""Hearts passes by search: legal in every variant, deterministic, blind to hidden cards."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.game.robots.anytime import assert_no_time_means_the_heuristic
from tests.game.robots.test_heuristic import HEARTS_PRESETS, play_game, swap_hidden_cards
from tests.game.robots.views import cards
from trickroom.game.actions import Pass
from trickroom.game.cards import cards_of, parse_cards
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots.hearts_heuristic import choose_pass
from trickroom.game.robots.heuristic import heuristic_action
from trickroom.game.robots.passing import candidate_passes
from trickroom.game.robots.search import SearchRobot


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.integers(0, len(HEARTS_PRESETS) - 1))
def test_searched_passes_are_legal_in_every_variant(seed, preset):
    robots = [SearchRobot(seed + s, simulations=20, search_cards=False) for s in range(4)]
    play_game(HeartsGame(HEARTS_PRESETS[preset], seed=seed), robots, max_hands=4)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.sampled_from([3, 4]))
def test_candidates_are_passes_of_the_hand_and_the_heuristics_comes_first(seed, count):
    hand = sum(1 << c for c in random.Random(seed).sample(range(52), 13))
    found = candidate_passes(hand, count)
    assert found[0] == choose_pass(hand, count)
    assert len(set(found)) == len(found)
    for p in found:
        assert len(p) == count and list(p) == sorted(p)
        assert all(hand >> c & 1 for c in p)


def test_a_hand_of_high_cards_also_tries_keeping_them():
    hand = parse_cards(cards("AC KC QC AD KD QD AH KH 2C 3D 4H 5S 6S"))
    found = candidate_passes(hand, 3)
    low = tuple(cards_of(parse_cards(cards("2C 3D 4H"))))
    assert low in found


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_searched_pass_depends_only_on_the_view(seed):
    game = HeartsGame(seed=seed)
    if game.phase != "pass":
        return
    seat = seed % 4
    before = SearchRobot(5, simulations=60).choose(game.view(seat))
    swap_hidden_cards(game, seat, random.Random(seed))
    assert SearchRobot(5, simulations=60).choose(game.view(seat)) == before


def test_the_same_seed_and_count_make_the_same_pass():
    game = HeartsGame(HeartsRules(pass_count=4), seed=17)
    view = game.view(2)
    passes = {SearchRobot(3, simulations=200).choose(view) for _ in range(3)}
    assert len(passes) == 1
    (chosen,) = passes
    assert isinstance(chosen, Pass) and len(chosen.cards) == 4


def test_with_no_time_it_passes_as_the_heuristic():
    game = HeartsGame(seed=8)
    view = game.view(1)
    assert_no_time_means_the_heuristic(view, heuristic_action(view))


def test_the_all_seeing_pass_is_legal_and_repeatable():
    game = HeartsGame(seed=3)
    view = game.view(0)
    a = SearchRobot(1).choose_seeing(view, list(game.hands))
    assert a == SearchRobot(1).choose_seeing(view, list(game.hands))
    assert a in view.legal

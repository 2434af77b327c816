"""The search robot: legal, deterministic, blind to hidden cards, anytime."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.game.robots.anytime import (
    assert_no_time_means_the_heuristic,
    assert_the_clock_bounds_the_search,
)
from tests.game.robots.test_heuristic import (
    HEARTS_PRESETS,
    SPADES_PRESETS,
    play_game,
    swap_hidden_cards,
)
from trickroom.game.actions import PLAYS
from trickroom.game.cards import SUIT_MASKS, parse_card, parse_cards
from trickroom.game.hearts import HeartsGame
from trickroom.game.robots import make_robot
from trickroom.game.robots.heuristic import heuristic_card
from trickroom.game.robots.position import Position
from trickroom.game.robots.sampling import DealSampler, known_cards
from trickroom.game.robots.search import SearchRobot, candidates
from trickroom.game.spades import SpadesGame


def advance(game, cut, seed):
    """Play ``cut`` actions with the heuristic; return the seat to act or None."""
    robot = make_robot("heuristic", seed)
    for _ in range(cut):
        if game.phase == "hand_over":
            game.next_hand()
        if game.phase not in ("bid", "pass", "play"):
            return None
        seat = game.awaiting[0]
        game.apply(robot.choose(game.view(seat)), seat)
    if game.phase not in ("bid", "pass", "play"):
        return None
    return game.awaiting[0]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.integers(0, 7))
def test_the_search_robot_only_chooses_legal_actions(seed, preset):
    game = (SpadesGame(SPADES_PRESETS[preset % 4], seed=seed) if preset < 4
            else HeartsGame(HEARTS_PRESETS[preset % 4], seed=seed))
    robots = [SearchRobot(seed + s, simulations=12) if s % 2 == 0
              else make_robot("heuristic", s) for s in range(4)]
    play_game(game, robots, max_hands=2)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hearts=st.booleans(), cut=st.integers(4, 60))
def test_a_search_choice_depends_only_on_the_view(seed, hearts, cut):
    """Same seed, same view: same card, whatever the other seats really hold."""
    game = HeartsGame(seed=seed) if hearts else SpadesGame(seed=seed)
    seat = advance(game, cut, seed)
    if seat is None:
        return
    before = SearchRobot(7, simulations=40).choose(game.view(seat))
    swap_hidden_cards(game, seat, random.Random(seed))
    assert SearchRobot(7, simulations=40).choose(game.view(seat)) == before


def test_the_same_seed_and_count_make_the_same_choices():
    game = HeartsGame(seed=21)
    seat = advance(game, 20, 1)
    view = game.view(seat)
    a = [SearchRobot(3, simulations=60).choose(view) for _ in range(3)]
    assert len(set(a)) == 1


def test_a_searched_bid_or_pass_leaves_the_card_play_as_it_would_be():
    """Bids and passes draw from their own RNG: a robot that searched its bid plays the
    same cards as one of the same seed that bid by the rules of thumb, so a duplicate
    bench compares the bids alone."""
    for game, cut in ((SpadesGame(seed=12), 9), (HeartsGame(seed=12), 16)):
        searched = SearchRobot(5, simulations=60)
        plain = SearchRobot(5, simulations=60, search_bids=False, search_passes=False)
        first = game.view(game.awaiting[0])
        searched.choose(first)
        plain.choose(first)
        assert searched.rng.getstate() == plain.rng.getstate()
        seat = advance(game, cut, 2)
        assert game.phase == "play"
        view = game.view(seat)
        assert searched.choose(view) == plain.choose(view)


def test_with_no_time_it_plays_the_heuristic_card():
    game = SpadesGame(seed=8)
    seat = advance(game, 9, 2)
    view = game.view(seat)
    assert view.phase == "play"
    assert_no_time_means_the_heuristic(view, PLAYS[heuristic_card(view)])


def test_a_clock_bounds_the_search():
    game = HeartsGame(seed=9)
    seat = advance(game, 10, 3)
    assert_the_clock_bounds_the_search(game.view(seat))


def test_equivalent_cards_are_searched_once():
    game = HeartsGame(seed=4)
    pos = Position.from_view(game.view(0))
    pos.hands[0] = parse_cards(["2D", "3D", "4D", "9D", "QS", "JS", "KS"])
    pos.played = parse_cards(["TS", "5D"])
    legal = pos.hands[0]
    found = candidates(pos, 0, legal)
    assert found == [parse_card(c) for c in ("2D", "9D", "JS", "QS", "KS")]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hearts=st.booleans(), cut=st.integers(4, 60))
def test_sampled_deals_agree_with_everything_the_seat_knows(seed, hearts, cut):
    game = HeartsGame(seed=seed) if hearts else SpadesGame(seed=seed)
    seat = advance(game, cut, seed)
    if seat is None or game.phase != "play":
        return
    view = game.view(seat)
    pos = Position.from_view(view)
    known = known_cards(view, pos)
    sampler = DealSampler(pos, seat, view.hand_sizes, known)
    rng = random.Random(seed)
    for _ in range(20):
        hands = sampler.sample(rng)
        assert hands[seat] == view.hand
        union = 0
        for s in range(4):
            assert hands[s].bit_count() == view.hand_sizes[s]
            assert not union & hands[s]
            union |= hands[s]
            assert hands[s] & known[s] == known[s]
            for suit in range(4):
                if pos.voids[s] >> suit & 1:
                    assert not hands[s] & SUIT_MASKS[suit]
        assert union | pos.played == (1 << 52) - 1

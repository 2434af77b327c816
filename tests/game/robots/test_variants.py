"""Searched bids and passes in any rule variant a table may choose (game/variants.py's bounds).

The rules are drawn from every field's whole range, switches included, so a
searched bid or pass meets the odd corners (no bag penalty, nil worth nothing,
a target of one point, blind nil at any deficit, one-card passes) as well as
the presets.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.game.robots.test_heuristic import play_game
from trickroom.game.actions import LOOK
from trickroom.game.hearts import PASS_OFFSETS, HeartsGame, HeartsRules
from trickroom.game.robots.search import SearchRobot
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.variants import HEARTS_BOUNDS, SPADES_BOUNDS


def bounded(bounds, name):
    least, most = bounds[name]
    return st.integers(least, most)


SPADES_RULES = st.builds(
    SpadesRules,
    target=bounded(SPADES_BOUNDS, "target"),
    mercy=st.none() | bounded(SPADES_BOUNDS, "mercy"),
    team_bid_cap_13=st.booleans(),
    min_team_bid=bounded(SPADES_BOUNDS, "min_team_bid"),
    nil_value=bounded(SPADES_BOUNDS, "nil_value"),
    nil_tricks_count_for_partner=st.booleans(),
    blind_nil=st.booleans(),
    blind_nil_value=bounded(SPADES_BOUNDS, "blind_nil_value"),
    blind_nil_deficit=bounded(SPADES_BOUNDS, "blind_nil_deficit") | st.just(0),
    two_of_clubs_leads=st.booleans(),
    spades_always_leadable=st.booleans(),
    bag_limit=st.none() | bounded(SPADES_BOUNDS, "bag_limit"),
    bag_penalty=bounded(SPADES_BOUNDS, "bag_penalty"),
)

HEARTS_RULES = st.builds(
    HeartsRules,
    target=bounded(HEARTS_BOUNDS, "target"),
    pass_cycle=st.lists(st.sampled_from(sorted(PASS_OFFSETS)), min_size=1, max_size=8).map(tuple),
    pass_count=bounded(HEARTS_BOUNDS, "pass_count"),
    any_club_first=st.booleans(),
    blood_on_first_trick=st.booleans(),
    queen_breaks_hearts=st.booleans(),
    jack_of_diamonds=st.booleans(),
    jack_value=bounded(HEARTS_BOUNDS, "jack_value"),
    moon=st.sampled_from(["add_to_others", "subtract_from_shooter", "shooter_chooses"]),
)


@settings(max_examples=25, deadline=None)
@given(rules=SPADES_RULES, seed=st.integers(0, 2**32 - 1))
def test_searched_bids_are_legal_in_any_spades_variant(rules, seed):
    robots = [SearchRobot(seed + s, simulations=12, search_cards=False) for s in range(4)]
    play_game(SpadesGame(rules, seed=seed), robots, max_hands=3)


@settings(max_examples=25, deadline=None)
@given(rules=HEARTS_RULES, seed=st.integers(0, 2**32 - 1))
def test_searched_passes_are_legal_in_any_hearts_variant(rules, seed):
    robots = [SearchRobot(seed + s, simulations=12, search_cards=False) for s in range(4)]
    play_game(HeartsGame(rules, seed=seed), robots, max_hands=3)


@settings(max_examples=15, deadline=None)
@given(rules=SPADES_RULES, seed=st.integers(0, 2**32 - 1), count=st.integers(1, 80))
def test_a_seed_and_a_count_fix_the_bid_and_its_reason(rules, seed, count):
    game = SpadesGame(rules, seed=seed)
    for _ in range(4):
        seat = game.to_act
        view = game.view(seat)
        first, second = SearchRobot(seed, simulations=count), SearchRobot(seed, simulations=count)
        action = first.choose(view)
        assert second.choose(view) == action and second.explain() == first.explain()
        game.apply(action, seat)
        if action == LOOK:
            game.apply(first.choose(game.view(seat)), seat)
        if game.phase != "bid":
            break


@settings(max_examples=15, deadline=None)
@given(rules=HEARTS_RULES, seed=st.integers(0, 2**32 - 1), count=st.integers(1, 80))
def test_a_seed_and_a_count_fix_the_pass(rules, seed, count):
    game = HeartsGame(rules, seed=seed)
    if game.phase != "pass":
        return
    for seat in range(4):
        view = game.view(seat)
        action = SearchRobot(seed, simulations=count).choose(view)
        assert SearchRobot(seed, simulations=count).choose(view) == action
        assert action in view.legal

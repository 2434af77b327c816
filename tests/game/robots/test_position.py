"""The robots' working copy of a hand follows the engines' rules card by card."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots.heuristic import legal_mask
from trickroom.game.robots.position import Position
from trickroom.game.spades import SpadesGame, SpadesRules

SPADES_PRESETS = [
    SpadesRules(),
    SpadesRules(two_of_clubs_leads=True, spades_always_leadable=True),
    SpadesRules(blind_nil=True, blind_nil_deficit=0, nil_tricks_count_for_partner=False),
]
HEARTS_PRESETS = [
    HeartsRules(),
    HeartsRules(any_club_first=True, blood_on_first_trick=True, queen_breaks_hearts=True),
    HeartsRules(jack_of_diamonds=True, moon="subtract_from_shooter", pass_cycle=("hold",)),
]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.integers(0, 5))
def test_a_simulated_hand_matches_the_engine_card_by_card(seed, preset):
    """From the first card on, Position.play gives the engine's legal cards, tricks and points."""
    rng = random.Random(seed)
    game = (SpadesGame(SPADES_PRESETS[preset % 3], seed=seed) if preset < 3
            else HeartsGame(HEARTS_PRESETS[preset % 3], seed=seed))
    while game.phase not in ("play",):
        game.apply(rng.choice(game.legal_actions()), game.awaiting[0])
    sim = Position.from_view(game.view(game.to_act))
    sim.hands = list(game.hands)
    while game.phase == "play":
        seat = game.to_act
        view = game.view(seat)
        mine = Position.from_view(view)
        assert mine.legal() == legal_mask(view) == sim.legal()
        assert sim.turn == seat
        card = rng.choice(game.legal_actions()).card
        game.apply(game.legal_actions()[0].__class__(card))
        sim.play(card)
        assert sim.tricks_won == list(game.tricks_won)
        assert sim.hands == list(game.hands)
    if isinstance(game, HeartsGame):
        assert sim.hearts_scores() == list(game.hand_results[-1].points)

"""Why a card may not be played: the sentence a player reads, from the engine's own rules.

``why_illegal`` and ``illegal_plays`` read the legal mask ``apply`` checks, so a card
they call legal is one ``apply`` takes and a card they refuse is one it refuses; each
reason is a sentence (capital first, full stop last) naming the rule at hand.
"""

from __future__ import annotations

import random

import pytest

from tests.game.helpers import MIXED, ONE_SUIT_EACH, SPLIT, play, suit
from trickroom.game.actions import Bid, IllegalAction, Play
from trickroom.game.cards import CARD_TEXT
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.trickgame import why_illegal

HOLD = HeartsRules(pass_cycle=("hold",))


def reasons(game, seat=None):
    seat = game.to_act if seat is None else seat
    return {CARD_TEXT[c]: r for c, r in game.illegal_plays(seat)}


def spades(hands, rules=None, dealer=3):
    g = SpadesGame.from_hands(hands, dealer=dealer, rules=rules)
    for _ in range(4):
        g.apply(Bid(3))
    return g


# -- Spades ------------------------------------------------------------------------------------


def test_spades_first_lead_may_not_be_a_spade():
    g = spades(MIXED)
    assert g.to_act == 0
    assert why_illegal(g, 0, "2S") == "The first lead may not be a spade."
    assert why_illegal(g, 0, "2C") is None
    assert set(reasons(g)) == {"2S", "3S", "4S"}


def test_spades_two_of_clubs_leads():
    g = spades(MIXED, SpadesRules(two_of_clubs_leads=True))
    assert why_illegal(g, 0, "3C") == "The 2 of clubs leads the first trick."
    assert set(reasons(g)) == set(MIXED[0]) - {"2C"}


def test_spades_follow_suit_names_the_led_suit():
    g = spades(MIXED)
    play(g, "2D")
    assert why_illegal(g, 1, "5S") == "Follow suit: diamonds were led."
    assert reasons(g) == {c: "Follow suit: diamonds were led." for c in MIXED[1]
                          if c[1] != "D"}


def test_spades_may_not_be_led_until_broken():
    g = spades(MIXED)
    play(g, "2C", "9C", "KC", "AC")
    assert g.to_act == 3
    assert why_illegal(g, 3, "AS") == "Spades are not broken yet: lead another suit."
    assert set(reasons(g)) == {"JS", "QS", "KS", "AS"}


def test_spades_always_leadable_refuses_no_spade_lead():
    g = spades(MIXED, SpadesRules(spades_always_leadable=True))
    play(g, "2C", "9C", "KC", "AC")
    assert reasons(g) == {}
    assert why_illegal(g, 3, "AS") is None


def test_a_seat_void_in_the_led_suit_may_play_anything_in_spades():
    g = spades(ONE_SUIT_EACH, dealer=3)
    play(g, "2C")
    assert reasons(g) == {}


# -- Hearts ------------------------------------------------------------------------------------


def test_hearts_two_of_clubs_leads_the_first_trick():
    g = HeartsGame.from_hands(SPLIT, rules=HOLD)
    assert g.to_act == 0
    assert why_illegal(g, 0, "3C") == "The 2 of clubs leads the first trick."
    assert set(reasons(g)) == set(SPLIT[0]) - {"2C"}


def test_hearts_any_club_first_lets_any_club_lead():
    g = HeartsGame.from_hands(SPLIT, rules=HeartsRules(pass_cycle=("hold",),
                                                       any_club_first=True))
    assert why_illegal(g, 0, "6C") is None
    assert why_illegal(g, 0, "2D") == "The first trick is led with a club."


def test_hearts_no_points_on_the_first_trick():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    play(g, "2C", "2D")
    assert reasons(g) == {}  # South holds only hearts: it must play one
    play(g, "2H")
    assert why_illegal(g, 3, "QS") == "No points on the first trick: the queen of spades must wait."
    assert reasons(g) == {"QS": "No points on the first trick: the queen of spades must wait."}


def test_hearts_no_points_on_the_first_trick_names_hearts_too():
    hearts, spades_ = suit("H"), suit("S")
    hands = [[*suit("C")[:12], "2H"], [*suit("D")[:12], "3H"],
             ["AC", "AD", *hearts[2:11], *spades_[:2]], [*hearts[11:], *spades_[2:]]]
    g = HeartsGame.from_hands(hands, rules=HOLD)
    play(g, "2C")
    assert g.to_act == 1
    assert why_illegal(g, 1, "3H") == "No points on the first trick: hearts must wait."


def test_blood_on_the_first_trick_refuses_no_point_card():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HeartsRules(pass_cycle=("hold",),
                                                               blood_on_first_trick=True))
    play(g, "2C", "2D", "2H")
    assert reasons(g) == {}


def test_hearts_may_not_be_led_until_broken():
    g = HeartsGame.from_hands(SPLIT, rules=HOLD)
    play(g, "2C", "7C", "JC", "AC")
    assert why_illegal(g, 3, "AH") == "Hearts are not broken yet: lead another suit."
    assert set(reasons(g)) == {"JH", "QH", "KH", "AH"}


def test_queen_breaks_hearts_says_so_and_the_queen_breaks_them():
    rules = HeartsRules(pass_cycle=("hold",), queen_breaks_hearts=True)
    g = HeartsGame.from_hands(SPLIT, rules=rules)
    play(g, "2C", "7C", "JC", "AC")
    assert why_illegal(g, 3, "AH") == ("Hearts are not broken yet (a heart or the queen of "
                                       "spades breaks them): lead another suit.")
    assert why_illegal(g, 3, "QS") is None  # the queen itself may be led
    play(g, "QS", "2S", "4S", "9S")  # the queen of spades, led, breaks hearts
    leader = g.to_act
    assert g.broken and reasons(g, leader) == {}


def test_hearts_follow_suit():
    g = HeartsGame.from_hands(SPLIT, rules=HOLD)
    play(g, "2C")
    assert why_illegal(g, 1, "5D") == "Follow suit: clubs were led."


# -- the general cases ---------------------------------------------------------------------------


def test_not_in_play_not_your_turn_and_not_held():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    assert why_illegal(g, 0, "2C") == "Cards are played in the play phase."
    for _ in range(4):
        g.apply(Bid(3))
    assert why_illegal(g, 1, "6C") == "It is not your turn."
    assert why_illegal(g, 0, "AS") == "You do not hold AS."
    assert g.illegal_plays(1) == ()


@pytest.mark.parametrize("make", [
    lambda seed: SpadesGame(SpadesRules(target=150, mercy=150), seed=seed),
    lambda seed: SpadesGame(SpadesRules(target=150, mercy=150, two_of_clubs_leads=True), seed=seed),
    lambda seed: HeartsGame(HeartsRules(target=40), seed=seed),
    lambda seed: HeartsGame(HeartsRules(target=40, queen_breaks_hearts=True,
                                        any_club_first=True), seed=seed),
], ids=["spades", "spades-2c", "hearts", "hearts-variants"])
def test_the_reasons_agree_with_apply_over_whole_games(make):
    """Every card of the hand is legal or has a reason, never both, and apply agrees."""
    for seed in range(3):
        g = make(seed)
        robots = [make_robot("random", s) for s in range(4)]
        rng = random.Random(seed)
        while g.phase != "game_over":
            if g.phase == "hand_over":
                g.next_hand()
                continue
            seat = g.to_act
            if g.phase == "play":
                legal = {a.card for a in g.legal_actions()}
                bad = dict(g.illegal_plays(seat))
                hand = set(range(52)) & {c for c in range(52) if g.hands[seat] >> c & 1}
                assert set(bad) == hand - legal
                assert g.view(seat).illegal == g.illegal_plays(seat)
                for c, reason in bad.items():
                    assert reason[0].isupper() and reason.endswith("."), reason
                    assert why_illegal(g, seat, c) == reason
                if bad:
                    c = rng.choice(sorted(bad))
                    with pytest.raises(IllegalAction):
                        g.apply(Play(c), seat)
                for c in legal:
                    assert why_illegal(g, seat, c) is None
            g.apply(robots[seat].choose(g.view(seat)), seat)

"""The heuristic robots: legal, blind to hidden cards, and sound in the key situations."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.game.robots.views import cards, hearts_view
from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, PLAYS
from trickroom.game.cards import parse_card, parse_cards
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.robots import make_robot
from trickroom.game.robots.hearts_heuristic import choose_pass
from trickroom.game.robots.spades_heuristic import nil_worthy, sure_tricks
from trickroom.game.spades import SpadesGame, SpadesRules

SPADES_PRESETS = [
    SpadesRules(mercy=200),
    SpadesRules(mercy=200, blind_nil=True, blind_nil_deficit=20, two_of_clubs_leads=True),
    SpadesRules(mercy=200, spades_always_leadable=True, min_team_bid=4, bag_limit=None),
    SpadesRules(mercy=200, nil_tricks_count_for_partner=False, team_bid_cap_13=False),
]
HEARTS_PRESETS = [
    HeartsRules(),
    HeartsRules(moon="shooter_chooses", any_club_first=True, queen_breaks_hearts=True),
    HeartsRules(blood_on_first_trick=True, jack_of_diamonds=True, pass_count=4,
                pass_cycle=("across", "hold")),
    HeartsRules(moon="subtract_from_shooter", target=50),
]


def play_game(game, robots, max_hands=40):
    """Play to the end (or ``max_hands``), checking every choice is legal."""
    while game.phase != "game_over" and len(game.hand_results) < max_hands:
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.awaiting[0]
        action = robots[seat].choose(game.view(seat))
        assert action in game.legal_actions(seat), (action, game.phase)
        game.apply(action, seat)
    return game


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.integers(0, 7))
def test_the_heuristic_robot_only_chooses_legal_actions(seed, preset):
    game = (SpadesGame(SPADES_PRESETS[preset % 4], seed=seed) if preset < 4
            else HeartsGame(HEARTS_PRESETS[preset % 4], seed=seed))
    robots = [make_robot("heuristic", seed + s) if s % 2 == 0 else make_robot("random", s)
              for s in range(4)]
    play_game(game, robots)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), hearts=st.booleans(), cut=st.integers(0, 60))
def test_a_heuristic_choice_depends_only_on_the_view(seed, hearts, cut):
    """Swapping hidden cards between two other seats never changes the choice."""
    game = HeartsGame(seed=seed) if hearts else SpadesGame(seed=seed)
    rng = random.Random(seed)
    robot = make_robot("heuristic", 3)
    for _ in range(cut):
        if game.phase not in ("bid", "pass", "play"):
            break
        seat = game.awaiting[0]
        game.apply(robot.choose(game.view(seat)), seat)
    if game.phase not in ("bid", "pass", "play"):
        return
    seat = game.awaiting[0]
    before = make_robot("heuristic", 3).choose(game.view(seat))
    swap_hidden_cards(game, seat, rng)
    assert make_robot("heuristic", 3).choose(game.view(seat)) == before


def swap_hidden_cards(game, seat, rng):
    """Exchange a card of the same suit between two other seats (the view stays the same)."""
    a, b = (seat + 1) % 4, (seat + 2) % 4
    for suit in rng.sample(range(4), 4):
        mask = 0x1FFF << (13 * suit)
        ca = [c for c in range(52) if game.hands[a] & mask >> c & 1 and mask >> c & 1]
        cb = [c for c in range(52) if game.hands[b] & mask >> c & 1 and mask >> c & 1]
        if ca and cb:
            x, y = rng.choice(ca), rng.choice(cb)
            game.hands[a] ^= (1 << x) | (1 << y)
            game.hands[b] ^= (1 << x) | (1 << y)
            return


# -- Spades ------------------------------------------------------------------------------


def test_does_not_bid_nil_holding_the_ace_of_spades():
    low = cards("2C 3C 4C 5D 6D 2H 3H 4H 5H 6H 2S 3S")
    assert nil_worthy(parse_cards([*low, "4S"]))
    assert not nil_worthy(parse_cards([*low, "AS"]))
    others = [c for c in (r + s for s in "CDHS" for r in "23456789TJQKA")
              if c not in low and c != "AS"]
    game = SpadesGame.from_hands([[*low, "AS"], others[:13], others[13:26], others[26:]],
                                 dealer=3)
    bid = make_robot("heuristic").choose(game.view(0))
    assert bid != BIDS[0] and bid.value >= 1


def test_bids_nil_with_a_hand_of_low_cards():
    hand = cards("2C 3C 4C 5D 6D 2H 3H 4H 5H 6H 2S 3S 4S")
    others = [c for c in (r + s for s in "CDHS" for r in "23456789TJQKA") if c not in hand]
    game = SpadesGame.from_hands([hand, others[:13], others[13:26], others[26:]], dealer=3)
    assert make_robot("heuristic").choose(game.view(0)) == BIDS[0]


def test_counts_sure_tricks():
    assert sure_tricks(parse_cards(cards("AS KS QS JS TS AH AD AC 2C 3C 4D 5D 6H"))) >= 7.5
    assert sure_tricks(parse_cards(cards("2S 3S 2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C"))) < 1


@pytest.mark.parametrize(("deficit", "expected"), [(300, BLIND_NIL), (120, LOOK)])
def test_blind_nil_only_when_far_behind(deficit, expected):
    """The room allows blind nil at 100 behind; the robot bids it only when far behind."""
    game = SpadesGame(SpadesRules(blind_nil=True, blind_nil_deficit=100), seed=5)
    robots = [make_robot("heuristic", s) for s in range(4)]
    while game.phase != "hand_over":
        game.apply(robots[game.to_act].choose(game.view(game.to_act)))
    seat = (game.dealer + 2) % 4  # the first to bid in the next hand
    game.scores = [0, 0]
    game.scores[1 - seat % 2] = deficit
    game.next_hand()
    assert game.view(seat).legal == (BLIND_NIL, LOOK)
    assert make_robot("heuristic").choose(game.view(seat)) == expected


def spades_first_trick(hands, bids, plays):
    """A Spades hand dealt by seat 0 (seat 1 bids and leads first), after bids and plays."""
    game = SpadesGame.from_hands(hands, dealer=0)
    for seat, value in zip((1, 2, 3, 0), bids, strict=True):
        game.apply(BIDS[value], seat)
    for text in plays:
        game.apply(PLAYS[parse_card(text)])
    return game


COVER_HANDS = [
    cards("4D TD AD AC KC QC JC AH KH QH AS KS QS"),  # seat 0: the cover
    cards("2D 3D 5D 6D 2C 3C 4C 5C 2H 3H 4H 5H 2S"),
    cards("9D 7D 6C 7C 8C 6H 7H 8H 3S 4S 5S 6S 7S"),  # seat 2: nil
    cards("8D JD QD KD 9C TC 9H TH JH 8S 9S TS JS"),
]


def test_covers_a_partners_nil_by_overtaking():
    """Partner (seat 2, nil) is winning with 9D: seat 0 overtakes rather than ducks."""
    game = spades_first_trick(COVER_HANDS, (3, 0, 4, 6), ["2D", "9D", "8D"])
    choice = make_robot("heuristic").choose(game.view(0))
    assert choice in (PLAYS[parse_card("TD")], PLAYS[parse_card("AD")])


def test_covers_a_partners_nil_by_leading_high():
    """Seat 0 leads the first trick with its partner (seat 2) on nil: it leads an ace."""
    game = SpadesGame.from_hands(COVER_HANDS, dealer=3)
    for value in (4, 3, 0, 6):
        game.apply(BIDS[value])
    choice = make_robot("heuristic").choose(game.view(0))
    assert choice.card % 13 == 12 and choice.card // 13 != 3


def test_sets_an_opponents_nil_by_staying_under_the_bidder():
    """Seat 1 bid nil and is winning the trick with 9D: seat 0 stays under it with 4D."""
    hands = [COVER_HANDS[0], COVER_HANDS[2], COVER_HANDS[1], COVER_HANDS[3]]
    hands[0] = cards("4D TD AD AC KC QC JC AH KH QH AS KS QS")
    game = spades_first_trick(hands, (0, 3, 6, 4), ["9D", "2D", "8D"])
    assert make_robot("heuristic").choose(game.view(0)) == PLAYS[parse_card("4D")]


# -- Hearts --------------------------------------------------------------------------------


def test_dumps_the_queen_of_spades_at_the_first_void():
    view = hearts_view(
        seat=2, hand=cards("QS 5S 9H 2H 8C 9C TC JC QC KC AC 4S"),
        tricks=[(0, "2C 3C 4C 5C")],
        trick=[(1, "2D"), ])
    choice = make_robot("heuristic").choose(view)
    assert choice == PLAYS[parse_card("QS")]


def test_stops_an_obvious_moon():
    """Seat 1 has every point so far (Q♠ and nine hearts): seat 0 takes the heart trick."""
    tricks = [
        (0, "2C AC 3C 4C"),
        (1, "AS QS 2S 3S"),
        (1, "KD 2H 3D 4D"),
        (1, "AH 5H 6H 3H"),
        (1, "KH 7H 9H 4H"),
    ]
    hand = cards("AD QD 5C 6C QH 8H 4S 5S")
    trick = [(1, "JH"), (2, "5D"), (3, "TH")]
    view = hearts_view(seat=0, hand=hand, tricks=tricks, trick=trick)
    assert view.points_taken == (0, 22, 0, 0)
    assert make_robot("heuristic").choose(view) == PLAYS[parse_card("QH")]
    # With the queen of spades elsewhere there is no moon to stop: it ducks with the 8H.
    shared = [tricks[0], (1, "2S QS AS 3S"), (3, "3D 4D KD 2H"), *tricks[3:]]
    view = hearts_view(seat=0, hand=hand, tricks=shared, trick=trick)
    assert view.points_taken == (0, 9, 0, 13)
    assert make_robot("heuristic").choose(view) == PLAYS[parse_card("8H")]


def test_passes_the_queen_of_spades_without_low_spade_guards():
    hand = parse_cards(cards("QS AS 3S 2C 5C 9D TD JD 4H 5H 6H KH 8C"))
    passed = choose_pass(hand, 3)
    assert parse_card("QS") in passed and parse_card("AS") in passed


def test_keeps_a_guarded_queen_and_low_hearts():
    hand = parse_cards(cards("QS 2S 3S 4S 5S 2H 3H 4H AC KC 9D TD JD"))
    passed = choose_pass(hand, 3)
    assert parse_card("QS") not in passed
    assert not {parse_card(c) for c in ("2H", "3H", "4H")} & set(passed)


def test_a_heuristic_hearts_hand_is_quick_and_legal():
    game = HeartsGame(seed=11)
    robots = [make_robot("heuristic", s) for s in range(4)]
    play_game(game, robots, max_hands=2)
    assert len(game.hand_results) >= 1

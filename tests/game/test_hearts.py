"""Hearts rules, each test named for the rule it checks (DESIGN section 5)."""

import pytest

from tests.game.helpers import ONE_SUIT_EACH, SPLIT, first_legal, play, play_until, snapshot, suit
from trickroom.game.actions import MOON_CHOICES, IllegalAction, MoonChoice, Pass, Play
from trickroom.game.cards import parse_card, parse_cards
from trickroom.game.hearts import HeartsGame, HeartsRules, PassOptions

HOLD = HeartsRules(pass_cycle=("hold",))


def card(text):
    return parse_card(text)


def pass_of(*texts):
    return Pass(tuple(sorted(card(t) for t in texts)))


# -- passing ---------------------------------------------------------------------------


def test_the_pass_cycles_left_right_across_then_hold():
    g = HeartsGame(seed=4)
    directions = []
    for _ in range(5):
        directions.append(g.pass_direction)
        assert g.phase == ("play" if g.pass_direction == "hold" else "pass")
        play_until(g, {"pass", "play"})
        g.next_hand()
    assert directions == ["left", "right", "across", "hold", "left"]


def test_all_four_choose_their_pass_before_anyone_receives():
    g = HeartsGame.from_hands(ONE_SUIT_EACH)
    assert g.awaiting == (0, 1, 2, 3)
    events = g.apply(pass_of("2D", "3D", "4D"), seat=1)
    assert [(e.kind, e.to) for e in events] == [("passed", 1), ("pass_chosen", None)]
    assert g.awaiting == (0, 2, 3) and g.view(1).legal == ()
    assert g.hands[2] == parse_cards(suit("H"))  # nothing received yet
    assert g.view(2).passed == () and g.view(0).received == ()


def test_passes_go_left_and_each_seat_sees_what_it_passed_and_received():
    g = HeartsGame.from_hands(ONE_SUIT_EACH)  # the first hand passes left
    g.apply(pass_of("AC", "KC", "QC"), seat=0)
    g.apply(pass_of("AD", "KD", "QD"), seat=1)
    g.apply(pass_of("AH", "KH", "QH"), seat=2)
    events = g.apply(pass_of("AS", "KS", "QS"), seat=3)
    received = [e for e in events if e.kind == "received"]
    assert [(e.to, e.source) for e in received] == [(0, 3), (1, 0), (2, 1), (3, 2)]
    assert g.hands[1] & parse_cards(["AC", "KC", "QC"]) and not g.hands[0] & parse_cards(["AC"])
    view = g.view(1)
    assert set(view.passed) == {card("AD"), card("KD"), card("QD")}
    assert set(view.received) == {card("AC"), card("KC"), card("QC")}
    assert g.view(None).passed == () and g.view(None).received == ()
    assert g.phase == "play" and g.to_act == 0  # North kept the 2 of clubs


def test_a_pass_is_exactly_three_cards_from_ones_own_hand_once():
    g = HeartsGame.from_hands(ONE_SUIT_EACH)
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="pass exactly 3 cards, not 2"):
        g.apply(pass_of("2C", "3C"), seat=0)
    with pytest.raises(IllegalAction, match="you do not hold 2D"):
        g.apply(pass_of("2C", "3C", "2D"), seat=0)
    assert snapshot(g) == before
    g.apply(pass_of("2C", "3C", "4C"), seat=0)
    with pytest.raises(IllegalAction, match="already passed"):
        g.apply(pass_of("5C", "6C", "7C"), seat=0)


def test_the_pass_options_are_every_three_card_choice():
    options = PassOptions(parse_cards(suit("C")), 3)
    assert len(options) == 286 and len(set(options)) == 286
    assert pass_of("2C", "3C", "4C") in options and pass_of("2C", "3C", "2D") not in options


def test_a_seat_s_view_in_the_pass_offers_its_passes_without_listing_them():
    """A view is built for every seat on every event: its 286 passes stay lazy, and two
    views of one state are equal, as views of any other phase are."""
    g = HeartsGame.from_hands(ONE_SUIT_EACH)
    view = g.view(0)
    assert isinstance(view.legal, PassOptions) and len(view.legal) == 286
    assert pass_of("2C", "3C", "4C") in view.legal and pass_of("2D", "3D", "4D") not in view.legal
    assert view == g.view(0) and hash(view.legal) == hash(g.view(0).legal)
    assert view.legal != g.view(1).legal


# -- the first trick --------------------------------------------------------------------


def test_the_holder_of_the_two_of_clubs_leads_it():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    assert g.to_act == 0 and list(g.legal_actions()) == [Play(card("2C"))]
    with pytest.raises(IllegalAction, match="led with the 2 of clubs"):
        g.apply(Play(card("AC")))


def test_any_club_first_lets_the_holder_lead_any_club():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HeartsRules(pass_cycle=("hold",),
                                                               any_club_first=True))
    assert len(g.legal_actions()) == 13


def test_no_points_on_the_first_trick_unless_the_hand_holds_nothing_else():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    play(g, "2C", "2D")
    assert len(g.legal_actions()) == 13  # South holds only hearts
    play(g, "2H")
    assert Play(card("QS")) not in g.legal_actions()
    with pytest.raises(IllegalAction, match="no points on the first trick"):
        g.apply(Play(card("QS")))


def test_blood_on_the_first_trick_allows_the_queen():
    rules = HeartsRules(pass_cycle=("hold",), blood_on_first_trick=True)
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=rules)
    play(g, "2C", "2D", "2H", "QS")
    assert g.tricks[0].points == 14


# -- hearts broken ------------------------------------------------------------------------


def test_hearts_may_not_be_led_until_broken():
    g = HeartsGame.from_hands(SPLIT, rules=HOLD)
    play(g, "2C", "7C", "JC", "AC")
    assert g.to_act == 3
    assert not any(a.card // 13 == 2 for a in g.legal_actions())
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="hearts are not broken"):
        g.apply(Play(card("AH")))
    assert snapshot(g) == before


def test_a_heart_played_on_another_suit_breaks_hearts():
    g = HeartsGame.from_hands(SPLIT, rules=HOLD)
    tricks = ["2C 7C JC AC", "AD 2D 5D 9D", "KD 3D 6D TD", "QD 4D 7D JD", "TS 2S 4S 6S",
              "JS 3S 5S 7S"]
    for trick in tricks:
        play(g, *trick.split())
    play(g, "KS")
    assert not g.broken
    play(g, "2H")  # North is void in spades and sloughs a heart
    assert g.broken


def test_only_hearts_may_be_led_when_the_leader_holds_nothing_else():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    play(g, "2C", "2D", "2H", "2S")
    assert g.to_act == 0  # North's club won; North holds only clubs
    assert all(a.card // 13 == 0 for a in g.legal_actions())


def test_the_queen_of_spades_breaks_hearts_only_under_that_rule():
    rules = HeartsRules(pass_cycle=("hold",), queen_breaks_hearts=True)
    for r, broken in ((HOLD, False), (rules, True)):
        g = HeartsGame.from_hands(SPLIT, rules=r)
        play(g, "2C", "7C", "JC", "AC", "AS", "2S", "4S", "6S", "QS")
        assert g.broken is broken


# -- points and the moon ----------------------------------------------------------------------


def test_each_heart_costs_one_and_the_queen_of_spades_thirteen():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    play(g, "2C", "2D", "2H", "2S")
    assert g.tricks[0].points == 1


def test_taking_every_point_shoots_the_moon_and_adds_26_to_the_others():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HOLD)
    play_until(g, {"play"}, first_legal)
    result = g.hand_results[-1]
    assert result.moon == 0 and result.taken == (26, 0, 0, 0)
    assert result.points == (0, 26, 26, 26) and g.scores == [0, 26, 26, 26]


def test_the_moon_can_subtract_26_from_the_shooter_instead():
    rules = HeartsRules(pass_cycle=("hold",), moon="subtract_from_shooter")
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=rules)
    play_until(g, {"play"}, first_legal)
    assert g.scores == [-26, 0, 0, 0]


def test_the_shooter_may_choose_how_the_moon_scores():
    rules = HeartsRules(pass_cycle=("hold",), moon="shooter_chooses")
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=rules)
    play_until(g, {"play"}, first_legal)
    assert g.phase == "moon" and g.to_act == 0
    assert tuple(g.legal_actions()) == MOON_CHOICES
    with pytest.raises(IllegalAction, match="not your turn"):
        g.apply(MoonChoice("add"), seat=1)
    g.apply(MoonChoice("subtract"))
    assert g.scores == [-26, 0, 0, 0] and g.hand_results[-1].moon_choice == "subtract"


def test_the_jack_of_diamonds_scores_minus_ten_when_the_rule_is_on():
    rules = HeartsRules(pass_cycle=("hold",), jack_of_diamonds=True)
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=rules)
    play_until(g, {"play"}, first_legal)
    # North took every card: a moon (hearts and the queen) plus the jack.
    assert g.hand_results[-1].taken == (16, 0, 0, 0)
    assert g.scores == [-10, 26, 26, 26]


# -- the end of the game ------------------------------------------------------------------------


def test_the_game_ends_at_the_target_and_the_lowest_score_wins():
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=HeartsRules(pass_cycle=("hold",), target=26))
    play_until(g, {"play"}, first_legal)
    assert g.phase == "game_over" and g.winners == (0,) and g.winner == 0


def test_equal_lowest_scores_are_a_tie():
    rules = HeartsRules(pass_cycle=("hold",), target=26, moon="subtract_from_shooter")
    g = HeartsGame.from_hands(ONE_SUIT_EACH, rules=rules)
    play_until(g, {"play"}, first_legal)
    assert g.phase == "hand_over"  # -26 is not at the target of 26
    g2 = HeartsGame(HeartsRules(target=1), seed=2)
    play_until(g2, {"pass", "play"})
    low = min(g2.scores)
    assert g2.winners == tuple(s for s in range(4) if g2.scores[s] == low)


def test_a_spectator_sees_no_hand_and_no_pass():
    g = HeartsGame(seed=8)
    for seat in range(4):
        g.apply(g.legal_actions(seat)[0], seat=seat)
    spectator = g.view(None)
    assert spectator.hand == 0 and spectator.passed == () and spectator.received == ()
    assert spectator.legal == ()


@pytest.mark.parametrize("jack", [False, True], ids=["plain", "jack-of-diamonds"])
def test_a_won_trick_names_its_scoring_cards_and_they_add_up_to_its_points(jack):
    """trick_won says which cards score, so a client shows them without counting itself."""
    from trickroom.game.robots import make_robot

    rules = HeartsRules(target=60, jack_of_diamonds=jack)
    game = HeartsGame(rules, seed=11)
    robots = [make_robot("random", s) for s in range(4)]
    seen = 0
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        seat = game.to_act if game.to_act is not None else game.awaiting[0]
        for event in game.apply(robots[seat].choose(game.view(seat)), seat):
            if event.kind != "trick_won":
                continue
            wire = event.to_wire()
            scoring = wire["scoring"]
            assert set(scoring) <= set(wire["cards"])
            hearts = sum(c.endswith("H") for c in scoring)
            queen = 13 if "QS" in scoring else 0
            jd = rules.jack_value if "JD" in scoring else 0
            assert hearts + queen + jd == wire["points"], wire
            assert ("JD" in scoring) == (jack and "JD" in wire["cards"])
            assert all(c.endswith("H") or c in ("QS", "JD") for c in scoring)
            seen += bool(scoring)
    assert seen > 5


def test_the_game_ends_at_its_hand_limit_the_lowest_score_winning():
    """A moon shot off one's own score, or a jack of diamonds worth more than the hearts,
    can keep every score below the target: after ``hand_limit`` hands the game ends."""
    g = HeartsGame(rules=HeartsRules(hand_limit=2), seed=4)
    while g.phase != "game_over":
        if g.phase == "hand_over":
            g.next_hand()
        play_until(g, {"pass", "play", "moon"})
    assert len(g.hand_results) == 2 and max(g.scores) < g.rules.target
    assert g.winners == tuple(s for s in range(4) if g.scores[s] == min(g.scores))

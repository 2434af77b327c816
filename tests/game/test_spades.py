"""Spades rules, each test named for the rule it checks (DESIGN section 4)."""

import pytest

from tests.game.helpers import MIXED, ONE_SUIT_EACH, first_legal, play, play_until, snapshot, suit
from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, PLAYS, Bid, IllegalAction, Pass, Play
from trickroom.game.cards import parse_card
from trickroom.game.events import visible_to
from trickroom.game.spades import SpadesGame, SpadesRules, score_hand, winning_side


def bid_all(game, values):
    for v in values:
        game.apply(Bid(v))


def cards(*texts):
    return {parse_card(t) for t in texts}


# -- bidding ---------------------------------------------------------------------


def test_bidding_starts_left_of_the_dealer_and_goes_once_round():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=1)
    assert g.phase == "bid" and g.to_act == 2
    bid_all(g, [3, 3, 3])
    assert g.phase == "bid" and g.to_act == 1
    g.apply(Bid(3))
    assert g.phase == "play" and g.to_act == 2  # left of dealer leads


def test_bids_run_from_nil_to_13():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3)
    assert list(g.legal_actions()) == list(BIDS)
    with pytest.raises(IllegalAction, match="bid 14 is out of range"):
        g.apply(Bid(14))


def test_partners_bids_may_not_exceed_13():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3)
    bid_all(g, [8, 2])
    assert max(a.value for a in g.legal_actions()) == 5
    with pytest.raises(IllegalAction, match="team bid cap"):
        g.apply(Bid(6))


def test_the_team_cap_can_be_switched_off():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, rules=SpadesRules(team_bid_cap_13=False))
    bid_all(g, [8, 2])
    g.apply(Bid(13))
    assert g.bids[2] == 13


def test_a_minimum_team_bid_binds_the_second_partner():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, rules=SpadesRules(min_team_bid=4))
    bid_all(g, [1, 2])
    values = [a.value for a in g.legal_actions()]
    assert 0 not in values and min(values) == 3
    with pytest.raises(IllegalAction, match="minimum team bid is 4"):
        g.apply(Bid(2))
    with pytest.raises(IllegalAction, match="may not bid nil"):
        g.apply(Bid(0))


def test_blind_nil_is_off_by_default():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3)
    assert BLIND_NIL not in g.legal_actions()
    with pytest.raises(IllegalAction, match="blind nil is not allowed"):
        g.apply(BLIND_NIL)


def trailing_game():
    """North-South trail by 151 after one hand: West takes every trick."""
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, seed=9,
                              rules=SpadesRules(blind_nil=True, bag_limit=None))
    assert g.legal_actions()[0] == BIDS[0]  # nobody trails yet: no blind nil
    bid_all(g, [6, 1, 6, 1])
    play_until(g, {"play"})
    assert g.scores == [-120, 31]
    g.next_hand()
    return g


def test_blind_nil_is_offered_before_looking_only_to_a_side_trailing_by_100():
    g = trailing_game()
    trailing = [s for s in range(4) if s % 2 == 0]
    for seat in range(4):
        view = g.view(seat)
        assert view.sees_hand == (seat not in trailing)
        assert (view.hand == 0) == (seat in trailing)
    first = g.to_act
    assert first == 1  # dealer rotated to North, so East bids first
    assert BLIND_NIL not in g.legal_actions()
    g.apply(Bid(3))
    assert list(g.legal_actions()) == [BLIND_NIL, LOOK]  # South, trailing, has not looked


def test_a_seat_that_looks_bids_normally_and_loses_blind_nil():
    g = trailing_game()
    g.apply(Bid(3))
    events = g.apply(LOOK)
    assert [e.kind for e in events] == ["looked", "dealt"]
    assert events[1].to == 2 and g.view(2).hand == g.hands[2]
    assert BLIND_NIL not in g.legal_actions()
    with pytest.raises(IllegalAction, match="before looking"):
        g.apply(BLIND_NIL)


def test_blind_nil_scores_200_either_way():
    rules = SpadesRules(blind_nil=True)
    made = score_hand(rules, 0, 0, [0, 4, 5, 4], [True, False, False, False],
                      [0, 5, 5, 3], [0, 0], [0, 0])
    assert made.sides[0].nil_points == 200
    lost = score_hand(rules, 0, 0, [0, 4, 5, 4], [True, False, False, False],
                      [1, 5, 4, 3], [0, 0], [0, 0])
    assert lost.sides[0].nil_points == -200


def test_blind_nil_may_not_leave_the_side_under_the_minimum_team_bid():
    """A plain nil that leaves the side short is refused; so is a blind one (it was not)."""
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, seed=9,
                              rules=SpadesRules(blind_nil=True, bag_limit=None, min_team_bid=4))
    bid_all(g, [6, 2, 6, 2])
    play_until(g, {"play"})
    g.next_hand()
    g.apply(Bid(3))  # East
    g.apply(LOOK)  # South, trailing, looks...
    g.apply(Bid(2))  # ...and bids 2
    g.apply(Bid(3))  # West
    assert g.to_act == 0 and not g.view(0).sees_hand  # North may still bid blind...
    assert list(g.legal_actions()) == [LOOK]  # ...but not with partner at 2 of 4
    with pytest.raises(IllegalAction, match="minimum team bid is 4"):
        g.apply(BLIND_NIL)
    g.apply(LOOK)
    assert 0 not in [a.value for a in g.legal_actions()]


def test_blind_nil_reveals_the_hand_after_the_bid():
    g = trailing_game()
    g.apply(Bid(3))
    events = g.apply(BLIND_NIL)
    assert [e.kind for e in events] == ["bid", "dealt"]
    assert g.blind[2] and g.view(2).sees_hand


# -- play ----------------------------------------------------------------------------


def test_the_first_lead_may_not_be_a_spade_unless_the_leader_holds_only_spades():
    c, d, h, s = suit("C"), suit("D"), suit("H"), suit("S")
    hands = [c[:6] + s[:7], c[6:] + d[:6], d[6:] + h[:6], h[6:] + s[7:]]
    g = SpadesGame.from_hands(hands, dealer=3)
    bid_all(g, [3, 3, 3, 3])
    assert all(PLAYS[c].card // 13 == 0 for c in [a.card for a in g.legal_actions()])
    with pytest.raises(IllegalAction, match="first lead may not be a spade"):
        g.apply(Play(parse_card("2S")))


def test_a_leader_holding_only_spades_may_lead_one():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=2)  # West leads, holding only spades
    bid_all(g, [3, 3, 3, 3])
    assert g.to_act == 3 and len(g.legal_actions()) == 13


def test_with_two_of_clubs_leads_its_holder_leads_it():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=0, rules=SpadesRules(two_of_clubs_leads=True))
    bid_all(g, [3, 3, 3, 3])
    assert g.to_act == 0 and list(g.legal_actions()) == [Play(parse_card("2C"))]
    with pytest.raises(IllegalAction, match="led with the 2 of clubs"):
        g.apply(Play(parse_card("3C")))


def test_players_must_follow_suit_when_able():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    bid_all(g, [1, 1, 1, 1])
    g.apply(Play(parse_card("2D")))
    assert {a.card for a in g.legal_actions()} == cards("5D", "6D", "7D")
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="must follow suit: diamonds were led"):
        g.apply(Play(parse_card("5S")))
    assert snapshot(g) == before


def test_spades_trump_and_otherwise_the_highest_card_of_the_led_suit_wins():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    bid_all(g, [1, 1, 1, 1])
    play(g, "2C", "9C", "KC", "AC")
    assert g.tricks[-1].seat == 3 and g.to_act == 3  # ace of clubs
    play(g, "AD", "4D", "7D", "TD")
    assert g.tricks[-1].seat == 3
    play(g, "KD", "3D", "6D", "9D")
    play(g, "QD", "2D", "5D", "8D")
    # West leads the jack of diamonds; North, void, trumps with the 2 of spades.
    play(g, "JD", "2S", "5H", "8H")
    assert g.tricks[-1].seat == 0


def test_spades_may_not_be_led_until_broken_and_a_trump_breaks_them():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    bid_all(g, [1, 1, 1, 1])
    play(g, "2C", "9C", "KC", "AC")
    assert not any(a.card >= 39 for a in g.legal_actions())
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="spades are not broken"):
        g.apply(Play(parse_card("AS")))
    assert snapshot(g) == before
    assert not g.broken


def test_spades_always_leadable_allows_a_spade_lead_after_the_first_trick():
    g = SpadesGame.from_hands(MIXED, dealer=3, rules=SpadesRules(spades_always_leadable=True))
    bid_all(g, [1, 1, 1, 1])
    play(g, "2C", "9C", "KC", "AC", "AS")
    assert g.broken


def test_a_card_not_in_hand_and_a_play_out_of_turn_are_refused():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    bid_all(g, [1, 1, 1, 1])
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="you do not hold AC") as err:
        g.apply(Play(parse_card("AC")))
    assert err.value.code == "illegal_action"
    with pytest.raises(IllegalAction, match="not your turn") as err:
        g.apply(Play(parse_card("6C")), seat=1)
    assert err.value.code == "not_your_turn"
    with pytest.raises(IllegalAction, match="not an action in Spades"):
        g.apply(Pass((0, 1, 2)))
    with pytest.raises(IllegalAction, match="bid phase") as err:
        g.apply(Bid(3))
    assert err.value.code == "wrong_phase"
    assert snapshot(g) == before


def test_cards_are_not_played_during_the_bidding():
    g = SpadesGame.from_hands(MIXED, dealer=3)
    before = snapshot(g)
    with pytest.raises(IllegalAction, match="play phase"):
        g.apply(Play(parse_card("2C")))
    assert snapshot(g) == before


# -- scoring ------------------------------------------------------------------------


DEFAULT = SpadesRules()


def score(bids, tricks, rules=DEFAULT, bags=(0, 0), blind=(False,) * 4):
    return score_hand(rules, 0, 0, bids, blind, tricks, [0, 0], list(bags))


def test_a_made_contract_scores_10_a_bid_trick_and_1_a_bag():
    side = score([4, 3, 2, 3], [5, 3, 2, 3]).sides[0]
    assert (side.contract, side.made, side.contract_points, side.bags, side.points) == (
        6, True, 60, 1, 61)


def test_a_set_contract_loses_10_a_bid_trick_and_takes_no_bags():
    side = score([4, 3, 5, 1], [4, 4, 1, 4]).sides[0]
    assert (side.made, side.points, side.bags) == (False, -90, 0)


def test_nil_scores_100_made_and_minus_100_set():
    r = score([0, 3, 4, 3], [0, 3, 6, 4])
    assert r.sides[0].nil_points == 100 and r.sides[0].points == 100 + 40 + 2
    r = score([0, 3, 4, 3], [1, 3, 5, 4])
    assert r.sides[0].nil_points == -100


def test_a_nil_bidders_tricks_count_for_the_partner_as_bags_beyond_the_contract():
    r = score([0, 3, 4, 3], [2, 3, 4, 4])
    assert r.sides[0].tricks == 6 and r.sides[0].bags == 2
    assert r.sides[0].points == -100 + 40 + 2


def test_with_the_option_off_a_nil_bidders_tricks_do_not_help_the_partner():
    rules = SpadesRules(nil_tricks_count_for_partner=False)
    r = score([0, 3, 4, 3], [2, 3, 3, 5], rules=rules)
    assert r.sides[0].tricks == 3 and r.sides[0].made is False
    assert r.sides[0].points == -100 - 40


def test_the_nil_value_is_a_rule():
    r = score([0, 3, 4, 3], [0, 3, 6, 4], rules=SpadesRules(nil_value=50))
    assert r.sides[0].nil_points == 50


def test_every_tenth_bag_costs_100_and_the_rest_carry_over():
    r = score([3, 3, 3, 3], [8, 0, 2, 3], bags=(8, 0))
    side = r.sides[0]
    assert side.bags == 4 and side.bag_penalty == -100 and side.bags_total == 2
    assert side.points == 60 + 4 - 100


def test_bags_can_be_switched_off():
    r = score([3, 3, 3, 3], [8, 0, 2, 3], rules=SpadesRules(bag_limit=None), bags=(8, 0))
    assert r.sides[0].bag_penalty == 0 and r.sides[0].bags_total == 12


def test_a_side_that_bids_double_nil_has_no_contract():
    r = score([0, 3, 0, 3], [0, 6, 0, 7])
    assert r.sides[0].made is None and r.sides[0].points == 200


# -- the end of the game ----------------------------------------------------------------


def test_the_game_ends_when_a_side_reaches_the_target_and_the_higher_score_wins():
    rules = SpadesRules()
    assert winning_side(rules, [500, 420]) == 0
    assert winning_side(rules, [510, 530]) == 1
    assert winning_side(rules, [499, 300]) is None


def test_equal_scores_at_the_end_play_another_hand():
    assert winning_side(SpadesRules(), [520, 520]) is None


def test_mercy_ends_the_game_when_a_side_falls_that_low():
    assert winning_side(SpadesRules(), [-250, 100]) is None
    assert winning_side(SpadesRules(mercy=200), [-200, 100]) == 1


def test_a_played_hand_that_reaches_the_target_ends_the_game():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, rules=SpadesRules(target=20, bag_limit=None))
    bid_all(g, [1, 1, 1, 1])
    events = []
    while g.phase == "play":
        events += g.apply(g.legal_actions()[0])
    assert g.phase == "game_over" and g.winners == (1, 3) and g.winner == 1
    assert [e.kind for e in events[-2:]] == ["hand_scored", "game_over"]
    with pytest.raises(IllegalAction, match="no one may act"):
        g.apply(Bid(1))


def test_the_dealer_rotates_left_each_hand():
    g = SpadesGame(seed=3)
    dealers = []
    for _ in range(3):
        dealers.append(g.dealer)
        play_until(g, {"bid", "play"}, first_legal)
        g.next_hand()
    assert dealers == [(dealers[0] + i) % 4 for i in range(3)]


# -- what each seat sees -----------------------------------------------------------------


def test_a_view_holds_only_the_seats_own_cards():
    g = SpadesGame(seed=11)
    for seat in range(4):
        assert g.view(seat).hand == g.hands[seat]
    assert g.view(None).hand == 0
    assert g.view(0).hand_sizes == (13, 13, 13, 13)


def test_legal_actions_are_shown_only_to_the_seat_to_act():
    g = SpadesGame(seed=11)
    for seat in range(4):
        assert bool(g.view(seat).legal) == (seat == g.to_act)


def test_each_deal_event_is_for_its_own_seat():
    g = SpadesGame(seed=11)
    dealt = [e for e in g.opening_events() if e.kind == "dealt"]
    assert [e.to for e in dealt] == [0, 1, 2, 3]
    assert not visible_to(dealt[0], None) and not visible_to(dealt[0], 1)


def test_result_reports_nil_bids_made_set_and_faced():
    g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, rules=SpadesRules(target=20, bag_limit=None))
    bid_all(g, [0, 0, 4, 1])  # North nil, East nil
    play_until(g, {"play"})
    out = g.result()
    north, east, south, west = out.nil
    assert (north.bid, north.made) == (1, 1)  # North took nothing
    assert (east.bid, east.made) == (1, 1)
    assert (south.faced, south.set_opponents) == (1, 0)
    assert (west.faced, west.set_opponents) == (1, 0)
    assert out.finished and out.winners == (1, 3) and out.hands_played == 1
    assert g.taken[3] == (1 << 52) - 1 and g.tricks_won == [0, 0, 0, 13]


def test_the_game_ends_at_its_hand_limit_the_higher_score_winning_or_a_draw():
    """Issue 32, A: no game lasts for ever. After ``hand_limit`` hands it ends on the score
    as it stands, short of the target: the higher side wins; equal scores are a draw."""
    for bid in (1, 3):  # (each seat bids it: equal sides or not, by how the tricks fall)
        g = SpadesGame.from_hands(ONE_SUIT_EACH, dealer=3, rules=SpadesRules(hand_limit=1))
        for _ in range(4):
            g.apply(Bid(bid))
        play_until(g, {"play"})
        assert g.phase == "game_over" and max(g.scores) < g.rules.target
        s0, s1 = g.scores
        assert g.winners == (() if s0 == s1 else (0, 2) if s0 > s1 else (1, 3))


def test_a_game_recorded_before_the_bounds_came_down_replays_as_it_was_played():
    """Its rules were those of its day: a target of 5000, no mercy and no hand limit. Its
    review and its resumption replay it as it was, past the 100 hands of today's default."""
    from trickroom.game.variants import UNLIMITED_HANDS, recorded_rules

    old = recorded_rules(SpadesRules, {"target": 5000, "mercy": None})
    game = SpadesGame(old, seed=3)
    while len(game.hand_results) < 101:
        if game.phase == "hand_over":
            game.next_hand()
        play_until(game, {"bid", "play"})
    record = game.record()
    record["rules"] = {"target": 5000, "mercy": None}  # as stored then: no hand_limit
    replayed = SpadesGame.replay(record)
    assert replayed.rules.target == 5000 and replayed.rules.hand_limit == UNLIMITED_HANDS
    assert len(replayed.hand_results) == 101 and replayed.scores == game.scores
    with pytest.raises(ValueError, match="target"):
        SpadesRules(target=5000)  # a new table may not


def test_a_hands_score_sheet_and_nil_record_go_on_the_wire_field_by_field():
    # to_wire spells each field out (a compiled dataclass has no __dict__): none forgotten.
    from dataclasses import fields

    from trickroom.game.outcome import NilStats
    from trickroom.game.spades import SideScore

    result = score_hand(SpadesRules(), 0, 0, [4, 3, 0, 2], [False] * 4, [4, 3, 1, 5], [0, 0],
                        [0, 0])
    side = result.sides[0]
    assert isinstance(side, SideScore)
    assert set(side.to_wire()) == {f.name for f in fields(SideScore)}
    assert side.to_wire()["contract"] == side.contract
    stats = NilStats().add_bid(made=True, blind=False)
    assert stats.to_wire() == {f.name: getattr(stats, f.name) for f in fields(NilStats)}

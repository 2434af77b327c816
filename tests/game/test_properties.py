"""Properties over random seeds and random legal play, for several rule presets."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.game.helpers import snapshot
from trickroom.game.actions import BIDS, PLAYS, IllegalAction, Pass
from trickroom.game.cards import CARD_TEXT, FULL_DECK
from trickroom.game.events import visible_to
from trickroom.game.hearts import HeartsGame, HeartsRules
from trickroom.game.spades import SpadesGame, SpadesRules
from trickroom.game.trickgame import TrickGame, trick_wire

SPADES_PRESETS = [
    SpadesRules(mercy=200),
    SpadesRules(target=300, mercy=150, blind_nil=True, blind_nil_deficit=50, nil_value=50),
    SpadesRules(target=250, mercy=200, team_bid_cap_13=False, min_team_bid=4,
                two_of_clubs_leads=True, spades_always_leadable=True, bag_limit=5,
                bag_penalty=50, nil_tricks_count_for_partner=False),
    SpadesRules(target=200, mercy=100, bag_limit=None, blind_nil=True),
]
HEARTS_PRESETS = [
    HeartsRules(),
    HeartsRules(target=50, moon="subtract_from_shooter", jack_of_diamonds=True,
                blood_on_first_trick=True, queen_breaks_hearts=True),
    HeartsRules(target=60, moon="shooter_chooses", any_club_first=True,
                pass_cycle=("left", "right", "across")),
]
SPADES = [(SpadesGame, r) for r in SPADES_PRESETS]
HEARTS = [(HeartsGame, r) for r in HEARTS_PRESETS]
GAMES = SPADES + HEARTS

fast = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def start(preset: tuple[type[TrickGame], Any], seed: int) -> TrickGame:
    cls, rules = preset
    return cls(rules, seed=seed)


def games(presets: list[tuple[type[TrickGame], Any]]) -> st.SearchStrategy[TrickGame]:
    """A new game of one of ``presets`` (an engine and its rules) on any seed; the random
    play of a test draws from ``random.Random(game.seed)``."""
    return st.builds(start, st.sampled_from(presets), st.integers(0, 2**32 - 1))


def play_game(game: TrickGame, rng: random.Random, on_action=None, stop_after: int | None = None):
    """Random legal play to the end (or ``stop_after`` hands); returns every event."""
    events = list(game.opening_events())
    while game.phase != "game_over":
        if stop_after is not None and len(game.hand_results) >= stop_after:
            break
        assert game.hand_no < 200, "the game did not end"
        if game.phase == "hand_over":
            events += game.next_hand()
            continue
        seat = rng.choice(game.awaiting)
        if on_action:
            on_action(game, seat, rng)
        events += game.apply(rng.choice(game.legal_actions(seat)), seat)
    return events


@fast
@given(game=games(GAMES))
def test_every_game_ends_and_every_hand_plays_each_card_once(game):
    events = play_game(game, random.Random(game.seed))
    tricks = [e for e in events if e.kind == "trick_won"]
    assert len(tricks) == 13 * len(game.hand_results)
    for h in range(len(game.hand_results)):
        hand = tricks[13 * h: 13 * h + 13]
        assert [t.trick_no for t in hand] == list(range(13))
        played = [c for t in hand for c in t.cards]
        assert len(played) == 52 and len(set(played)) == 52
    assert game.winners and game.result().finished


@fast
@given(game=games(HEARTS))
def test_hearts_points_per_hand_total_26_or_the_moon(game):
    rules = game.rules
    play_game(game, random.Random(game.seed))
    jack = rules.jack_value if rules.jack_of_diamonds else 0
    for result in game.hand_results:
        assert sum(result.taken) == 26 + jack
        if result.moon is None:
            assert result.points == result.taken
        elif result.moon_choice == "add":
            assert sum(result.points) == 78 + jack
        else:
            assert sum(result.points) == -26 + jack
    totals = [sum(r.points[s] for r in game.hand_results) for s in range(4)]
    assert totals == game.scores


def recompute_spades(rules: SpadesRules, bids, blind, tricks, bags_before):
    """An independent reading of DESIGN section 4's scoring table."""
    out = []
    for side in (0, 1):
        me, partner = side, side + 2
        points, bags = 0, 0
        contract = sum(b for b in (bids[me], bids[partner]) if b)
        counted = sum(t for s, t in ((me, tricks[me]), (partner, tricks[partner]))
                      if bids[s] or rules.nil_tricks_count_for_partner)
        if contract and counted < contract:
            points -= 10 * contract
        else:
            points += 10 * contract
            bags = counted - contract
        for s in (me, partner):
            if bids[s] == 0:
                value = rules.blind_nil_value if blind[s] else rules.nil_value
                points += -value if tricks[s] else value
        total_bags = bags_before[side] + bags
        points += bags
        if rules.bag_limit:
            points -= rules.bag_penalty * (total_bags // rules.bag_limit)
            total_bags %= rules.bag_limit
        out.append((points, total_bags))
    return out


@fast
@given(game=games(SPADES))
def test_spades_hand_scores_equal_a_recomputation_and_bags_carry(game):
    rules = game.rules
    play_game(game, random.Random(game.seed))
    scores, bags = [0, 0], [0, 0]
    for result in game.hand_results:
        assert sum(result.tricks_won) == 13
        expected = recompute_spades(rules, result.bids, result.blind, result.tricks_won, bags)
        for side, (points, carried) in enumerate(expected):
            assert result.sides[side].points == points
            assert result.sides[side].bags_total == carried
            scores[side] += points
            bags[side] = carried
    assert scores == game.scores and bags == game.bags


@fast
@given(game=games(GAMES))
def test_replaying_the_record_rebuilds_the_same_game(game):
    play_game(game, random.Random(game.seed))
    record = json.loads(json.dumps(game.record()))  # as stored: JSON text
    again = type(game).replay(record)
    assert snapshot(again) == snapshot(game)
    assert again.hand_results == game.hand_results


def wrong_actions(game: TrickGame, seat: int, rng: random.Random):
    """A few actions that must be refused now: off-turn seats, illegal cards and bids."""
    legal = set(game.legal_actions(seat))
    others = [s for s in range(4) if s not in game.awaiting]
    candidates = [a for a in (rng.choice(PLAYS), rng.choice(BIDS)) if a not in legal]
    if others:
        candidates.append((rng.choice(list(legal)), rng.choice(others)))
    if game.phase == "pass":
        candidates.append(Pass(tuple(sorted(rng.sample(range(52), 2)))))
    return candidates


@fast
@given(game=games(GAMES))
def test_an_illegal_action_changes_nothing(game):
    refused = []

    def try_wrong(g, seat, rng):
        if rng.random() > 0.2:
            return
        for wrong in wrong_actions(g, seat, rng):
            action, who = wrong if isinstance(wrong, tuple) else (wrong, seat)
            before = snapshot(g)
            try:
                g.apply(action, who)
            except IllegalAction as err:
                assert str(err)
                refused.append(err.code)
            else:
                raise AssertionError(f"{action} for seat {who} was accepted")
            assert snapshot(g) == before

    play_game(game, random.Random(game.seed), on_action=try_wrong, stop_after=4)
    assert refused


@fast
@given(game=games(GAMES))
def test_no_view_or_event_shows_a_card_another_seat_holds(game):
    seen_by: dict[int | None, list[str]] = {s: [] for s in (None, 0, 1, 2, 3)}

    def check(g, _seat, rng):
        if rng.random() > 0.3:
            return
        for viewer in (None, 0, 1, 2, 3):
            view = g.view(viewer)
            mine = g.hands[viewer] if viewer is not None else 0
            if not getattr(view, "sees_hand", True):
                mine = 0  # a seat that may still bid blind nil has not looked
            assert view.hand == mine
            text = json.dumps(view.to_wire())
            known = mine | sum(1 << c for c in getattr(view, "passed", ()))
            for c in range(52):
                hidden = any(g.hands[o] >> c & 1 for o in range(4) if o != viewer)
                if hidden and not known >> c & 1:
                    assert f'"{CARD_TEXT[c]}"' not in text, (viewer, CARD_TEXT[c])

    events = play_game(game, random.Random(game.seed), on_action=check, stop_after=4)
    for e in events:
        for viewer in seen_by:
            if visible_to(e, viewer) and e.kind in ("dealt", "received", "passed"):
                assert e.to == viewer
    deals = [e for e in events if e.kind == "dealt"]
    for e in deals:
        assert e.cards & FULL_DECK == e.cards


@fast
@given(game=games(GAMES))
def test_every_view_sends_the_hand_results_as_made_afresh(game):
    """The game keeps its hand results' wire form (made once, at each hand's end); every
    view of every seat sends exactly what the results say, in a long game as in a short."""
    def check(game: TrickGame, seat: int, rng: random.Random) -> None:
        for who in (seat, None):
            view = game.view(who)
            afresh = [result.to_wire() for result in game.hand_results]
            assert list(view.hand_results_wire) == afresh  # kept, every one of them
            sent = view.to_wire()["hand_results"]
            assert sent == afresh
            assert json.loads(json.dumps(sent)) == sent  # plain JSON values, as sent

    play_game(game, random.Random(game.seed), on_action=check)


@fast
@given(game=games(GAMES))
def test_every_view_sends_the_hands_won_tricks_as_made_afresh(game):
    """The game keeps this hand's won tricks in their wire form (each made once); every
    view sends exactly the tricks won so far, and a new hand starts with none."""
    def check(game: TrickGame, seat: int, rng: random.Random) -> None:
        for who in (seat, None):
            view = game.view(who)
            afresh = [trick_wire(trick) for trick in game.tricks]
            assert view.to_wire()["tricks"] == afresh
            assert len(afresh) == len(game.tricks) and list(view.tricks_wire) == afresh
            for trick, won in zip(afresh, game.tricks, strict=True):
                assert trick["cards"] == [CARD_TEXT[c] for c in won.cards]

    play_game(game, random.Random(game.seed), on_action=check)

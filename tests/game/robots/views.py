"""Ways to build the positions the robot tests need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from trickroom.game.actions import PLAYS
from trickroom.game.cards import SUIT_MASKS, parse_card, parse_cards
from trickroom.game.events import TrickWon
from trickroom.game.hearts import HeartsGame, HeartsRules, HeartsView


def cards(text: str) -> list[str]:
    """Card texts from one string: ``cards("AS KS 2C")``."""
    return text.split()


def hearts_view(seat: int, hand: Sequence[str], tricks: Sequence[tuple[int, str]],
                trick: Sequence[tuple[int, str]]) -> HeartsView:
    """The view of ``seat`` holding ``hand`` after ``tricks`` and with ``trick`` on the table.

    ``tricks`` are (leader, "c1 c2 c3 c4") in play order; the winner is worked
    out by the rules. The other seats' hand sizes follow from the cards played.
    """
    rules = HeartsRules(pass_cycle=("hold",))
    base = HeartsGame(rules, seed=1).view(seat)
    won = []
    played = [0, 0, 0, 0]
    tricks_won = [0, 0, 0, 0]
    points = [0, 0, 0, 0]
    for no, (leader, text) in enumerate(tricks):
        cards = tuple(parse_card(t) for t in text.split())
        led = cards[0] // 13
        best = max(range(4), key=lambda i: cards[i] if cards[i] // 13 == led else -1)
        winner = (leader + best) % 4
        pts = sum(1 for c in cards if 26 <= c < 39) + (13 if 49 in cards else 0)
        won.append(TrickWon(winner, no, cards, leader, pts))
        for i in range(4):
            played[(leader + i) % 4] += 1
        tricks_won[winner] += 1
        points[winner] += pts
    on_table = tuple((s, parse_card(c)) for s, c in trick)
    for s, _ in on_table:
        played[s] += 1
    mask = parse_cards(hand)
    if on_table:
        follow = mask & SUIT_MASKS[on_table[0][1] // 13]
        legal = follow or mask
    else:
        legal = mask
    legal_plays = tuple(PLAYS[c] for c in range(52) if legal >> c & 1)
    broken = any(26 <= c < 39 for t in won for c in t.cards) or any(
        26 <= c < 39 for _, c in on_table)
    return replace(
        base, phase="play", to_act=seat, awaiting=(seat,), hand=mask,
        hand_sizes=tuple(13 - played[s] for s in range(4)),
        leader=on_table[0][0] if on_table else seat, trick=on_table, tricks=tuple(won),
        tricks_won=tuple(tricks_won), points_taken=tuple(points), hearts_broken=broken,
        legal=legal_plays)


"""Duplicate scoring: the same deals played again with the players moved, so that the
luck of the cards cancels (as duplicate bridge does, and as ``bench/robots.py`` compares
robots).

A duplicate match plays one game from a fixed seed (or deal list) several times: the
deals are the same in every game, since each hand is dealt from the game's own seed
whatever is played, and between games every player moves one seat on. In Spades two
games do it (a shift of one seat gives each side the cards the other side held); in
Hearts four (each player holds each seat's cards once).

Each deal is then scored *against the field*: the cards a player held are compared with
how the other games' players did with the very same cards. A hand's points, "more is
better", are a Spades side's points for the hand (both partners get them) and a Hearts
seat's points with the sign turned (fewer points is better there). A player's margin on a
deal is, averaged over the games, their points on the cards they held minus the mean of
the others' points on those cards; only deals every game reached count (a game may end
sooner than another on the same deals).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trickroom.game.cards import deal

MATCH_GAMES = {"spades": 2, "hearts": 4}  # games in a duplicate match


def hand_points(kind: str, result: Any) -> tuple[int, int, int, int]:
    """Each seat's points for one hand, more being better: a Spades side's points (to both
    partners) or minus a Hearts seat's points."""
    if kind == "spades":
        sides = result.sides
        return (sides[0].points, sides[1].points, sides[0].points, sides[1].points)
    points = result.points
    return (-points[0], -points[1], -points[2], -points[3])


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game of a match: who sat at each seat (a name as shown), and each hand's seat
    points (``hand_points``), hand by hand."""

    names: tuple[str, str, str, str]
    hands: tuple[tuple[int, int, int, int], ...]

    def to_wire(self) -> dict[str, Any]:
        return {"names": list(self.names), "hands": [list(h) for h in self.hands]}

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> PlayedGame:
        names = tuple(data["names"])
        hands = tuple(tuple(h) for h in data["hands"])
        assert len(names) == 4 and all(len(h) == 4 for h in hands)
        return cls(names, hands)


@dataclass(frozen=True, slots=True)
class PlayerMargin:
    """A player's result against the field: the seat they held in each game, and their
    margin deal by deal (points a deal) with its total."""

    name: str
    seats: tuple[int, ...]
    deals: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.deals)


def compare(games: Sequence[PlayedGame], first_seats: dict[str, int]) -> list[PlayerMargin]:
    """Each player's margin against the field. ``first_seats``: each player's seat in the
    first game; in game ``k`` they sit ``k`` seats on (the match moves everyone one seat
    a game). Only deals every game reached are compared."""
    n = len(games)
    if n < 2:
        return []
    deals = min(len(g.hands) for g in games)
    margins = []
    for name, first in first_seats.items():
        seats = tuple((first + k) % 4 for k in range(n))
        per_deal = []
        for d in range(deals):
            edge = 0.0
            for k, seat in enumerate(seats):
                others = [games[j].hands[d][seat] for j in range(n) if j != k]
                edge += games[k].hands[d][seat] - sum(others) / len(others)
            per_deal.append(round(edge / n, 2))
        margins.append(PlayerMargin(name, seats, tuple(per_deal)))
    return margins


# -- board sets: a duplicate room's deals, played at several tables (issue 39) ------------------

BOARD_DEALS = 40  # deals a board set holds (a game reaching more hands is compared on these)


def board_deals(seed: int, count: int = BOARD_DEALS) -> tuple[int, list[list[int]]]:
    """A board set's first dealer and its deals (four hand masks each, seat 0 first), drawn
    from ``seed`` as a game dealt from that seed draws them."""
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    return dealer, [deal(rng) for _ in range(count)]


def shifted(hands: Sequence[int], shift: int) -> list[int]:
    """One deal as the table of ``shift`` holds it: its seat ``s`` gets the cards the
    board set's seat ``(s + shift) % 4`` holds. In Spades a shift of one gives each side
    the other side's cards; in Hearts shifts 0 to 3 give each seat every seat's cards."""
    return [hands[(s + shift) % 4] for s in range(4)]


def shifted_dealer(dealer: int, shift: int) -> int:
    """The seat that deals at the table of ``shift``: the one holding the dealer's cards."""
    return (dealer - shift) % 4


def to_board(values: Sequence[Any], shift: int) -> list[Any]:
    """A table's four seat values in the board set's seats (seat ``b`` of the board set is
    the table's seat ``(b - shift) % 4``)."""
    return [values[(b - shift) % 4] for b in range(4)]


def from_board(values: Sequence[Any], shift: int) -> list[Any]:
    """Four values by the board set's seats, in the table of ``shift``'s seats."""
    return [values[(s + shift) % 4] for s in range(4)]


def field_margins(tables: Sequence[Sequence[int]], table: int) -> list[float]:
    """The margins on one deal of the players at ``table``, by board seat: their points
    (more being better: ``hand_points``) minus the mean of the other tables' points on the
    same cards. ``tables``: each table's ``hand_points`` in board seats.

    >>> field_margins([(60, 20, 60, 20), (40, 30, 40, 30)], 1)
    [-20.0, 10.0, -20.0, 10.0]
    """
    others = [t for k, t in enumerate(tables) if k != table]
    return [round(tables[table][b] - sum(t[b] for t in others) / len(others), 2)
            for b in range(4)]

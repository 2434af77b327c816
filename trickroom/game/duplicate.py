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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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

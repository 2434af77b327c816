"""A game's own account of how it ended, for the server to hand to ratings.

``Outcome`` holds only what the game knows: scores, winners, hands played, how
far the game got toward its target and each seat's nil record. The server adds
what only it knows (who sat where, robots, quits, seating mode) to build the
ratings' ``GameResult``; that is why ``game`` and ``ratings`` never import each
other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class NilStats:
    """One seat's nil record in one game.

    ``bid``/``made``/``set`` count the seat's own nil bids (``set`` = taken a
    trick, so the bid failed); ``faced``/``set_opponents`` count the opponents'
    nil bids and how many of them this seat's side set, the two numbers of the
    nil-setting skill ratio.
    """

    bid: int = 0
    made: int = 0
    set: int = 0
    blind: int = 0
    faced: int = 0
    set_opponents: int = 0

    def add_bid(self, made: bool, blind: bool) -> NilStats:
        return replace(self, bid=self.bid + 1, made=self.made + made, set=self.set + (not made),
                       blind=self.blind + blind)

    def add_faced(self, was_set: bool) -> NilStats:
        return replace(self, faced=self.faced + 1, set_opponents=self.set_opponents + was_set)

    def to_wire(self) -> dict[str, Any]:
        # Field by field, not ``__dict__``: compiled by mypyc, the class has none.
        return {"bid": self.bid, "made": self.made, "set": self.set, "blind": self.blind,
                "faced": self.faced, "set_opponents": self.set_opponents}


NO_NILS = NilStats()


@dataclass(frozen=True)
class Outcome:
    """How a game ended, or how far it got if it was abandoned.

    ``scores`` are per side in Spades (2) and per seat in Hearts (4);
    ``seat_scores`` are always per seat. ``winners`` are seats (empty while the
    game is unfinished). ``progress`` is the leading score over the target, in
    [0, 1], which the points system uses to weigh an incomplete game.
    """

    game: str
    finished: bool
    scores: tuple[int, ...]
    seat_scores: tuple[int, ...]
    winners: tuple[int, ...]
    hands_played: int
    target: int
    progress: float
    nil: tuple[NilStats, ...]

    def to_wire(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "finished": self.finished,
            "scores": list(self.scores),
            "seat_scores": list(self.seat_scores),
            "winners": list(self.winners),
            "hands_played": self.hands_played,
            "target": self.target,
            "progress": self.progress,
            "nil": [n.to_wire() for n in self.nil],
        }

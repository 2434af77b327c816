"""What happened: the events an engine returns from ``apply``.

Every event says who may see it: ``to`` is the one seat it is for, or ``None``
when it is public (every seat and every spectator). Together with ``view`` this
tag is the only path from a game's state to a client, so a private event must
never be sent to anyone but ``to``.

Events are named tuples: immutable, slot-free and cheap to build, since the
engine makes one per card played. ``to_wire`` gives the JSON form, with cards
as text.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from trickroom.game.cards import CARD_TEXT, texts_of


class Event(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def to(self) -> int | None: ...

    def to_wire(self) -> dict[str, Any]: ...


class HandStarted(NamedTuple):
    """Public: a new hand, its dealer and (Hearts) the pass direction."""

    hand_no: int
    dealer: int
    pass_direction: str | None = None

    @property
    def kind(self) -> str:
        return "hand_started"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "hand_started", "hand": self.hand_no, "dealer": self.dealer}
        if self.pass_direction is not None:
            out["pass_direction"] = self.pass_direction
        return out


class Dealt(NamedTuple):
    """Private to ``seat``: the cards it holds (when it may look at them)."""

    seat: int
    cards: int  # mask

    @property
    def kind(self) -> str:
        return "dealt"

    @property
    def to(self) -> int | None:
        return self.seat

    def to_wire(self) -> dict[str, Any]:
        return {"type": "dealt", "seat": self.seat, "cards": texts_of(self.cards)}


class Looked(NamedTuple):
    """Public: a seat that might have bid blind nil looked at its cards instead."""

    seat: int

    @property
    def kind(self) -> str:
        return "looked"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {"type": "looked", "seat": self.seat}


class BidMade(NamedTuple):
    seat: int
    value: int
    blind: bool

    @property
    def kind(self) -> str:
        return "bid"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "bid", "seat": self.seat, "value": self.value}
        if self.blind:
            out["blind"] = True
        return out


class PassChosen(NamedTuple):
    """Public: a seat has chosen its pass (which cards is private)."""

    seat: int

    @property
    def kind(self) -> str:
        return "pass_chosen"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {"type": "pass_chosen", "seat": self.seat}


class Passed(NamedTuple):
    """Private to ``seat``: the cards it passed and to whom."""

    seat: int
    cards: int  # mask
    target: int

    @property
    def kind(self) -> str:
        return "passed"

    @property
    def to(self) -> int | None:
        return self.seat

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "passed",
            "seat": self.seat,
            "cards": texts_of(self.cards),
            "to_seat": self.target,
        }


class Received(NamedTuple):
    """Private to ``seat``: the cards passed to it, once every seat has passed."""

    seat: int
    cards: int  # mask
    source: int

    @property
    def kind(self) -> str:
        return "received"

    @property
    def to(self) -> int | None:
        return self.seat

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "received",
            "seat": self.seat,
            "cards": texts_of(self.cards),
            "from_seat": self.source,
        }


class Played(NamedTuple):
    seat: int
    card: int

    @property
    def kind(self) -> str:
        return "played"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {"type": "played", "seat": self.seat, "card": CARD_TEXT[self.card]}


class TrickWon(NamedTuple):
    seat: int
    trick_no: int  # 0..12 within the hand
    cards: tuple[int, ...]  # in play order, from the leader
    leader: int
    points: int = 0  # Hearts: points in the trick
    scoring: tuple[int, ...] = ()  # Hearts: the cards in it that score, so no client counts them

    @property
    def kind(self) -> str:
        return "trick_won"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "trick_won",
            "seat": self.seat,
            "trick": self.trick_no,
            "leader": self.leader,
            "cards": [CARD_TEXT[c] for c in self.cards],
            "points": self.points,
            "scoring": [CARD_TEXT[c] for c in self.scoring],
        }


class HandScored(NamedTuple):
    """Public: a hand's scoring, with the engine's per-hand result record."""

    hand_no: int
    result: Any  # SpadesHandResult | HeartsHandResult, each with to_wire()
    scores: tuple[int, ...]

    @property
    def kind(self) -> str:
        return "hand_scored"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "hand_scored", "hand": self.hand_no}
        out.update(self.result.to_wire())
        out["scores"] = list(self.scores)
        return out


class MoonPending(NamedTuple):
    """Public: a seat shot the moon and must choose how it scores."""

    seat: int

    @property
    def kind(self) -> str:
        return "moon_pending"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {"type": "moon_pending", "seat": self.seat}


class GameOver(NamedTuple):
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # seats

    @property
    def kind(self) -> str:
        return "game_over"

    @property
    def to(self) -> int | None:
        return None

    def to_wire(self) -> dict[str, Any]:
        return {"type": "game_over", "scores": list(self.scores), "winners": list(self.winners)}


class Tagged(Protocol):
    """Anything tagged with its audience the way events are: a seat, or ``None`` (public)."""

    @property
    def to(self) -> int | None: ...


def visible_to(event: Tagged, seat: int | None) -> bool:
    """Whether ``seat`` (``None``: a spectator) may see ``event``.

    The one visibility rule: the server's event log filters what it replays and
    sends with it, so an event and its logged copy are seen by the same seats.
    """
    to = event.to
    return to is None or to == seat

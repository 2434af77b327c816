"""What a seat can do: actions, their wire form, and the error for a wrong one.

Actions are small frozen values. The common ones are interned (``PLAYS[card]``,
``BIDS[value]``) so an engine hands out the same objects every turn instead of
building new ones; they still compare by value, so ``Play(49) == PLAYS[49]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from trickroom.game.cards import CARD_TEXT, CardParseError, parse_card
from trickroom.i18n import Msg


class IllegalAction(ValueError):
    """An action the rules forbid now. The message names the rule; the game is unchanged.

    ``code`` says which kind of wrong it is, so the server can map it to a wire
    error without reading the message: ``not_your_turn``, ``wrong_phase`` or
    ``illegal_action``. The message is a :class:`~trickroom.i18n.Msg` (the English text,
    which the server renders again in the player's language).
    """

    def __init__(self, message: str, code: str = "illegal_action") -> None:
        super().__init__(message)
        self.code = code


class ActionParseError(ValueError):
    """A wire action that is malformed (missing or wrong fields), naming the problem."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A Spades bid; ``value`` 0 is nil, and ``blind`` makes it blind nil."""

    value: int
    blind: bool = False

    def to_wire(self) -> dict[str, Any]:
        if self.blind:
            return {"type": "bid", "value": self.value, "blind": True}
        return {"type": "bid", "value": self.value}

    def __str__(self) -> str:
        if self.blind:
            return "blind nil"
        return "nil" if self.value == 0 else f"bid {self.value}"


@dataclass(frozen=True, slots=True)
class Look:
    """Spades with blind nil: a seat that may bid blind chooses to see its cards first."""

    def to_wire(self) -> dict[str, Any]:
        return {"type": "look"}

    def __str__(self) -> str:
        return "look at cards"


@dataclass(frozen=True, slots=True)
class Pass:
    """A Hearts pass: the cards (ints, ascending) given to the seat the cycle names."""

    cards: tuple[int, ...]

    def to_wire(self) -> dict[str, Any]:
        return {"type": "pass", "cards": [CARD_TEXT[c] for c in self.cards]}

    def __str__(self) -> str:
        return "pass " + " ".join(CARD_TEXT[c] for c in self.cards)


@dataclass(frozen=True, slots=True)
class Play:
    card: int

    def to_wire(self) -> dict[str, Any]:
        return {"type": "play", "card": CARD_TEXT[self.card]}

    def __str__(self) -> str:
        return "play " + CARD_TEXT[self.card]


@dataclass(frozen=True, slots=True)
class MoonChoice:
    """Hearts with ``moon="shooter_chooses"``: add 26 to the others, or take 26 off oneself."""

    choice: Literal["add", "subtract"]

    def to_wire(self) -> dict[str, Any]:
        return {"type": "moon", "choice": self.choice}

    def __str__(self) -> str:
        return "moon: " + ("add 26 to the others" if self.choice == "add" else "subtract 26")


Action = Bid | Look | Pass | Play | MoonChoice

PLAYS = tuple(Play(c) for c in range(52))
BIDS = tuple(Bid(v) for v in range(14))
BLIND_NIL = Bid(0, blind=True)
LOOK = Look()
MOON_CHOICES = (MoonChoice("add"), MoonChoice("subtract"))


def action_from_wire(data: Mapping[str, Any]) -> Action:
    """Parse the wire form of an action (``{"type": "play", "card": "QS"}``).

    Raises :class:`ActionParseError` naming the missing or wrong field. Whether
    the action is *legal* is the engine's question, not this function's.
    """
    if not isinstance(data, Mapping):
        raise ActionParseError(Msg("an action is a JSON object with a 'type'"))
    kind = data.get("type")
    try:
        if kind == "play":
            text: str = _field(data, "card", str)
            return PLAYS[parse_card(text)]
        if kind == "bid":
            value: int = _field(data, "value", int)
            blind = data.get("blind", False)
            if not isinstance(blind, bool):
                raise ActionParseError(Msg("field 'blind' must be true or false"))
            if blind:
                if value != 0:
                    raise ActionParseError(Msg("a blind bid must be nil: value 0"))
                return BLIND_NIL
            if 0 <= value < len(BIDS):
                return BIDS[value]
            return Bid(value)  # out of range: the engine names the rule
        if kind == "pass":
            cards: list[Any] = _field(data, "cards", list)
            parsed = [parse_card(c) for c in cards]
            return Pass(tuple(sorted(parsed)))
        if kind == "look":
            return LOOK
        if kind == "moon":
            choice = data.get("choice")
            if choice == "add":
                return MOON_CHOICES[0]
            if choice == "subtract":
                return MOON_CHOICES[1]
            raise ActionParseError(Msg("field 'choice' must be 'add' or 'subtract'"))
    except CardParseError as exc:
        raise ActionParseError(exc.args[0]) from exc
    raise ActionParseError(
        Msg("unknown action type {kind!r}: expected one of play, bid, pass, look, moon",
            kind=kind)
    )


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    if name not in data:
        raise ActionParseError(Msg("field {name!r} is missing", name=name))
    value = data[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ActionParseError(Msg("field {name!r} must be {kind}", name=name,
                                   kind=_KIND_NAMES[kind]))
    return value


_KIND_NAMES: dict[type, str] = {int: Msg("an integer"), str: Msg("a string"), list: Msg("a list")}

"""The pure core: cards, the Spades and Hearts engines, and robots.

Nothing in this package does I/O, reads a clock or uses the global RNG. A game
is a value you ``apply`` actions to (see ``trickgame`` for the phase table);
``view(seat)`` and each event's ``to`` tag are the only ways state leaves it.
"""

from trickroom.game.actions import Action, ActionParseError, IllegalAction, action_from_wire
from trickroom.game.cards import CardParseError
from trickroom.game.outcome import NilStats, Outcome

__all__ = [
    "Action",
    "ActionParseError",
    "CardParseError",
    "IllegalAction",
    "NilStats",
    "Outcome",
    "action_from_wire",
]

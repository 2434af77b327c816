"""The pure core: cards, the Spades and Hearts engines, and robots.

Nothing in this package does I/O, reads a clock or uses the global RNG. A game
is a value you ``apply`` actions to (see ``trickgame`` for the phase table);
``view(seat)`` and each event's ``to`` tag are the only ways state leaves it.
"""

from trickroom.compiled import activate

activate(__name__, __path__)  # the compiled engines first, where built and current

# Frozen dataclasses pickle the same way compiled or not (trickroom.game.pickling).
from trickroom.game import actions, analysis, hearts, outcome, spades, trickgame, variants  # noqa: E402
from trickroom.game.actions import (  # noqa: E402
    Action,
    ActionParseError,
    IllegalAction,
    action_from_wire,
)
from trickroom.game.cards import CardParseError  # noqa: E402
from trickroom.game.outcome import NilStats, Outcome  # noqa: E402
from trickroom.game.pickling import register_frozen  # noqa: E402

register_frozen(actions, outcome, variants, trickgame, spades, hearts, analysis)

__all__ = [
    "Action",
    "ActionParseError",
    "CardParseError",
    "IllegalAction",
    "NilStats",
    "Outcome",
    "action_from_wire",
]

"""The robot interface every level implements."""

from __future__ import annotations

import random
from typing import Protocol

from trickroom.game.actions import Action
from trickroom.game.trickgame import TrickView


class Robot(Protocol):
    """Chooses an action for a seat from what that seat sees.

    ``choose`` must return one of ``view.legal``; it may use only the view
    and its own RNG, so changing another seat's hidden cards never changes
    its choice.
    """

    name: str
    rng: random.Random

    def __init__(self, seed: int = 0) -> None: ...

    def choose(self, view: TrickView) -> Action: ...

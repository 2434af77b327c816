"""The ``random`` robot: a uniformly random legal action, for tests and baselines."""

from __future__ import annotations

import random

from trickroom.game.actions import Action
from trickroom.game.trickgame import TrickView


class RandomRobot:
    """Picks uniformly among ``view.legal`` with its own seeded RNG."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: TrickView) -> Action:
        if not view.legal:
            raise ValueError(f"seat {view.seat} has no legal action in phase {view.phase!r}")
        return self.rng.choice(view.legal)

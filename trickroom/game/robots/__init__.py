"""Robots: pure functions of one seat's view and an RNG.

A robot sees only what its seat may see (``game.view(seat)``), so the same
robot can take over a dropped player's seat, fill a casual table, or play
through the socket as ``trickroom bot``.
"""

from trickroom.compiled import activate

activate(__name__, __path__)  # the compiled robots first, where built and current

from trickroom.game.robots.base import Robot  # noqa: E402
from trickroom.game.robots.heuristic import HeuristicRobot  # noqa: E402
from trickroom.game.robots.random_robot import RandomRobot  # noqa: E402
from trickroom.game.robots.search import SearchRobot  # noqa: E402

ROBOTS: dict[str, type[Robot]] = {
    "random": RandomRobot,
    "heuristic": HeuristicRobot,
    "search": SearchRobot,
}


def make_robot(level: str, seed: int = 0) -> Robot:
    """A robot of the named level (``random``, ``heuristic``, ``search``).

    Raises KeyError naming the levels.
    """
    try:
        return ROBOTS[level](seed)
    except KeyError:
        raise KeyError(f"unknown robot level {level!r}: choose from {sorted(ROBOTS)}") from None


__all__ = ["ROBOTS", "HeuristicRobot", "RandomRobot", "Robot", "SearchRobot", "make_robot"]

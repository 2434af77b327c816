"""Robots: pure functions of one seat's view and an RNG.

A robot sees only what its seat may see (``game.view(seat)``), so the same
robot can take over a dropped player's seat, fill a casual table, or play
through the socket as ``trickroom bot``.
"""

from game.robots.base import Robot
from game.robots.random_robot import RandomRobot

ROBOTS: dict[str, type[Robot]] = {"random": RandomRobot}


def make_robot(level: str, seed: int = 0) -> Robot:
    """A robot of the named level (``random``); raises KeyError naming the levels."""
    try:
        return ROBOTS[level](seed)
    except KeyError:
        raise KeyError(f"unknown robot level {level!r}: choose from {sorted(ROBOTS)}") from None


__all__ = ["ROBOTS", "RandomRobot", "Robot", "make_robot"]

"""The search robot is anytime: checks its card, bid and pass tests share."""

from trickroom.game.actions import Action
from trickroom.game.robots.search import SearchRobot
from trickroom.game.trickgame import TrickView


def assert_no_time_means_the_heuristic(view: TrickView, expected: Action) -> SearchRobot:
    """With no play-outs to spend, or a clock already past the deadline, the search robot
    chooses ``expected`` (the heuristic's choice) and runs no play-out.

    Returns the robot that had no play-outs, for what it says of its choice.
    """
    robot = SearchRobot(0, simulations=0)
    assert robot.choose(view) == expected
    late = iter([0.0, 5.0, 5.0, 5.0])
    timed = SearchRobot(0, budget_ms=200, clock=lambda: next(late))
    assert timed.choose(view) == expected
    assert timed.last_playouts == 0
    return robot


def assert_the_clock_bounds_the_search(view: TrickView) -> None:
    """A clock a second further on at each reading stops a three-second search early."""
    ticks = iter(range(10_000))
    robot = SearchRobot(0, simulations=10_000, budget_ms=3000, clock=lambda: float(next(ticks)))
    robot.choose(view)
    assert 0 < robot.last_playouts < 100

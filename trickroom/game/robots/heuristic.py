"""The ``heuristic`` robot: rules of thumb for both games, fast enough for every seat.

It reads the view into a :class:`~game.robots.position.Position` and asks the
game's rules of thumb (:mod:`game.robots.spades_heuristic`,
:mod:`game.robots.hearts_heuristic`) for the action. It keeps an RNG only to
honour the robot interface: its choices are a function of the view alone.
"""

from __future__ import annotations

import random

from trickroom.game.actions import MOON_CHOICES, PLAYS, Action, Pass, Play
from trickroom.game.robots import hearts_heuristic, spades_heuristic
from trickroom.game.robots.position import Position
from trickroom.game.trickgame import TrickView


def legal_mask(view: TrickView) -> int:
    """The cards of ``view.legal`` (play phase) as a mask."""
    mask = 0
    for action in view.legal:
        if type(action) is Play:
            mask |= 1 << action.card
    return mask


def heuristic_card(view: TrickView, pos: Position | None = None) -> int:
    """The card the rules of thumb play in ``view`` (the play phase, the seat to act)."""
    if pos is None:
        pos = Position.from_view(view)
    seat = view.seat
    assert seat is not None
    legal = legal_mask(view)
    if view.game == "hearts":
        return hearts_heuristic.choose_card(pos, seat, legal)
    return spades_heuristic.choose_card(pos, seat, legal)


def heuristic_action(view: TrickView) -> Action:
    """The rules-of-thumb action for the seat of ``view``, which must be one of ``view.legal``."""
    if not view.legal:
        raise ValueError(f"seat {view.seat} has no legal action in phase {view.phase!r}")
    phase = view.phase
    if phase == "play":
        return PLAYS[heuristic_card(view)]
    if view.game == "spades" and phase == "bid":
        return spades_heuristic.choose_bid(view)  # type: ignore[arg-type]
    if view.game == "hearts":
        if phase == "pass":
            return Pass(hearts_heuristic.choose_pass(view.hand, view.rules.pass_count))
        if phase == "moon" and view.seat is not None:
            choice = hearts_heuristic.choose_moon(view.scores, view.seat, view.rules.target)
            return MOON_CHOICES[0] if choice == "add" else MOON_CHOICES[1]
    return view.legal[0]


class HeuristicRobot:
    """Plays by rules of thumb; a pure function of the view."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: TrickView) -> Action:
        return heuristic_action(view)

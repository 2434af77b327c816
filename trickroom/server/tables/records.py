"""What a table asks the store to keep: one frozen record per fact, written before it is told.

A :class:`~server.tables.effects.Persist` effect carries a tuple of these; the
store writes them in one transaction (all of them land, or none), and only
then does the runner send what the machine held back. The store alone knows
their SQL; the machine only says what happened.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trickroom.ratings import GameResult, RatingChange


@dataclass(frozen=True, slots=True)
class GameCreated:
    """A game starts: everything needed to rebuild it, with the seats as they sit."""

    game_id: str
    table_id: str
    room: str
    kind: str
    rules: dict[str, Any]
    seed: int
    dealer: int
    seats: tuple[dict[str, Any], ...]
    seating: str
    spectator_chat: bool = False  # the table's option, which a resumed table keeps
    creator: str | None = None  # who opened the table (may fill, start and arrange it)
    private: dict[str, Any] | None = None  # a private table's invite and seats (privacy.py)


@dataclass(frozen=True, slots=True)
class ActionTaken:
    """One accepted action, the ``idx``-th of its game."""

    game_id: str
    idx: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """Who sits where now (a robot keeps a seat, a substitute sits), for a restart."""

    game_id: str
    seats: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class OptionsChanged:
    """The table's options changed during its game (a restart, or the node that takes the
    table over, resumes the game with them)."""

    game_id: str
    spectator_chat: bool
    private: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class GameEnded:
    """A game is over (finished or abandoned): its result, its record for the review,
    the rating changes shown with it, and the players whose casual game counts toward
    ranked eligibility."""

    game_id: str
    result: dict[str, Any]
    record: dict[str, Any]
    ratings: tuple[dict[str, Any], ...] | None = None
    casual_players: tuple[str, ...] = ()
    sandbox: bool = False  # dealt from a sandbox (its review waits for its table to close)


@dataclass(frozen=True, slots=True)
class Rated:
    """Rating changes to apply to the players' standings (and their histories)."""

    game_id: str
    result: GameResult
    changes: tuple[RatingChange, ...]


@dataclass(frozen=True, slots=True)
class Banned:
    """A player may not sit at ranked tables until ``until`` (Unix time)."""

    player: str
    until: float
    reason: str


@dataclass(frozen=True, slots=True)
class BoardStarted:
    """A duplicate room's game starts at its claimed table of a board set."""

    set_id: str
    slot: int
    game_id: str


@dataclass(frozen=True, slots=True)
class BoardDealt:
    """A table of a board set played deal ``deal``: ``result`` is what it scored on it
    (each of the board set's seats' points and tricks)."""

    set_id: str
    slot: int
    deal: int
    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BoardFinished:
    """A table of a board set has played all it will (its game ended)."""

    set_id: str
    slot: int


@dataclass(frozen=True, slots=True)
class BoardRated:
    """A complete board set's duplicate rating changes (a ranked room), applied once:
    by the first table that writes them (``table_id``)."""

    set_id: str
    table_id: str
    kind: str
    system: str
    changes: tuple[RatingChange, ...]


Record = (GameCreated | ActionTaken | SeatsChanged | OptionsChanged | GameEnded | Rated
          | Banned | BoardStarted | BoardDealt | BoardFinished | BoardRated)

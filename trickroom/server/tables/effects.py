"""What the machine asks the outside world to do: its only output.

The runner carries effects out in order. A command whose records must be
stored returns a single :class:`Persist`; everything else it caused (events,
replies, timers, robots) is held by the machine and released by the store's
answer, so nothing is sent before the store confirmed it, and a failed write
leaves no trace (DESIGN section 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from trickroom.game.trickgame import TrickView
from trickroom.server.protocol import TableInfo
from trickroom.server.tables.commands import ClientId, TimerCommand, Turn
from trickroom.server.tables.log import Shared
from trickroom.server.tables.records import Record


class Effect:
    """Base of every effect (the runner dispatches on the type)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Send(Effect):
    """One message, encoded once, to these connections."""

    to: tuple[ClientId, ...]
    message: Shared


@dataclass(frozen=True, slots=True)
class Persist(Effect):
    """Write these records in one transaction; answer ``Stored(ref)`` or ``StoreFailed``."""

    records: tuple[Record, ...]
    ref: int


@dataclass(frozen=True, slots=True)
class SetTimer(Effect):
    """After ``delay`` seconds, hand ``command`` back (replacing a timer of the same key,
    which is the command's own: :attr:`TimerCommand.key`)."""

    key: str
    delay: float
    command: TimerCommand


@dataclass(frozen=True, slots=True)
class CancelTimer(Effect):
    key: str


@dataclass(frozen=True, slots=True)
class AskRobot(Effect):
    """Have the seat's robot of ``level`` choose from ``view``; answer ``RobotChose``.
    ``humans``: the connections of the players seated at the table, whose address
    groups a search is charged to (server/thinking.py)."""

    seat: int
    level: str
    view: TrickView
    turn: Turn
    timeout: bool = False
    humans: tuple[ClientId, ...] = ()


@dataclass(frozen=True, slots=True)
class LoadStandings(Effect):
    """Read these players' ratings in ``system`` for ``kind``; answer ``StandingsLoaded``."""

    players: tuple[str, ...]
    kind: str
    system: str


@dataclass(frozen=True, slots=True)
class JoinBoard(Effect):
    """Claim a table of a board set of ``room`` for these people (none may have played
    it); answer ``BoardJoined``. ``new``: the id, seed and first dealer of a new set,
    should none be open to them."""

    room: str
    kind: str
    slots: int
    players: tuple[str, ...]
    new: tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class LeaveBoard(Effect):
    """Give back a claimed board set table whose game did not start."""

    set_id: str
    slot: int


@dataclass(frozen=True, slots=True)
class SeenBoard(Effect):
    """The people who have seen this table's play of a board set (its players, and who sat
    later): none of them may sit at another table of the set."""

    set_id: str
    slot: int
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReadBoard(Effect):
    """Read the board set (every table's results so far) and, for a complete set of a
    ranked room, its players' standings in ``system``; answer ``BoardRead``."""

    set_id: str
    kind: str
    system: str | None = None
    # The table has just stored a deal's result or its end: once the read shows it, the
    # set's other tables on this node read the set at once, not at their next poll.
    wrote: bool = False


@dataclass(frozen=True, slots=True)
class Changed(Effect):
    """The table's lobby line changed: push it to the room's subscribers."""

    info: TableInfo


@dataclass(frozen=True, slots=True)
class Closed(Effect):
    """The table is closed: the lobby drops it (``removed``) and its memory goes."""

    info: TableInfo
    reason: str
    audience: tuple[ClientId, ...] = ()  # who was still at the table


@dataclass(frozen=True, slots=True)
class Note(Effect):
    """Something a host reads in the logs (a seat away, a rejoin, a stale robot answer)."""

    event: str
    text: str
    seat: int | None = None
    player: str | None = None


@dataclass(frozen=True, slots=True)
class ToAccounts(Effect):
    """Messages for registered players wherever they are connected (every node): each a
    name and its message (a game's start or end, for their event stream)."""

    messages: tuple[tuple[str, Shared], ...]

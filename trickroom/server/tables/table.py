"""What a table's parts see of it: its state, its room, and the ways it has to say things.

A table's behaviour is split by concern into parts, each a module of functions over
a :class:`Table` (:mod:`.seating`, :mod:`.play`, :mod:`.drops`, :mod:`.chat`,
:mod:`.rating`, :mod:`.life`); :class:`~.machine.TableMachine` is the one
implementation. A part changes its slice of ``table.state`` and says what follows
through the table's helpers (``publish``, ``write``, ``set_timer``, ``emit``...),
so that, like the machine, it only returns effects and never does I/O. Parts
import this module, never the machine: what they ask of each other across the
machine (``advance``, ``tidy``) goes through it here.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from trickroom.game.events import Event
from trickroom.ratings import RatingSystem
from trickroom.server.config import Room, ServerSettings
from trickroom.server.protocol import ServerMessage, Snapshot, TableInfo
from trickroom.server.tables.commands import ClientId, RequestId, TimerCommand, Who
from trickroom.server.tables.effects import Effect
from trickroom.server.tables.log import EventLog, Shared
from trickroom.server.tables.policies import DropPolicy
from trickroom.server.tables.records import Record
from trickroom.server.tables.seats import Seat
from trickroom.server.tables.state import TableState


class Table(Protocol):
    """One table as its parts use it."""

    id: str
    creator: str | None  # who opened the table: may fill and start it unseated
    room: Room
    settings: ServerSettings
    rules: Any
    seating: str
    rng: random.Random
    policy: DropPolicy
    system: str
    rating_system: RatingSystem
    turn_seconds: float
    log: EventLog
    state: TableState
    now: float  # the wall time the runner read for this command

    # -- what a command says ------------------------------------------------------------------

    def send(self, to: tuple[ClientId, ...], message: Shared) -> None: ...

    def reply(self, who: Who, message: ServerMessage) -> None: ...

    def publish(self, event: dict[str, Any] | ServerMessage, to: int | None = None,
                turn: dict[str, Any] | None = None, texts: bool = False) -> None:
        """Number, log and send one table event to whoever may see it (``texts``: it holds
        texts for people, rendered in each reader's language)."""

    def publish_game(self, events: list[Event], why: str = "") -> None:
        """Publish one action's (or deal's) game events, with the turn they lead to."""

    def write(self, record: Record) -> None:
        """Store ``record`` before anything the command says is sent."""

    def emit(self, effect: Effect) -> None:
        """Any other effect (a robot to ask, standings to load, the lobby's line)."""

    def note(self, event: str, text: str, seat: Seat | None = None) -> None: ...

    def set_timer(self, delay: float, command: TimerCommand) -> None: ...

    def cancel(self, kind: type[TimerCommand], seat: int | None = None) -> None: ...

    def cancel_kinds(self, *kinds: type[TimerCommand]) -> None:
        """Cancel every timer of these kinds (every seat's)."""

    def changed(self) -> None:
        """A seat changed: tell the table and the lobby."""

    # -- what it is -----------------------------------------------------------------------------

    def audience(self) -> tuple[ClientId, ...]: ...

    def seat_of(self, client: ClientId) -> Seat | None: ...

    def seated(self, who: Who) -> Seat:
        """The seat of the request's sender, or refuse it."""

    def info(self) -> TableInfo: ...

    def snapshot(self, seat: int | None, rid: RequestId = None) -> Snapshot: ...

    def save_seats(self) -> None:
        """Store who sits where, during a game (a restart seats them again)."""

    # -- what one part asks of another -------------------------------------------------------

    def advance(self) -> None:
        """What follows a change: the next deal, the end, prompts, robots, turn clocks."""

    def tidy(self) -> None:
        """Close a finished table nobody plays at; start an empty one's idle clock."""

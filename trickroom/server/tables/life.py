"""A table's life in the lobby: opened, idle, closed.

A finished table closes when its last player has gone (a player who dropped keeps
the seat for the reconnect window, so a connection that blinked at the last trick
comes back to the result); a waiting table nobody sits at, or a finished one left
idle, closes after ``table_idle_seconds``. A closed table leaves the lobby and
refuses every command; its games stay in the store for review.
"""

from __future__ import annotations

from trickroom.i18n import Msg
from trickroom.server.protocol import TableClosed
from trickroom.server.tables import privacy
from trickroom.server.tables.commands import IdleOver, Open
from trickroom.server.tables.effects import Changed, Closed
from trickroom.server.tables.state import Phase
from trickroom.server.tables.table import Table


def on_open(table: Table, cmd: Open) -> None:
    if table.state.private is not None:
        privacy.issue(table, table.state.private)  # its first invite, for its opener
    table.emit(Changed(table.info()))
    tidy(table)


def tidy(table: Table) -> None:
    """Close a finished table nobody plays at; start the idle clock of an empty one.

    A player who dropped during the game still holds a seat until their reconnect
    window ends; a table of robots only closes as its game ends.
    """
    state = table.state
    if state.phase is Phase.OVER and not any(s.kind == "human" for s in state.seats):
        close(table, Msg("the game is over and every player has left"))
    elif state.phase is Phase.WAITING and all(s.kind != "human" for s in state.seats):
        table.set_timer(table.settings.table_idle_seconds, IdleOver())


def on_idle(table: Table, cmd: IdleOver) -> None:
    state = table.state
    if state.phase is Phase.OVER:
        close(table, Msg("the game is over and the table stayed idle"))
    elif state.phase is Phase.WAITING and all(s.kind != "human" for s in state.seats):
        close(table, Msg("nobody sat at the table"))


def close(table: Table, reason: str) -> None:
    closed = TableClosed(reason=reason).model_dump()
    closed["reason"] = reason  # a Msg: each reader's language
    table.publish(closed, texts=True)
    table.cancel_kinds()
    table.state.phase = Phase.CLOSED
    table.note("closed", reason)
    table.emit(Closed(table.info(), reason, table.audience()))

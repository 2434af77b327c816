"""A table's state is one value, and undoing a command puts back every field of it, whatever
fields the state gains later: the copy taken before a command shares nothing the command
may change."""

from __future__ import annotations

from dataclasses import fields

from trickroom.server.tables.commands import RobotTurn
from trickroom.server.tables.seats import Vote
from trickroom.server.tables.state import TableState


def busy_state() -> TableState:
    """A state with something in every container (a copy of an empty one proves little)."""
    state = TableState()
    state.seats[1].name, state.seats[1].kind = "ann", "human"
    state.watchers[7] = "bob"
    state.acted[2] = 3
    state.prompted[1] = (1, 3, 0)
    state.whys[4] = "a safe bid"
    state.vote = Vote("v1", "wait", 1, frozenset({0, 2}))
    state.ranked.departures.append("someone")  # type: ignore[arg-type]
    state.ranked.open_seats.add(2)
    state.chances = [0.5, 0.5]
    state.timers["robot-1"] = RobotTurn(1, (1, 3, 0))
    return state


def touch_everything(state: TableState) -> None:
    """Change every mutable part of every field in place."""
    state.seats[1].name = "changed"
    state.seats.append(state.seats[0])
    state.watchers[8] = "eve"
    state.acted[0] = 99
    state.prompted[3] = (9, 9, 9)
    state.whys.clear()
    state.ranked.departures.clear()
    state.ranked.open_seats.clear()
    state.ranked.standings["x"] = None  # type: ignore[assignment]
    assert state.chances is not None
    state.chances[0] = 1.0
    state.timers.clear()


def test_a_copy_is_untouched_by_anything_done_to_the_state_after_it():
    state = busy_state()
    before = repr(state)
    copy = state.copy()
    touch_everything(state)
    assert repr(copy) == before


def test_a_move_s_copy_shares_only_the_seating_and_the_game():
    state = busy_state()
    copy = state.copy(seats_kept=True)
    shared = {f.name for f in fields(TableState)
              if getattr(copy, f.name) is getattr(state, f.name)
              and not isinstance(getattr(state, f.name), (str, int, float, bool, tuple,
                                                          frozenset, type(None), Vote))}
    assert shared == {"seats", "watchers", "ranked"}  # the game is None here: a value
    full = state.copy()
    assert full.seats is not state.seats and full.seats[1] is not state.seats[1]

"""The bridge from a game to the ratings: who played, who left, and what the game says.

``game`` and ``ratings`` never import each other (DESIGN section 3): the
game's :class:`~trickroom.game.outcome.Outcome` holds what the game knows, and
this module adds what only the table knows (who sat where, substitutes, leavers,
the seating mode) to make the ratings' ``GameResult``; then rates it by the
room's system, from the starters' ratings when the game began. Pure, like both
sides.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from trickroom.game.outcome import Outcome
from trickroom.ratings import Departure, GameResult, NilRecord, Rating, RatingError, Seat
from trickroom.server.tables.records import Rated
from trickroom.server.tables.table import Table


def game_result(kind: str, system: str, seating: str, starters: list[str],
                substitutes: list[tuple[int, str]], outcome: Outcome,
                departures: list[Departure], first_disconnect: str | None) -> GameResult:
    """The ratings' view of a game: starters, substitutes, scores, leavers, nil records."""
    seats = [Seat(i, name, "human", True, NilRecord(**asdict(outcome.nil[i])))
             for i, name in enumerate(starters)]
    seats += [Seat(i, name, "substitute", False) for i, name in substitutes]
    return GameResult(kind, system, seating, tuple(seats),  # type: ignore[arg-type]
                      tuple(outcome.seat_scores), tuple(outcome.winners), outcome.finished,
                      outcome.progress, tuple(departures), first_disconnect,
                      outcome.hands_played)


def when(ts: float) -> str:
    """A ban's end as players read it."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def hands_done(table: Table) -> int:
    game = table.state.game
    return len(game.hand_results) if game else 0


def chances(table: Table) -> list[float] | None:
    """Each side's chance of winning by the room's system, from the starters' ratings at
    the start (a starter without a standing counts at the system's start rating).
    ``None`` when the system cannot tell (say, the same name in two seats)."""
    players = [s.starter or "" for s in table.state.seats]
    try:
        odds = table.rating_system.win_probability(
            table.room.game, players, start_ratings(table))  # type: ignore[arg-type]
    except RatingError:
        return None
    return [round(p, 4) for p in odds]


def start_ratings(table: Table) -> dict[str, Rating]:
    start = table.rating_system.start_rating
    standings = table.state.ranked.standings
    return {s.starter or "": standings[s.starter].rating
            if s.starter in standings else start for s in table.state.seats}


def result(table: Table, outcome: Outcome) -> GameResult:
    """The game as its rating reads it: who started, who came in, who left and when."""
    state = table.state
    ranked = state.ranked
    starters = [s.starter or "" for s in state.seats]
    subs = [(s.index, s.name or "") for s in state.seats if s.substitute]
    departures = list(ranked.departures)
    if ranked.end_after is not None:
        dropped = state.seats[ranked.end_after].starter or ""
        if not any(d.player == dropped for d in departures):
            departures.append(Departure(dropped, "dropped", hands_done(table)))
    return game_result(table.room.game, table.system, table.seating, starters, subs, outcome,
                       departures, ranked.first_disconnect)


def rate(table: Table, outcome: Outcome) -> list[dict[str, Any]]:
    """Rate the game from the starters' ratings when it began; record the changes."""
    state = table.state
    assert state.game_id is not None
    made = result(table, outcome)
    changes = [c for c in table.rating_system.rate(made, start_ratings(table))
               if c.player not in state.ranked.already_rated]
    table.write(Rated(state.game_id, made, tuple(changes)))
    return [c.to_wire() for c in changes]

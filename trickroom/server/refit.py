"""``trickroom ratings refit``: a room's rating constants fitted on its own stored games.

The room's games are read from the store oldest first, each rebuilt as the
ratings' :class:`~ratings.GameResult` the server rated it as (the starters in
their seats, the scores per seat, the winners), and the room's tuned system is
refitted on them by :func:`ratings.refit.refit`: every game predicted before it
is rated, in time order, and the constants with the lowest mean log-loss kept.
What is printed is for a host to judge and adopt: the constants before and
after, the log-loss of each over the room's games and the gain, and the lines
that carry the new constants into the room's entry of the room config.

Only finished games whose four starters were people are replayed: a game with
a robot at the start is never rated, and an abandoned game says who was ahead,
not who won. Departures are not stored with a game, so a game someone left is
replayed as its final scores say.

Errors are :class:`RefitError` values with a one-line message: an unknown
room, a room without such games, a faithful system (whose constants are the
seed pages'), a casual room refitted without ``--system``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from trickroom.ratings import GameResult, RatingError, RatingSystem, Seat, system_named
from trickroom.ratings.refit import FAITHFUL, Fit, fitted_fields, refit
from trickroom.ratings.result import GAME_KINDS, GameKind
from trickroom.server.config import Room


class RefitError(Exception):
    """A refit that cannot be made; the message says why in one line."""


class UnknownRoom(RefitError):
    """No room of that name in the room config."""


class NoGames(RefitError):
    """The room has no finished games between four people to fit on."""


class NotRefittable(RefitError):
    """The system has no constants to fit: a faithful preset, or an unknown name."""


@dataclass(frozen=True)
class RoomFit:
    """A room's refit: the fit, and how many of its stored games it could not use."""

    room: Room
    fit: Fit
    skipped: int

    @property
    def fields(self) -> tuple[str, ...]:
        return fitted_fields(self.fit.system)


def stored_result(game: Mapping[str, Any], system: str) -> GameResult | None:
    """The rated result of a stored game (:meth:`server.store.SqliteStore.game`), or
    ``None`` when it would not be rated: unfinished, or a robot at the start."""
    result = game["result"]
    if not result.get("finished") or game["game"] not in GAME_KINDS:
        return None
    seats = sorted(game["seats"], key=lambda s: s["seat"])
    if len(seats) != 4:
        return None
    starters = [s.get("starter") or s.get("name") for s in seats]
    # A seat whose starter still sits there as a robot started with a robot.
    robots = [s.get("kind") == "robot" and not s.get("substitute")
              and s.get("name") == s.get("starter") for s in seats]
    if any(robots) or not all(starters) or len(set(starters)) != 4:
        return None
    scores = result.get("seat_scores") or result["scores"]
    if len(scores) == 2:  # per side in Spades: both partners carry their side's
        scores = [scores[i % 2] for i in range(4)]
    kind: GameKind = game["game"]
    try:
        return GameResult(kind, system, game["seating"],
                          tuple(Seat(i, str(name)) for i, name in enumerate(starters)),
                          tuple(int(x) for x in scores), tuple(result.get("winners", ())),
                          True, float(result.get("progress", 1.0)),
                          hands=int(result.get("hands_played", 0)))
    except RatingError:  # a record the ratings cannot read is left out, like a robot's game
        return None


def refittable(room: Room, name: str | None) -> RatingSystem:
    """The system to refit: ``name``, or the room's own."""
    name = name or room.system
    if name is None:
        raise NotRefittable(f"room {room.name!r} is casual and rates nothing: name a tuned "
                            "system with --system")
    if name in FAITHFUL:
        raise NotRefittable(f"{name!r} is a faithful preset: faithful presets keep the seed "
                            "pages' constants (refit a tuned one with --system)")
    try:
        system = system_named(name)
        fitted_fields(system)
    except RatingError as exc:
        raise NotRefittable(str(exc)) from None
    return system


def room_and_system(rooms: Mapping[str, Room], name: str, system: str | None
                    ) -> tuple[Room, RatingSystem]:
    """The room called ``name`` and the system to refit for it."""
    room = rooms.get(name)
    if room is None:
        raise UnknownRoom(f"no room named {name!r} in the room config; rooms: "
                          f"{', '.join(rooms)}")
    return room, refittable(room, system)


async def refit_room(store: Any, rooms: Mapping[str, Room], name: str,
                     system: str | None = None) -> RoomFit:
    """Refit room ``name``'s system (or ``system``) on the room's stored games."""
    room, chosen = room_and_system(rooms, name, system)
    games: Sequence[Mapping[str, Any]] = await store.room_games(name)
    results = [r for r in (stored_result(g, chosen.name) for g in games) if r is not None]
    if not results:
        raise NoGames(f"room {name!r} has no finished games between four people to fit on "
                      f"({len(games)} stored)")
    return RoomFit(room, refit(chosen, results), len(games) - len(results))


def number(x: float) -> str:
    return f"{x:.4g}"


def config_lines(room_fit: RoomFit) -> str:
    """The room config lines that adopt the fitted constants: the room's ``constants``,
    which :func:`ratings.registry.with_constants` applies to its system."""
    fitted = ", ".join(f"{f} = {number(getattr(room_fit.fit.system, f))}"
                       for f in room_fit.fields)
    return (f'[[rooms]]\nname = "{room_fit.room.name}"\n'
            f'system = "{room_fit.fit.system.name}"\nconstants = {{ {fitted} }}')


def show(room_fit: RoomFit, before: RatingSystem, console: Console) -> None:
    """The constants before and after, the log-losses and gain, and the config lines."""
    fit = room_fit.fit
    console.print(f"{fit.system.name} refitted on room {room_fit.room.name!r}: "
                  f"{fit.games} {room_fit.room.game} games, each predicted before it is rated")
    table = Table()
    for column in ("", "before", "after"):
        table.add_column(column, justify="left" if not column else "right")
    for field in room_fit.fields:
        table.add_row(field, number(getattr(before, field)), number(getattr(fit.system, field)))
    table.add_row("log-loss", f"{fit.before:.4f}", f"{fit.after:.4f}")
    console.print(table)
    skipped = (f" ({room_fit.skipped} stored games left out: unfinished or with a robot "
               "at the start)" if room_fit.skipped else "")
    console.print(f"gain {fit.gain:+.4f} log-loss a game{skipped}")
    if fit.gain > 0:
        console.print("To adopt them, the room's entry in the room config gains the "
                      "constants line:")
        console.print(config_lines(room_fit), markup=False, highlight=False)
    else:
        console.print("The room's constants already predict its games best: nothing to change.")


def store_target(db: str | None, url: str | None) -> str | Path:
    """The store to read: ``--db``, ``--store`` (a ``postgresql://`` URL, or
    ``sqlite:PATH``), or the default SQLite file, as ``trickroom serve`` opens it."""
    if url is not None:
        from trickroom.server.store import is_postgres

        if is_postgres(url):
            return url
        scheme, _, rest = url.partition(":")
        if scheme != "sqlite" or not rest:
            raise RefitError(f"cannot refit from {url!r}: a store is postgresql://user@host/db "
                             "or sqlite:PATH (or --db PATH)")
        return Path(rest[2:] if rest.startswith("///") else rest.removeprefix("//"))
    if db is not None:
        return Path(db)
    from trickroom.server.app import default_db_path

    return default_db_path()


async def run(rooms: Mapping[str, Room], target: str | Path, room: str, system: str | None,
              console: Console) -> RoomFit:
    """Open the store at ``target``, refit the room and print the result."""
    from trickroom.server.store import StoreError, open_store

    _, before = room_and_system(rooms, room, system)  # a bad name fails before the store
    if isinstance(target, Path) and not target.exists():
        raise RefitError(f"no database at {target}")
    store = open_store(target)
    try:
        await store.open()
    except (OSError, StoreError) as exc:
        raise RefitError(f"cannot open the store {target}: {exc}") from None
    try:
        room_fit = await refit_room(store, rooms, room, system)
    finally:
        await store.close()
    show(room_fit, before, console)
    return room_fit

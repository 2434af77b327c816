"""The interface every rating system offers, and the checks they share.

A system is a frozen dataclass whose fields are its constants (a *preset* is
one instance: ``Zone()``, ``Wocg(k=25)``), with three pure methods:

* ``rate(result, ratings)``: the rating changes of a finished or abandoned game.
  ``ratings`` are the players' ratings *at the start of the game*.
* ``rate_quit(result, ratings, player)``: the change a quitter gets at once, for
  systems that rate a quit when it happens (WoCG); ``None`` for the others.
* ``win_probability(kind, players, ratings)``: each side's chance of winning
  before a game, by the system's own expectation: per side in Spades
  (North–South, East–West), per seat in Hearts.
* ``shown(rating)``: the number a player reads on a leaderboard or profile.
  The Elo-like systems show the rating itself; Weng-Lin maps its skill onto
  the same familiar scale (:meth:`ratings.WengLin.shown`). ``Rating.value``
  stays the raw number the system computes with.

Hearts has four sides and every system here thinks in pairs, so a Hearts win
probability is a Plackett–Luce model read from the system's own pairwise
chances (:func:`ratings.fourway.hearts_from_pairs`): averaging the pairwise
chances, as ``openskill`` does, is far too flat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from trickroom.i18n import Msg
from trickroom.ratings.change import Rating, RatingChange, unrated
from trickroom.ratings.errors import InvalidResult, MissingRating, NotTwoTeams, WrongSystem
from trickroom.ratings.fourway import hearts_from_pairs
from trickroom.ratings.result import GAME_KINDS, GameKind, GameResult


class RatingSystem(Protocol):
    """What the server calls; see the module docstring for the contract."""

    @property
    def name(self) -> str: ...

    @property
    def start_rating(self) -> Rating: ...

    @property
    def floor(self) -> float | None: ...

    def rate(self, result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]: ...

    def rate_quit(
        self, result: GameResult, ratings: Mapping[str, Rating], player: str
    ) -> RatingChange | None: ...

    def win_probability(
        self, kind: GameKind, players: Sequence[str], ratings: Mapping[str, Rating]
    ) -> tuple[float, ...]: ...

    def shown(self, rating: Rating) -> float: ...


class RatesWithTheGame:
    """For a system that rates a leaver with the rest of the game, not when they leave
    (its module docstring says how)."""

    __slots__ = ()

    def rate_quit(self, result: GameResult, ratings: Mapping[str, Rating], player: str
                  ) -> RatingChange | None:
        """Nothing at once: a leaver is rated when the game is."""
        return None


class ShownAsRated:
    """For a system whose numbers already read like Elo's: a rating is shown as it is."""

    __slots__ = ()

    def shown(self, rating: Rating) -> float:
        """The rating itself: this system's numbers already read like Elo's."""
        return rating.value


def check_rateable(name: str, result: GameResult, ratings: Mapping[str, Rating]) -> None:
    """Raise unless ``result`` is for system ``name`` and every starting human has a rating."""
    if result.system != name:
        raise WrongSystem(f"result is for rating system {result.system!r}, not {name!r}")
    for seat in result.starters:
        if seat.is_rated_human and seat.player not in ratings:
            raise MissingRating(
                f"no {name} {result.kind} rating for player {seat.player!r} (seat {seat.seat})")


def lineup_ratings(
    name: str, kind: GameKind, players: Sequence[str], ratings: Mapping[str, Rating]
) -> tuple[Rating, ...]:
    """The ratings of four players in seat order, for a win probability."""
    if kind not in GAME_KINDS:
        raise InvalidResult(f"unknown game kind {kind!r}; expected one of {GAME_KINDS}")
    if len(players) != 4 or len(set(players)) != 4:
        problem = f"a table is four different players, got {tuple(players)}"
        raise NotTwoTeams(problem) if kind == "spades" else InvalidResult(problem)
    missing = [p for p in players if p not in ratings]
    if missing:
        raise MissingRating(f"no {name} {kind} rating for player {missing[0]!r}")
    return tuple(ratings[p] for p in players)


def unrated_reason(result: GameResult) -> str | None:
    """Why no one is rated, for reasons every ranked room shares; ``None`` if none applies."""
    if result.robot_at_start:
        robots = [s.seat for s in result.starters if s.kind == "robot"]
        return Msg("a robot was seated at the start (seat {seat})", seat=robots[0])
    return None


def unless_finished(name: str, result: GameResult, ratings: Mapping[str, Rating],
                    players: Sequence[str]) -> list[RatingChange] | None:
    """For a system that rates only finished games: ``None`` if ``result`` is to be rated;
    else each of ``players`` left unrated, with why (a robot at the start, or the game
    not finished). Raises as :func:`check_rateable` does."""
    check_rateable(name, result, ratings)
    why = unrated_reason(result)
    if why is None and not result.completed:
        why = Msg("the game was not finished")
    return None if why is None else [unrated(p, ratings[p], why) for p in players]


def chances_from_pairs(name: str, kind: GameKind, players: Sequence[str],
                       ratings: Mapping[str, Rating],
                       pair: Callable[[float, float], float]) -> tuple[float, ...]:
    """Win chances from a two-player rule ``pair(own, opponent)``: in Spades between the
    sides' average ratings (North-South first), in Hearts from every pair of seats."""
    r = [x.value for x in lineup_ratings(name, kind, players, ratings)]
    if kind == "spades":
        north_south = pair((r[0] + r[2]) / 2, (r[1] + r[3]) / 2)
        return (north_south, 1.0 - north_south)
    return hearts_from_pairs(lambda a, b: pair(r[a], r[b]))


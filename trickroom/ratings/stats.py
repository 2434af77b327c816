"""Rating state per (player, game kind, system): the rating and the stats kept beside it.

A :class:`Standing` is what the store keeps under a :data:`RatingKey`. Stats
are updated by :func:`record`, a pure function of the old stats, the result and
the player's :class:`~ratings.change.RatingChange`, called once per change a
system returned (a WoCG quitter's change comes from ``rate_quit`` when they
leave, and the end-of-game ``rate`` does not list them again).

What is counted:

* ``incomplete`` and ``quits``: charged to a player who left before the end
  (``incomplete`` for any departure, ``quits`` when it was a quit), whether or
  not the game was rated — Zone charges the leaver an incomplete game even when
  the "Don't wait" vote leaves everyone unrated.
* ``games``, ``wins``/``losses``/``ties``, the nil numbers and ``history``:
  only when the change was rated, using the outcome the system rated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from trickroom.ratings.change import Rating, RatingChange
from trickroom.ratings.result import GameKind, GameResult

RatingKey = tuple[str, GameKind, str]
"""``(player, game kind, system name)``: ratings are kept separately for each."""


def skill_ratio(set_opponents: int, faced: int) -> float | None:
    """WoCG's nil-setting skill: opponents' nil bids set over opponents' nil bids faced.

    ``None`` until the player has faced a nil bid (the ratio is undefined).

    >>> skill_ratio(3, 4), skill_ratio(0, 0)
    (0.75, None)
    """
    return set_opponents / faced if faced else None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """Counts kept beside a rating. ``history`` is the rating after each rated game."""

    games: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    incomplete: int = 0
    quits: int = 0
    nil_faced: int = 0  # opponents' nil bids faced
    nil_set: int = 0  # of those, set by this player's side
    nil_bid: int = 0  # own nil bids
    nil_made: int = 0  # own nil bids made
    history: tuple[float, ...] = ()

    @property
    def skill_ratio(self) -> float | None:
        """Opponents' nil bids set over opponents' nil bids faced (see :func:`skill_ratio`)."""
        return skill_ratio(self.nil_set, self.nil_faced)


def record(stats: PlayerStats, result: GameResult, change: RatingChange) -> PlayerStats:
    """The stats after ``result``, for the player ``change`` is about.

    >>> r = GameResult.of("spades", "wocg", "ABCD", (500, 200, 500, 200))
    >>> c = RatingChange("A", Rating(1500), Rating(1512.5), (), "win")
    >>> s = record(PlayerStats(), r, c)
    >>> s.games, s.wins, s.history
    (1, 1, (1512.5,))
    """
    departure = result.departure_of(change.player)
    if departure is not None:
        stats = replace(stats, incomplete=stats.incomplete + 1,
                        quits=stats.quits + (departure.how == "quit"))
    if not change.rated:
        return stats
    nil = result.starter(change.player).nil
    return replace(
        stats,
        games=stats.games + 1,
        wins=stats.wins + (change.outcome == "win"),
        losses=stats.losses + (change.outcome == "loss"),
        ties=stats.ties + (change.outcome == "tie"),
        nil_faced=stats.nil_faced + nil.faced,
        nil_set=stats.nil_set + nil.set_opponents,
        nil_bid=stats.nil_bid + nil.bid,
        nil_made=stats.nil_made + nil.made,
        history=(*stats.history, change.after.value),
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating and stats in one system for one game kind."""

    rating: Rating
    stats: PlayerStats = PlayerStats()

    def after(self, result: GameResult, change: RatingChange) -> Standing:
        """This standing once ``change`` (about this player) is applied."""
        rating = change.after if change.rated else self.rating
        return Standing(rating, record(self.stats, result, change))


def apply_changes(
    book: Mapping[RatingKey, Standing],
    result: GameResult,
    changes: Iterable[RatingChange],
    start: Rating,
) -> dict[RatingKey, Standing]:
    """A new book with ``changes`` applied; players not yet in it start at ``start``.

    The input mapping is not modified, so a caller that fails half way through
    persisting keeps the old book intact.
    """
    new = dict(book)
    for change in changes:
        key: RatingKey = (change.player, result.kind, result.system)
        current = new.get(key, Standing(start))
        new[key] = current.after(result, change)
    return new

"""The ways a game result can fail to be rated, as exceptions a caller can act on.

Every error is a :class:`RatingError` (itself a ``ValueError``) whose message
names the problem in words a host can read in a log: which player, which seat,
which system. They are raised before anything is computed, so a failed call
never leaves half a game rated: the functions are pure and return new values.
"""

from __future__ import annotations


class RatingError(ValueError):
    """A result that cannot be rated; the message says why."""


class InvalidResult(RatingError):
    """The result contradicts itself (bad seat numbers, scores, progress, winners)."""


class PlayerInTwoSeats(RatingError):
    """One player id appears in more than one seat of the same game."""


class NotTwoTeams(RatingError):
    """A Spades result that is not two partnerships of two: seats 0 and 2 against 1 and 3."""


class MissingRating(RatingError):
    """A rated player has no current rating in the mapping passed to the system."""


class UnknownSystem(RatingError):
    """No rating system has this name."""


class WrongSystem(RatingError):
    """The result names one rating system and was handed to another."""

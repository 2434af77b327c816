"""Rating systems for ranked Spades and Hearts: pure, deterministic, explained.

Theory of operation. The server turns a finished or abandoned game into a
:class:`GameResult` (``result.py``): kind, rating system, seating mode, who sat
where (human, robot, substitute), scores and winners, how far the game got,
who left and how, who disconnected first, and each player's nil record. A
rating system is a frozen dataclass of constants with pure methods
(``system.py``):

* ``rate(result, ratings) -> list[RatingChange]``, ``ratings`` being the
  players' ratings at the start of the game;
* ``rate_quit(result, ratings, player)``, the change a quitter gets at once
  (WoCG; ``None`` elsewhere);
* ``win_probability(kind, players, ratings)``, each side's chance before a game.

A :class:`RatingChange` (``change.py``) carries ``before``, ``after``,
``delta`` and an ordered breakdown of :class:`Term` values, words with their
numbers, that the game review shows. Nothing is modified: a bad result raises a
:class:`RatingError` subclass naming the problem (``errors.py``) before
anything is computed, and applying changes builds new values.

The systems, one module each:

* ``zone.py``: the Zone's linear formula (seed pages 000, 002).
* ``wocg.py``: World of Card Games' team and pairwise Elo with quits, and the
  nil-setting skill ratio (001), on the chess formulas of ``elo.py``.
* ``points.py``: zero-sum ranking points, ``en`` and ``el`` variants (003, 004).
* ``openskill_system.py``: Weng-Lin through the ``openskill`` package.
* ``margin.py``: a Gaussian model of the final scores, so that a game says
  how much a side won by, not only whether (a Kalman update of skill).
* ``duplicate.py``: the same deals played at several tables (a board set,
  :class:`DuplicateResult`), each player rated on their points against the
  field who held the same cards, so the luck of the deal cancels. It takes its
  own result and sits apart, in ``DUPLICATE_SYSTEMS``.

The Elo-like systems predict pairs; ``fourway.py`` turns them into the four
players' Hearts chances with a Plackett–Luce model of the finishing order
(Thurstonian order statistics for Thurstone–Mosteller Weng-Lin and for the
final-score model). ``refit.py`` fits a tuned preset's
constants (K or step or beta, the luck scale, the final-score model's par) on
a room's own games.

``registry.py`` names the presets (``SYSTEMS["zone"]``, ``"wocg"``,
``"points_en"``, ``"points_el"``, ``"zone_tuned"``, ``"wocg_tuned"``,
``"openskill"``, ``"openskill_tuned"``, ``"margin"``) and, apart,
``DUPLICATE_SYSTEMS["duplicate"]``. ``stats.py`` keeps what
sits beside a rating per (player, game kind, system): games, wins, losses,
ties, incomplete games, quits, nil numbers and history, updated by a pure
:func:`record`.

This package never imports ``game`` or ``server``; ``bench/ratings.py``
measures how well each system predicts.
"""

from trickroom.ratings.change import Rating, RatingChange, Term
from trickroom.ratings.duplicate import Duplicate, DuplicateResult, DuplicateTable
from trickroom.ratings.elo import expected, tournament
from trickroom.ratings.errors import (
    InvalidResult,
    MissingRating,
    NotTwoTeams,
    PlayerInTwoSeats,
    RatingError,
    UnknownSystem,
    WrongSystem,
)
from trickroom.ratings.margin import Margin
from trickroom.ratings.openskill_system import WengLin
from trickroom.ratings.points import Points
from trickroom.ratings.registry import (
    DUPLICATE_SYSTEMS,
    SYSTEMS,
    duplicate_system_named,
    rate,
    rate_quit,
    system_named,
)
from trickroom.ratings.result import Departure, GameResult, NilRecord, Seat
from trickroom.ratings.stats import (
    PlayerStats,
    RatingKey,
    Standing,
    apply_changes,
    record,
    skill_ratio,
)
from trickroom.ratings.system import RatingSystem
from trickroom.ratings.wocg import Wocg
from trickroom.ratings.zone import Zone

__all__ = [
    "DUPLICATE_SYSTEMS",
    "SYSTEMS",
    "Departure",
    "Duplicate",
    "DuplicateResult",
    "DuplicateTable",
    "GameResult",
    "InvalidResult",
    "Margin",
    "MissingRating",
    "NilRecord",
    "NotTwoTeams",
    "PlayerInTwoSeats",
    "PlayerStats",
    "Points",
    "Rating",
    "RatingChange",
    "RatingError",
    "RatingKey",
    "RatingSystem",
    "Seat",
    "Standing",
    "Term",
    "UnknownSystem",
    "WengLin",
    "Wocg",
    "WrongSystem",
    "Zone",
    "apply_changes",
    "duplicate_system_named",
    "expected",
    "rate",
    "rate_quit",
    "record",
    "skill_ratio",
    "system_named",
    "tournament",
]

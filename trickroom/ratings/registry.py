"""Rating systems by name, for the server: ``SYSTEMS["zone"].rate(result, ratings)``.

The faithful presets keep the seed pages' constants exactly. The tuned presets
are the same formulas (or Weng-Lin) with constants fitted by
:func:`ratings.refit.refit` on whole games between robots of known skill
(``bench/ratings_real.py``, its second season: 2,000 Spades and 2,000 Hearts
games replayed together, each game predicted before it is rated), rounded:
WoCG's K 25 becomes 20, and Weng-Lin takes the Thurstone-Mosteller model with
beta 720 (the luck of one game the update assumes, against a prior sigma of
500), predictions 1.12 times as wide (``luck``) and tau 0. Zone's fit is step
16 with spread 200, but at that spread the strongest players' gains saturate
and their order blurs (Spearman 0.86 in Spades); step 8 with spread 200
predicts as well (log-loss 0.5486 against 0.5487 in Spades, 1.001 against
0.996 in Hearts) and keeps the order (0.93), so zone_tuned takes it. Real card
games between players of different strength are far less lucky than the
simulation's 60% the presets were first fitted to (step 4, K 3, beta 4000),
which under-reacted.

``margin`` is the final-score model (:mod:`ratings.margin`), the only system
that learns from the scores rather than from who won alone. Its constants
were fitted the same way on each game's second season and rounded: Spades
beta 130, rho 0.2, par −90 (the bench's mean final score of a side: its
Spades has a mercy rule at −200), Hearts beta 24, rho 0.3, par 63; the
prior sigma 300 and luck 1 are shared (Spades alone fits 375 and 1.06,
Hearts alone 240 and 1). ``par`` belongs to the room's rules and players:
a room should refit it on its own games before trusting the others.

They carry their own names so a room says which it uses; a host refits them on
the room's own games with ``trickroom ratings refit --room NAME`` and adopts
the result with :func:`with_constants`.

tau 0 suits the bench's players, whose skill does not change; a server whose
players improve may prefer a small tau so that settled ratings can still move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from trickroom.ratings.change import Rating, RatingChange
from trickroom.ratings.duplicate import DUPLICATE, Duplicate
from trickroom.ratings.errors import UnknownSystem
from trickroom.ratings.margin import MARGIN, OFFSETS
from trickroom.ratings.openskill_system import OPENSKILL, WengLin
from trickroom.ratings.points import POINTS_EL, POINTS_EN
from trickroom.ratings.result import GameResult
from trickroom.ratings.system import RatingSystem
from trickroom.ratings.wocg import WOCG, Wocg
from trickroom.ratings.zone import ZONE, Zone

ZONE_TUNED = Zone(name="zone_tuned", step=8.0, spread=200.0)
WOCG_TUNED = Wocg(name="wocg_tuned", k=20.0)
OPENSKILL_TUNED = WengLin(name="openskill_tuned", beta=720.0, tau=0.0,
                          model="thurstone_mosteller", luck=1.12)

FAITHFUL: tuple[RatingSystem, ...] = (ZONE, WOCG, POINTS_EN, POINTS_EL)
BETTER: tuple[RatingSystem, ...] = (ZONE_TUNED, WOCG_TUNED, OPENSKILL, OPENSKILL_TUNED, MARGIN)

SYSTEMS: Mapping[str, RatingSystem] = MappingProxyType(
    {s.name: s for s in (*FAITHFUL, *BETTER)})
"""Every preset by name: the faithful ones, then the tuned and Weng-Lin ones."""


DUPLICATE_SYSTEMS: Mapping[str, Duplicate] = MappingProxyType({DUPLICATE.name: DUPLICATE})
"""The systems that rate a duplicate board set (:class:`ratings.duplicate.DuplicateResult`:
the same deals at several tables) rather than one game, by name. They are apart from
:data:`SYSTEMS` because they take another result: a room names one for its board sets."""


def duplicate_system_named(name: str) -> Duplicate:
    """The duplicate system called ``name``, or :class:`UnknownSystem` listing the known
    names."""
    try:
        return DUPLICATE_SYSTEMS[name]
    except KeyError:
        raise UnknownSystem(f"no duplicate rating system named {name!r}; known: "
                            f"{', '.join(DUPLICATE_SYSTEMS)}") from None


def system_named(name: str) -> RatingSystem:
    """The system called ``name``, or :class:`UnknownSystem` listing the known names."""
    try:
        return SYSTEMS[name]
    except KeyError:
        raise UnknownSystem(
            f"no rating system named {name!r}; known: {', '.join(SYSTEMS)}") from None


def with_constants(name: str, constants: Mapping[str, float]) -> RatingSystem:
    """The preset ``name`` with a room's refitted constants (``trickroom ratings refit``).

    Only the constants :func:`ratings.refit.refit` fits may change (Zone's step
    and spread, WoCG's K and scale, Weng-Lin's beta and sigma, the final-score
    model's per-game constants), each to a positive number, or any finite
    number for an offset (a ``par`` score); a faithful preset takes none: its
    constants are the seed pages'. The system keeps its name, so the room's
    ratings carry on.

    >>> with_constants("openskill_tuned", {"beta": 1000}).beta
    1000.0
    """
    from trickroom.ratings.refit import FAITHFUL, fitted_fields

    system = system_named(name)
    if constants and name in FAITHFUL:
        raise UnknownSystem(f"{name!r} is a faithful preset: its constants are the seed "
                            "pages'")
    allowed = fitted_fields(system) if constants else ()
    for field, value in constants.items():
        if field not in allowed:
            raise UnknownSystem(f"{name!r} has no refitted constant {field!r}; it has "
                                f"{', '.join(allowed)}")
        if not isinstance(value, int | float) or isinstance(value, bool) or not (
                math.isfinite(value) if field in OFFSETS else value > 0):
            kind = "a finite" if field in OFFSETS else "a positive"
            raise UnknownSystem(f"{name!r}: {field} must be {kind} number, not {value!r}")
    return replace(system, **{f: float(v) for f, v in constants.items()})  # type: ignore[type-var]


def rate(result: GameResult, ratings: Mapping[str, Rating]) -> list[RatingChange]:
    """Rate ``result`` with the system it names (``result.system``)."""
    return system_named(result.system).rate(result, ratings)


def rate_quit(result: GameResult, ratings: Mapping[str, Rating], player: str
              ) -> RatingChange | None:
    """The quitter's immediate change in the result's system, if that system rates quits."""
    return system_named(result.system).rate_quit(result, ratings, player)

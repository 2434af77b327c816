"""Bounds on the variant rules a table may choose, checked when rules are made.

A rules value comes from a room file or a client's ``create_table``: it must be
of its field's type (an integer is not a float, a switch is ``true`` or
``false``) and inside the range a real table plays, so a value such as a target
of ``1e12`` or a pass of 13 cards never reaches an engine, and a game ends in at
most :data:`HAND_LIMIT` hands, as real card sites bound theirs. ``docs/protocol.md``
lists the same ranges (a test checks they agree).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import MISSING, dataclass, fields
from typing import Any

from trickroom.i18n import Msg

HAND_LIMIT = 200
"""The most hands a game may last (its ``hand_limit`` at most): whatever its other rules, a
game ends, its record and review stay bounded, and a table of robots does not play on for
ever. A Spades game to 1000 takes some 20 to 40 hands, a Hearts game to 1000 about 150."""

# field -> (least, most); a field not listed is a switch (bool) or checked by its class.
SPADES_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (1, 1000),
    "mercy": (1, 1000),
    "min_team_bid": (0, 13),
    "nil_value": (0, 1000),
    "blind_nil_value": (0, 1000),
    "blind_nil_deficit": (0, 5000),
    "bag_limit": (1, 50),
    "bag_penalty": (0, 1000),
    "hand_limit": (1, HAND_LIMIT),
}
# The bounded fields that may also be None (off). Named here, not read from the fields'
# annotations, which a dataclass compiled by mypyc no longer spells.
NULLABLE: dict[str, frozenset[str]] = {
    "spades": frozenset({"mercy", "bag_limit"}),
    "hearts": frozenset(),
}
HEARTS_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (1, 1000),
    "pass_count": (1, 4),
    "jack_value": (-100, 100),
    "hand_limit": (1, HAND_LIMIT),
}


# Set while a record's rules are remade (:func:`recorded_rules`): their checks are for new
# games. A context variable, not a flag: reviews are replayed in threads.
_UNCHECKED: ContextVar[bool] = ContextVar("trickroom_rules_unchecked", default=False)


@contextmanager
def unchecked() -> Iterator[None]:
    """Rules made inside are not checked (a record's, or a copy's)."""
    token = _UNCHECKED.set(True)
    try:
        yield
    finally:
        _UNCHECKED.reset(token)


def checking_rules() -> bool:
    """Whether rules being made now are checked (always, but while a record's are remade)."""
    return not _UNCHECKED.get()


def check_rules(rules: Any, bounds: dict[str, tuple[int, int]],
                nullable: frozenset[str] = frozenset()) -> None:
    """Raise ``ValueError`` naming the first field of the wrong type or out of bounds
    (``nullable``: the bounded fields that may be None); nothing while a record's rules
    are remade."""
    if _UNCHECKED.get():
        return
    _check_values({f.name: getattr(rules, f.name) for f in fields(rules)},
                  {f.name: f.default for f in fields(rules)}, bounds, nullable)


def rules_from(kind: str, rules_type: type, values: Mapping[str, Any]) -> Any:
    """Rules of ``kind`` made from the values a room or a table's creator gave, each value
    checked first: a wrong one is refused with the ``ValueError`` naming the rule that the
    rules' own check gives (:func:`check_rules`), where the rules class compiled by mypyc
    would refuse a wrong type with a bare ``TypeError`` before its check ran. A name the
    rules do not have is left to the class (``TypeError``)."""
    _check_values(values, {f.name: f.default for f in fields(rules_type)}, BOUNDS[kind],
                  NULLABLE[kind])
    return rules_type(**values)


def _check_values(values: Mapping[str, Any], defaults: Mapping[str, Any],
                  bounds: dict[str, tuple[int, int]], nullable: frozenset[str]) -> None:
    """Each value of a rule checked against its default's type and its bounds."""
    for name, value in values.items():
        if name not in defaults:
            continue
        default = defaults[name]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(Msg("{rule} must be true or false, not {value!r}",
                                     rule=name, value=value))
        elif name in bounds:
            if value is None and name in nullable:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(Msg("{rule} must be a whole number, not {value!r}",
                                     rule=name, value=value))
            least, most = bounds[name]
            if not least <= value <= most:
                raise ValueError(Msg("{rule} must be {least}..{most}, not {value}",
                                     rule=name, least=least, most=most, value=value))
        elif isinstance(default, tuple):
            if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
                raise ValueError(Msg("{rule} must be a list of words, not {value!r}",
                                     rule=name, value=value))
        elif isinstance(default, str) and not isinstance(value, str):
            raise ValueError(Msg("{rule} must be a word, not {value!r}", rule=name, value=value))


UNLIMITED_HANDS = 1_000_000
"""The hand limit of a game recorded before games had one: none (it was played without)."""


def recorded_rules(rules_type: type, values: Mapping[str, Any]) -> Any:
    """The rules of a game as its record holds them, unchecked: they were the rules it was
    played by, within the bounds of its day (a Spades target of 5000 before the bound came
    down to 1000), so its review and its resumption replay it as it was. A record from
    before ``hand_limit`` existed played without one. A field the rules do not have is
    refused (``TypeError``), as when rules are made."""
    known = {f.name: f for f in fields(rules_type)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise TypeError(f"unknown rule(s) in the record: {', '.join(unknown)}")
    made: dict[str, Any] = {}
    for name, f in known.items():
        if name in values:
            value = values[name]
        elif name == "hand_limit":
            value = UNLIMITED_HANDS
        elif f.default is not MISSING:
            value = f.default
        else:
            value = f.default_factory()  # type: ignore[operator]
        made[name] = tuple(value) if isinstance(value, list) else value
    # Made by the class itself (a class compiled by mypyc has no other way in), its checks
    # off: bounds are for new games.
    with unchecked():
        return rules_type(**made)


# -- the rules described, for a create-table form ----------------------------------------------

BOUNDS: dict[str, dict[str, tuple[int, int]]] = {"spades": SPADES_BOUNDS, "hearts": HEARTS_BOUNDS}


@dataclass(frozen=True)
class RuleText:
    """How a rule reads in a form: a ``label``, a one-line ``help``, whether the form shows
    it first (``common``), and for a rule of set values its ``choices`` (value, label)."""

    label: str  # a Msg, like help and each choice's label: the catalogs translate them
    help: str
    common: bool = False
    choices: tuple[tuple[Any, str], ...] = ()


# Every field of SpadesRules and HeartsRules, in the order a form lists them: the common
# ones first, with the labels the browser's create-table form has always used.
RULE_TEXTS: dict[str, dict[str, RuleText]] = {
    "spades": {
        "target": RuleText(
            Msg("Play to (points)"),
            Msg("The game ends after a hand in which a side reaches this score; the higher "
                "score wins."),
            True),
        "mercy": RuleText(
            Msg("Mercy: end when a side falls to minus (empty: off)"),
            Msg("The game also ends when a side falls to minus this score."),
            True),
        "bag_limit": RuleText(
            Msg("Bags before a penalty (empty: no penalty)"),
            Msg("Each time a side's overtricks (bags) reach this many, it loses the bag penalty."),
            True),
        "blind_nil": RuleText(
            Msg("Blind nil allowed"),
            Msg("A side trailing by the blind nil deficit may bid nil before looking at its "
                "cards."),
            True),
        "two_of_clubs_leads": RuleText(
            Msg("Two of clubs leads"),
            Msg("The holder of the 2 of clubs leads it to the first trick."),
            True),
        "team_bid_cap_13": RuleText(
            Msg("Partners bid at most 13 together"),
            Msg("Partners' bids together may not exceed 13 tricks.")),
        "min_team_bid": RuleText(
            Msg("Minimum team bid"),
            Msg("Partners' bids together must reach at least this many tricks (0: no minimum).")),
        "nil_value": RuleText(
            Msg("Nil scores"),
            Msg("A nil bid scores this when its bidder takes no trick, and costs as much "
                "otherwise.")),
        "nil_tricks_count_for_partner": RuleText(
            Msg("A nil bidder's tricks count for the partner"),
            Msg("Tricks a nil bidder takes count toward the partner's contract, as bags beyond "
                "it.")),
        "blind_nil_value": RuleText(
            Msg("Blind nil scores"),
            Msg("A blind nil scores this when its bidder takes no trick, and costs as much "
                "otherwise.")),
        "blind_nil_deficit": RuleText(
            Msg("Blind nil only when behind by"),
            Msg("Blind nil may be bid only by a side trailing by at least this many points.")),
        "spades_always_leadable": RuleText(
            Msg("Spades may always be led"),
            Msg("Spades may be led before one has been played (after the first trick).")),
        "bag_penalty": RuleText(
            Msg("Bag penalty"),
            Msg("What a side loses each time its bags reach the bag limit.")),
        "hand_limit": RuleText(
            Msg("Most hands"),
            Msg("The game ends after this many hands if no side has won by then: the higher "
                "score wins (equal: a draw).")),
    },
    "hearts": {
        "target": RuleText(
            Msg("Play to (points)"),
            Msg("The game ends after a hand in which someone reaches this score; the lowest "
                "score wins."),
            True),
        "pass_cycle": RuleText(
            Msg("Passing"),
            Msg("Which way the cards are passed, hand after hand, round and round."),
            True,
            (
                (("left", "right", "across", "hold"),
                 Msg("left, right, across, hold")),
                (("left", "right", "across"),
                 Msg("left, right, across")),
                (("left",),
                 Msg("always left")),
                (("hold",),
                 Msg("no passing")),
            )),
        "moon": RuleText(
            Msg("Shooting the moon"),
            Msg("A player who takes every heart and the queen of spades adds 26 to everyone "
                "else, takes 26 off their own score, or chooses which."),
            True,
            (
                ("add_to_others",
                 Msg("add to others")),
                ("subtract_from_shooter",
                 Msg("subtract from shooter")),
                ("shooter_chooses",
                 Msg("shooter chooses")),
            )),
        "jack_of_diamonds": RuleText(
            Msg("Jack of diamonds scores −10"),
            Msg("Taking the jack of diamonds scores the jack's value (−10: a bonus)."),
            True),
        "blood_on_first_trick": RuleText(
            Msg("Points allowed on the first trick"),
            Msg("Hearts and the queen of spades may be played on the first trick."),
            True),
        "pass_count": RuleText(
            Msg("Cards passed"),
            Msg("How many cards each player passes.")),
        "any_club_first": RuleText(
            Msg("Any club may lead the first trick"),
            Msg("The holder of the 2 of clubs may lead any club to the first trick.")),
        "queen_breaks_hearts": RuleText(
            Msg("The queen of spades breaks hearts"),
            Msg("Once the queen of spades is played, hearts may be led, as after a heart.")),
        "jack_value": RuleText(
            Msg("Jack of diamonds value"),
            Msg("What taking the jack of diamonds scores when that rule is on (negative lowers "
                "the score).")),
        "hand_limit": RuleText(
            Msg("Most hands"),
            Msg("The game ends after this many hands if nobody has reached the target by then: "
                "the lowest score wins.")),
    },
}


def describe_rules(kind: str, rules_type: type) -> list[dict[str, Any]]:
    """Each rule of ``rules_type`` a table's creator may set, for a form to be built from:
    ``name``, ``type`` (``int``, ``bool`` or ``choice``), ``default``, ``min``/``max`` and
    ``nullable`` (an int that may be left empty: off) or ``choices`` (each ``value`` and
    ``label``), and the ``label``, ``help`` and ``common`` of :data:`RULE_TEXTS`."""
    bounds, texts = BOUNDS[kind], RULE_TEXTS[kind]
    defaults = {f.name: f.default for f in fields(rules_type)}
    out = []
    for name, text in texts.items():
        default = defaults[name]
        entry: dict[str, Any] = {"name": name}
        if isinstance(default, bool):
            entry.update(type="bool", default=default)
        elif name in bounds:
            least, most = bounds[name]
            entry.update(type="int", default=default, min=least, max=most,
                         nullable=name in NULLABLE[kind])
        else:
            entry.update(type="choice", default=_plain(default),
                         choices=[{"value": _plain(v), "label": label}
                                  for v, label in text.choices])
        entry.update(label=text.label, help=text.help, common=text.common)
        out.append(entry)
    return out


def _plain(value: Any) -> Any:
    """A rule value as JSON has it (a tuple is a list)."""
    return list(value) if isinstance(value, tuple) else value

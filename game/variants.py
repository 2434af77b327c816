"""Bounds on the variant rules a table may choose, checked when rules are made.

A rules value comes from a room file or a client's ``create_table``: it must be
of its field's type (an integer is not a float, a switch is ``true`` or
``false``) and inside the range a real table plays, so a value such as a target
of ``1e12`` or a pass of 13 cards never reaches an engine. ``docs/protocol.md``
lists the same ranges (a test checks they agree).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

# field -> (least, most); a field not listed is a switch (bool) or checked by its class.
SPADES_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (1, 5000),
    "mercy": (1, 5000),
    "min_team_bid": (0, 13),
    "nil_value": (0, 1000),
    "blind_nil_value": (0, 1000),
    "blind_nil_deficit": (0, 5000),
    "bag_limit": (1, 50),
    "bag_penalty": (0, 1000),
}
HEARTS_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (1, 1000),
    "pass_count": (1, 4),
    "jack_value": (-100, 100),
}


def check_rules(rules: Any, bounds: dict[str, tuple[int, int]]) -> None:
    """Raise ``ValueError`` naming the first field of the wrong type or out of bounds."""
    for f in fields(rules):
        value = getattr(rules, f.name)
        default = f.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"{f.name} must be true or false, not {value!r}")
        elif f.name in bounds:
            if value is None and "None" in str(f.type):
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{f.name} must be a whole number, not {value!r}")
            least, most = bounds[f.name]
            if not least <= value <= most:
                raise ValueError(f"{f.name} must be {least}..{most}, not {value}")

"""Copies of a table's values, to undo a command: one rule by the type of each value.

A table's state is copied before every command and put back if the command is
undone (:mod:`.state`). The copy goes field by field, by the type of each value,
so a field added to a state class is copied with no line naming it:

* a list, set or dict is copied, a list's items by this same rule (a dict's values
  and a set's items are values: numbers, strings, tuples, frozen dataclasses);
* an object with a ``copy()`` of its own is copied by it (a dataclass of the state
  gets one from :func:`copy_fields`);
* anything else is a value, kept as it is.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def copied(value: Any) -> Any:
    """A copy of one value, by the rule of its type."""
    kind = type(value)
    if kind in _VALUES:
        return value
    if kind is list:
        return [copied(item) for item in value]
    if kind is dict:
        return dict(value)
    if kind is set:
        return set(value)
    copy = getattr(value, "copy", None)
    return value if copy is None else copy()


def copy_fields(value: T, shared: frozenset[str] = frozenset()) -> T:
    """A copy of a dataclass, each field copied but those in ``shared`` (kept as they are)."""
    kind = type(value)
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(f.name for f in fields(kind))  # type: ignore[arg-type]
    made = object.__new__(kind)
    for name in names:
        item = getattr(value, name)
        setattr(made, name, item if name in shared else copied(item))
    return made


_NAMES: dict[type, tuple[str, ...]] = {}  # each dataclass's fields, read once
_VALUES = frozenset({str, int, float, bool, type(None), tuple, frozenset, bytes})

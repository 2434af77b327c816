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

from collections.abc import Callable
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
    """A copy of a dataclass, each field copied but those in ``shared`` (kept as they are).

    The copy of each class (and set of shared fields) is a function written once from the
    class's fields, as ``dataclasses`` writes ``__init__``: every command copies the
    table's state, and a loop over the fields cost a move twice as much."""
    kind = type(value)
    copy = _COPIES.get((kind, shared))
    if copy is None:
        copy = _COPIES[kind, shared] = _copier(kind, shared)
    return copy(value)  # type: ignore[no-any-return]


def _copier(kind: type, shared: frozenset[str]) -> Callable[[Any], Any]:
    names = [f.name for f in fields(kind)]
    body = "".join(f"    made.{name} = value.{name}\n" if name in shared else
                   f"    made.{name} = copied(value.{name})\n" for name in names)
    source = f"def copy(value):\n    made = new(kind)\n{body}    return made\n"
    scope: dict[str, Any] = {"new": object.__new__, "kind": kind, "copied": copied}
    exec(source, scope)  # code made from the class's own field names, nothing else
    return scope["copy"]  # type: ignore[no-any-return]


_COPIES: dict[tuple[type, frozenset[str]], Callable[[Any], Any]] = {}
_VALUES = frozenset({str, int, float, bool, type(None), tuple, frozenset, bytes})

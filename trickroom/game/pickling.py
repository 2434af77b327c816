"""Pickling the core's frozen dataclasses the same way, compiled or not.

Games, views, rules and actions cross to worker processes (robots that think, analyses)
by pickle. A frozen dataclass compiled by mypyc refuses the attribute assignments that
pickle's default rebuilding makes (``FrozenInstanceError``), so each is registered with
:mod:`copyreg` to be rebuilt by calling its class with its fields by name, its checks off (rules
of a record past today's bounds are rebuilt as they were, as :func:`recorded_rules`
makes them).
"""

from __future__ import annotations

import copyreg
from dataclasses import fields, is_dataclass
from types import ModuleType
from typing import Any

from trickroom.game.variants import unchecked


def remade(cls: type, values: dict[str, Any]) -> Any:
    """An instance of the frozen dataclass ``cls`` from its fields' values, by name."""
    with unchecked():
        return cls(**values)


def _reduce(obj: Any) -> tuple[Any, ...]:
    return remade, (type(obj), {f.name: getattr(obj, f.name) for f in fields(obj) if f.init})


def register_frozen(*modules: ModuleType) -> None:
    """Register every frozen dataclass defined in ``modules`` with :mod:`copyreg`."""
    for module in modules:
        for value in vars(module).values():
            if (isinstance(value, type) and is_dataclass(value)
                    and value.__module__ == module.__name__
                    and value.__dataclass_params__.frozen):  # type: ignore[attr-defined]
                copyreg.pickle(value, _reduce)

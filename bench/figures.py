"""What every bench shares: its command line, and what it computes its figures with."""

from __future__ import annotations

import argparse
import math


def command_line(doc: str | None) -> argparse.ArgumentParser:
    """A bench's argument parser, described by the first line of its docstring ``doc``."""
    return argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank; nan for none)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ratio(value: float, base: float) -> float:
    """``value`` over its baseline measured in the same run (nan where it is zero)."""
    return value / base if base else math.nan

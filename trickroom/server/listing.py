"""How a room's tables are listed: the order a player looks for a seat in, and the cut.

A room may hold thousands of tables; its list gives a bounded number of them
(``tables_listed``), so that what a client asks costs the loop the time of the tables
it is shown. One node's lobby and a cluster's shared list both order them here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from trickroom.server.protocol import TableInfo

LISTED_STATES = ("waiting", "playing", "over")  # a room's list, in this order


def unlisted(info: TableInfo, removed: bool) -> bool:
    """Whether a table is out of its room's list: removed (closed, or run elsewhere), or
    private (issue 35: a private table is listed to no one, its players included; they
    come back to it by its invite or their seat)."""
    return removed or info.private


def listed_first(states: Iterable[dict[str, TableInfo]],
                 limit: int) -> tuple[list[TableInfo], int]:
    """The first ``limit`` tables of ``states`` in turn (each in the order it was told),
    and how many tables there are in all."""
    out: list[TableInfo] = []
    total = 0
    for tables in states:
        total += len(tables)
        if len(out) < limit:
            out.extend(itertools.islice(tables.values(), limit - len(out)))
    return out, total

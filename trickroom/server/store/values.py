"""The store's values and errors, and what a write is made of (:data:`Statement`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from trickroom.server.tables.records import GameCreated

Row = Mapping[str, Any]


class Tx(Protocol):
    """The open transaction, for a statement that reads before it writes."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...


# One write inside a transaction: SQL with its parameters, or a function of the transaction.
Statement = tuple[str, Sequence[Any]] | Callable[[Tx], Awaitable[None]]


class StoreError(Exception):
    """A write the store did not make; nothing of it landed."""


class NameTaken(StoreError):
    """Registering a name that already has an account."""


class Conflict(StoreError):
    """A write that breaks a key: an action's index already stored, say."""


class StaleOwner(StoreError):
    """A table's write from a node that no longer owns it (a newer epoch has written)."""


class StoreUnavailable(StoreError):
    """The database cannot be reached: the write was not made, and may be retried."""


@dataclass(frozen=True)
class Fence:
    """Who writes for a table: its id and the writer's epoch of ownership."""

    table_id: str
    epoch: int


@dataclass(frozen=True)
class StoredGame:
    """An unfinished game as the store holds it: how it was created, and its actions since
    (each with its seat), which replayed rebuild it."""

    created: GameCreated
    actions: list[dict[str, Any]]

"""Persistence behind one interface (:class:`Store`): SQLite embedded, the default for
one process, or PostgreSQL for a cluster of nodes (DESIGN sections 9 and 11)."""

from __future__ import annotations

from pathlib import Path

from trickroom.server.store.base import RECENT_GAMES, Store
from trickroom.server.store.sqlite import DURABILITY, SqliteStore
from trickroom.server.store.values import (
    Conflict,
    Fence,
    NameTaken,
    StaleOwner,
    StoredGame,
    StoreError,
    StoreUnavailable,
)

__all__ = ["DURABILITY", "RECENT_GAMES", "Conflict", "Fence", "NameTaken", "SqliteStore",
           "StaleOwner", "Store", "StoreError", "StoreUnavailable", "StoredGame",
           "is_postgres", "open_store"]


def is_postgres(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL database (a URL) rather than an SQLite file."""
    return str(target).startswith(("postgresql://", "postgres://"))


def open_store(target: str | Path, durability: str = "server_crash",
               commit_window: float = 0.0) -> Store:
    """The store for ``target``: ``postgresql://user@host/db`` (with an optional
    ``?schema=name``) or a path to an SQLite file. Not yet opened. ``commit_window``:
    seconds a PostgreSQL writer waits for more writes to join a commit."""
    if is_postgres(target):
        from trickroom.server.store.postgres import PostgresStore
        return PostgresStore(str(target), commit_window=commit_window)
    return SqliteStore(target, durability=durability)

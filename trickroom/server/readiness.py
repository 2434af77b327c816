"""Whether this node should be sent players now (``GET /readyz``), apart from whether the
process answers at all (``GET /healthz``).

A proxy or an orchestrator sends new players only to a ready node: its store and its hub
answer within ``BOUND`` seconds, it is not draining, and (a cluster node) its leases are
proved. One check runs at a time, shared by every probe that comes meanwhile, and its
answer is kept ``FRESH`` seconds: a flood of probes costs the store one query a
``FRESH``, and a node goes unready, or ready again, within ``BOUND + FRESH`` seconds of
its database or Redis going away or coming back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from trickroom.server.urls import masked

BOUND = 1.0  # seconds the store and the hub each have to answer
FRESH = 0.5  # seconds an answer is kept


class Readiness:
    """This node's readiness, checked at most once a ``FRESH``."""

    def __init__(self, store_ping: Callable[[], Awaitable[None]],
                 hub_unready: Callable[[], Awaitable[str | None]]) -> None:
        self.store_ping = store_ping
        self.hub_unready = hub_unready
        self.draining = False  # set once the node drains: it takes no new players
        self._checked: tuple[float, list[str]] | None = None
        self._checking: asyncio.Future[list[str]] | None = None

    async def problems(self) -> list[str]:
        """Why this node is not ready, in words (empty: ready)."""
        now = time.monotonic()
        if self._checked is not None and now - self._checked[0] < FRESH:
            return self._draining() + self._checked[1]
        if self._checking is None or self._checking.done():
            self._checking = asyncio.ensure_future(self._check())
        return self._draining() + await asyncio.shield(self._checking)

    def _draining(self) -> list[str]:
        return ["this node is draining: its tables are moving to other nodes"] \
            if self.draining else []

    async def _check(self) -> list[str]:
        started = time.monotonic()
        store, hub = await asyncio.gather(self._within("the database", self._store()),
                                          self._within("the cluster", self.hub_unready()))
        problems = [p for p in (store, hub) if p]
        self._checked = (started, problems)
        return problems

    async def _store(self) -> str | None:
        await self.store_ping()
        return None

    @staticmethod
    async def _within(what: str, check: Awaitable[str | None]) -> str | None:
        try:
            async with asyncio.timeout(BOUND):
                problem = await check
        except TimeoutError:
            return f"{what}: no answer within {BOUND:g} s"
        except Exception as exc:  # a failed check is a reason, not a crash
            return f"{what}: {masked(f'{type(exc).__name__}: {exc}')}"
        return None if problem is None else f"{what}: {problem}"

"""The hub of a server that is one process: a cluster of one (DESIGN section 11).

Everything nodes would share is this process's memory: the rooms' listings,
the ignore lists, the ranked queues, the login back-off. There is no other
node, so nothing is elsewhere: no table is routed away, no count is added from
another node, no write needs a fence, and a guest name held here is held.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable, Sequence

from trickroom.server.config import ServerSettings
from trickroom.server.hub.port import (
    OFFLINE,
    Batch,
    Budget,
    Host,
    Member,
    Presence,
    Queued,
    close_signed_out,
)
from trickroom.server.listing import LISTED_STATES, listed_first, unlisted
from trickroom.server.protocol import ClientMessage, TableInfo
from trickroom.server.store import Fence, Store
from trickroom.server.tables.commands import ClientId
from trickroom.server.tables.log import Shared
from trickroom.server.throttle import Buckets, Logins, TokenBucket, Window


class LocalBudget(TokenBucket):
    """An address's message budget in this process: it always answers at once."""

    async def more(self) -> float:
        return self.reserve()


class LocalHub:
    """The :class:`~trickroom.server.hub.port.Hub` of one process."""

    away: tuple[type[Exception], ...] = ()  # nothing shared can be out of reach

    def __init__(self, store: Store, settings: ServerSettings) -> None:
        self.store = store
        self.guess_key = secrets.token_bytes(32)
        self.registrations: Window | None = None  # made at the first registration
        self.logins = Logins(settings.login_free_failures,
                             settings.login_free_failures_per_address,
                             settings.login_backoff_seconds, settings.login_backoff_max_seconds,
                             settings.login_free_failures_per_guess,
                             settings.login_failures_per_second, settings.login_failure_burst)
        # Each room's open tables as last told, by state: a room's list and its count come
        # from here in the time of the tables listed, not of every table open.
        self.listed: dict[str, dict[str, dict[str, TableInfo]]] = defaultdict(
            lambda: {state: {} for state in LISTED_STATES})
        self.ignores: dict[str, set[str]] = defaultdict(set)  # who -> the names it ignores
        self.ignorers: dict[str, set[str]] = defaultdict(set)  # name -> who ignores it
        self.queues: dict[str, dict[str, Queued]] = defaultdict(dict)  # room -> name -> entry
        self.joins: dict[str, list[float]] = defaultdict(list)  # room -> last join times
        self._matching: set[str] = set()
        self._host: Host | None = None
        self._guest_seconds = settings.guest_session_seconds
        # Guest names held, case-folded, until when (monotonic): Redis's SET NX PX here.
        self._guests: dict[str, float] = {}
        self._guests_pruned = 0  # how many held names the last pruning left
        self._buckets: dict[str, Buckets] = {}  # by kind: budgets of ``take``
        self._presence: dict[str, Presence] = {}  # by account, case-folded: who is online
        # Challenges by id: until when (monotonic), the record, the answers by name.
        self._challenges: dict[str, tuple[float, str, dict[str, str]]] = {}

    @property
    def host(self) -> Host:
        assert self._host is not None, "the hub is not started"
        return self._host

    # -- life -------------------------------------------------------------------------------

    async def start(self, host: Host) -> None:
        """Start; the guest names whose sessions may still resume are held again (a
        look-alike of one is not given out after a restart either)."""
        self._host = host
        wall, now = time.time(), time.monotonic()
        for name, made in await self.store.guest_names_since(wall - self._guest_seconds):
            self._guests[name.lower()] = now + made + self._guest_seconds - wall

    def first_client_id(self) -> int:
        return 1

    def description(self) -> str:
        return "one process"

    def node_name(self) -> str:
        return "single"

    async def resume_tables(self) -> int:
        """Every unfinished game of the store is this process's (DESIGN section 9)."""
        stored_games = await self.store.unfinished_games()
        for stored in stored_games:
            await self.host.resume(stored)
        return len(stored_games)

    async def stop(self) -> None:
        pass

    async def hand_over(self, tables: Sequence[str]) -> int:
        return 0  # no other node: the tables stop with this one, flushed, and resume at start

    async def unready(self) -> str | None:
        return None  # nothing is shared: the store is the only other party

    # -- tables: every one is here ----------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        return True

    async def fence(self, table_id: str) -> Fence | None:
        return None

    def lost(self, table_id: str, why: str) -> None:
        pass

    def table_closed(self, table_id: str) -> None:
        pass

    def relay(self, table_id: str, batch: Batch) -> None:
        pass

    async def route(self, client: Member, message: ClientMessage, table_id: str) -> bool:
        return False

    def watching(self, table_id: str) -> bool:
        return False

    async def disconnected(self, client: Member, tables: Sequence[str]) -> None:
        pass

    # -- rooms ------------------------------------------------------------------------------

    def table_changed(self, info: TableInfo, removed: bool) -> None:
        """Keep a table's latest info in its room's list, in its place while its state
        stays (a waiting table keeps its turn as seats fill), or last in its new state."""
        states = self.listed[info.room]
        tables = None if unlisted(info, removed) else states.get(info.state)
        if tables is not None and info.id in tables:
            tables[info.id] = info
            return
        for others in states.values():
            others.pop(info.id, None)
        if tables is not None:
            tables[info.id] = info

    def tables_pushed(self, updates: Sequence[tuple[str, Shared]]) -> None:
        pass

    async def room_tables(self, room: str, limit: int) -> tuple[list[TableInfo], int]:
        return listed_first(self.listed[room].values(), limit)

    async def room_listings(self, room: str, tables: Iterable[str]) -> list[TableInfo]:
        states = self.listed.get(room)
        if states is None:
            return []
        return [info for table_id in tables for state in states.values()
                if (info := state.get(table_id)) is not None]

    async def room_counts(self, rooms: Iterable[str]) -> dict[str, int]:
        return {room: sum(map(len, self.listed[room].values())) if room in self.listed else 0
                for room in rooms}

    def room_chat(self, room: str, message: Shared, ignored_by: frozenset[str]) -> None:
        pass

    async def ignore(self, name: str, other: str, on: bool, most: int) -> bool:
        if on:
            ignored = self.ignores[name]
            if other not in ignored and len(ignored) >= most:
                return False
            ignored.add(other)
            self.ignorers[other].add(name)
            return True
        _discard(self.ignores, name, other)
        _discard(self.ignorers, other, name)
        return True

    async def ignores_dropped(self, name: str) -> None:
        for other in self.ignores.pop(name, ()):
            _discard(self.ignorers, other, name)

    async def ignores_restored(self, name: str, others: Iterable[str]) -> None:
        await self.ignores_dropped(name)
        ignored = set(others)
        if ignored:
            self.ignores[name] = ignored
            for other in ignored:
                self.ignorers[other].add(name)

    async def ignored_by(self, name: str) -> frozenset[str]:
        return frozenset(self.ignorers.get(name, ()))

    # -- the ranked queues ------------------------------------------------------------------

    async def queue_add(self, room: str, entry: Queued) -> bool:
        queue = self.queues[room]
        if entry.name.lower() in queue:
            return False
        queue[entry.name.lower()] = entry
        joins = self.joins[room]
        joins.append(entry.at)
        del joins[:-20]
        return True

    async def queue_remove(self, room: str, name: str) -> None:
        self.queues[room].pop(name.lower(), None)

    async def queued(self, room: str) -> tuple[list[Queued], list[float]]:
        return list(self.queues[room].values()), list(self.joins[room])

    @contextlib.asynccontextmanager
    async def matcher(self, room: str) -> AsyncIterator[bool]:
        if room in self._matching:
            yield False
            return
        self._matching.add(room)
        try:
            yield True
        finally:
            self._matching.discard(room)

    async def follow(self, entry: Queued, table_id: str) -> Member:
        return self.host.clients[entry.client]

    def tell(self, entry: Queued, text: str) -> None:
        client = self.host.clients.get(entry.client)
        if client is not None:
            client.send_text(text)

    # -- names and limits -------------------------------------------------------------------

    async def hold_guest(self, name: str, seconds: float, renew: bool = False) -> bool:
        """Held case-insensitively, as the cluster's Redis key is: ``guest-gn7c9c`` is not
        given out while ``guest-Gn7c9c`` may resume. (Names are ASCII, so Unicode's case
        folding is lower-casing.)"""
        key, now = name.lower(), time.monotonic()
        if not renew and self._guests.get(key, 0.0) > now:
            return False
        self._guests[key] = now + seconds
        if len(self._guests) > 2 * self._guests_pruned + 1000:
            self._guests = {k: until for k, until in self._guests.items() if until > now}
            self._guests_pruned = len(self._guests)
        return True

    def share_count(self, kind: str, key: str, count: int) -> None:
        pass

    async def count_elsewhere(self, kind: str, key: str) -> int:
        return 0

    def presence_changed(self, name: str, here: Presence | None) -> None:
        key = name.lower()
        if here is None:
            self._presence.pop(key, None)
        else:
            self._presence[key] = here
        self.host.presence_pushed(name)

    async def presence(self, names: Sequence[str]) -> dict[str, Presence]:
        return {name: self._presence.get(name.lower(), OFFLINE) for name in names}

    def to_account(self, name: str, message: Shared) -> None:
        self.host.to_account(name, message)

    async def challenge_put(self, challenge_id: str, record: str, seconds: float) -> None:
        now = time.monotonic()
        self._challenges = {k: c for k, c in self._challenges.items() if c[0] > now}
        self._challenges[challenge_id] = (now + seconds, record, {})

    async def challenge_answer(self, challenge_id: str, name: str,
                               answer: str) -> tuple[str, dict[str, str]] | None:
        found = self._challenges.get(challenge_id)
        if found is None or found[0] <= time.monotonic():
            return None
        _, record, answers = found
        answers.setdefault(name.lower(), answer)
        return record, dict(answers)

    async def challenge_claim(self, challenge_id: str) -> bool:
        return self._challenges.pop(challenge_id, None) is not None

    def budget(self, address: str, rate: float, burst: int) -> Budget:
        return LocalBudget(rate, burst)

    async def take(self, kind: str, key: str, rate: float, burst: int) -> float:
        buckets = self._buckets.get(kind)
        if buckets is None:
            buckets = self._buckets[kind] = Buckets(rate, burst)
        return buckets.take(key.lower())

    def give_back(self, kind: str, key: str) -> None:
        buckets = self._buckets.get(kind)
        if buckets is not None:
            buckets.give_back(key.lower())

    async def registration(self, address: str, limit: int, seconds: float) -> tuple[float, str]:
        now = time.monotonic()
        window = self._registrations(limit, seconds)
        wait = window.wait(address, now)
        if wait > 0:
            return wait, ""
        window.add(address, now)
        return 0.0, repr(now)

    def registration_failed(self, address: str, mark: str) -> None:
        if self.registrations is not None and mark:
            self.registrations.discard(address, float(mark))

    def _registrations(self, limit: int, seconds: float) -> Window:
        if self.registrations is None:
            self.registrations = Window(limit, seconds)
        return self.registrations

    def signed_out(self, name: str, ended: str | None, keep: str, client: ClientId) -> None:
        close_signed_out(self.host.clients.values(), name, ended, keep, client)

    async def login_wait(self, account: str | None, address: str | None,
                         guess: str | None = None) -> float:
        return self.logins.wait(account, address, time.monotonic(), guess)

    async def login_failed(self, account: str, address: str | None,
                           guess: str | None = None) -> None:
        self.logins.failed(account, address, time.monotonic(), guess)

    async def login_succeeded(self, account: str) -> None:
        self.logins.succeeded(account)


def _discard(sets: dict[str, set[str]], key: str, value: str) -> None:
    """Take ``value`` from the set at ``key``, and the set once empty."""
    values = sets.get(key)
    if values is not None:
        values.discard(value)
        if not values:
            del sets[key]

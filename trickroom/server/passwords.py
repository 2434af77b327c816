"""Passwords: Argon2id hashes, checked off the event loop, at a bounded rate.

A hash is meant to be slow (about 20 ms and 19 MiB with the default profile):
run on the event loop, a few wrong passwords a second stalled every
table. So hashing runs in a small thread pool (``argon2-cffi`` and
``hashlib.scrypt`` release the GIL while they work), and at most ``queue``
hashes wait for it: past that a login is refused as ``rate_limited`` at once,
instead of queueing work that would delay every later login. An address has a budget of
hashes (``burst``, refilled at ``rate`` a second): past it, its logins and registrations
are refused unhashed, so that a flood of them, good passwords or not, costs the server
little and slows no one else. One address may have at
most ``per_address`` of them waiting, and the pool's threads go to the addresses waiting
in turn: a flood from one address is refused past its share, and another address's
login finds room and waits for one hash of the flood's, not all of them. And an address
that has had many hashes in the last seconds (``BUSY``) has its next ones run on threads
at the lowest priority (nice 19): on a small machine its hashes then take the cores only
when no other address's login, and no table, wants them.

Hashes made before Argon2 (``scrypt$n$r$p$salt$digest``) still verify; the
caller re-hashes the password with Argon2 after a good login
(:func:`needs_rehash`).

A password is normalised to Unicode NFC before it is hashed or checked (RFC
8265's OpaqueString profile; NFC and not NFKC, so that no two distinct
characters a user typed are folded into one): "é" is one password whether a
keyboard sends it composed or as "e" and a combining accent. A hash made
before normalisation of a password typed in another form still matches that
form (:data:`Verdict.STALE`), and the caller makes it again of the normal one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import math
import os
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from enum import IntEnum
from typing import Any, TypeVar

from argon2 import Parameters, PasswordHasher, Type, profiles
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from trickroom.i18n import Msg
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import ProtocolError
from trickroom.server.throttle import Buckets

T = TypeVar("T")
# OWASP's Password Storage Cheat Sheet: Argon2id, 19 MiB, 2 passes, one lane (about 20 ms
# here). One lane matters: a hash with four lanes runs four threads, and on a small
# machine a few logins a second then took every core from the tables.
OWASP = Parameters(type=Type.ID, version=19, salt_len=16, hash_len=32, time_cost=2,
                   memory_cost=19456, parallelism=1)
PROFILES = {
    "owasp": OWASP,  # the default
    "rfc9106_low_memory": profiles.RFC_9106_LOW_MEMORY,  # t=3, 64 MiB, 4 lanes
    "rfc9106_high_memory": profiles.RFC_9106_HIGH_MEMORY,  # t=1, 2 GiB, 4 lanes
    "cheapest": profiles.CHEAPEST,  # for benchmarks of other things only
}


def hasher(profile: str = "owasp") -> PasswordHasher:
    return PasswordHasher.from_parameters(PROFILES[profile])


@functools.cache
def decoy(profile: str) -> str:
    """The hash a login for a name nobody has is checked against, so that it takes as long
    as a real one and does not tell which names exist. One a process: it is a hash of no
    one's password, and at the strong profile each costs tens of milliseconds, which every
    server started in the process (a test suite starts hundreds) paid again."""
    return hasher(profile).hash("not a password")


def _scrypt_matches(password: str, stored: str) -> bool:
    """A hash from before Argon2: ``scrypt$n$r$p$salt$digest``."""
    try:
        _, n, r, p, salt, digest = stored.split("$")
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


BUSY = 4.0
"""Hashes in the last ``BUSY_SECONDS`` (decayed) past which an address's next ones run at
the lowest priority: a player's login or two never reaches it, a flood does at once."""
BUSY_SECONDS = 10.0
LOW_PRIORITY = 19


def _lower_priority() -> None:
    """A pool thread's start: the lowest priority for this thread alone (Linux's nice is
    per thread); where it cannot be set, the thread runs as the others."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY)


class Verdict(IntEnum):
    """A password check's outcome: false only when it does not match."""

    WRONG = 0
    RIGHT = 1
    STALE = 2  # right, but the hash is of a password not normalised: make it again


def normalized(password: str) -> str:
    return unicodedata.normalize("NFC", password)


def _matches(ph: PasswordHasher, password: str, stored: str) -> bool:
    if stored.startswith("scrypt$"):
        return _scrypt_matches(password, stored)
    try:
        return ph.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def verify(ph: PasswordHasher, password: str, stored: str) -> Verdict:
    """Whether ``password`` matches ``stored`` (Argon2 or a legacy scrypt hash),
    normalised or, for a hash made before normalisation, as typed."""
    normal = normalized(password)
    if _matches(ph, normal, stored):
        return Verdict.RIGHT
    if normal != password and _matches(ph, password, stored):
        return Verdict.STALE
    return Verdict.WRONG


def needs_rehash(ph: PasswordHasher, stored: str) -> bool:
    """A legacy scrypt hash, or Argon2 with other parameters than the server's."""
    return stored.startswith("scrypt$") or ph.check_needs_rehash(stored)


class Passwords:
    """Hashes and checks passwords in worker threads, with a bounded queue."""

    def __init__(self, profile: str = "owasp", workers: int = 1,
                 queue: int = 8, per_address: int = 0, rate: float = 0.0,
                 burst: int = 30, budget: Callable[[str], Awaitable[float]] | None = None
                 ) -> None:
        self.ph = hasher(profile)
        # Each address's budget of hashes: ``burst``, refilled at ``rate`` a second (0:
        # none); ``budget``, where given, takes its credit (the hub's, one over every node).
        self.budget = budget or self._own_budget(Buckets(rate, burst))
        self.queue = queue
        self.per_address = per_address  # one address's share of the queue (0: no share)
        self.pending = 0
        self.pending_by: dict[str, int] = {}  # by address, while it has hashes waiting
        self.workers = workers
        self._running = 0  # threads of the pool given a hash
        self._holding: dict[str, int] = {}  # threads each address holds now
        # One address holds at most all threads but one: with two or more, another
        # address's login always finds a thread free, whatever one address floods.
        self.share = max(1, workers - 1)
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}  # addresses in turn
        self.checked = 0  # passwords verified since start (the abuse bench reads it)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="passwords")
        # A busy address's hashes, on threads of the lowest priority (issue 32: another
        # address's logins during a flood of good ones).
        self._low = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="passwords-low",
                                       initializer=_lower_priority)
        self._recent: dict[str, tuple[float, float]] = {}  # address: (hashes, when), decayed
        self._decoy = decoy(profile)

    @staticmethod
    def _own_budget(buckets: Buckets) -> Callable[[str], Awaitable[float]]:
        async def take(who: str) -> float:
            return buckets.take(who)
        return take

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._low.shutdown(wait=False, cancel_futures=True)

    def _busy(self, who: str) -> bool:
        """Count one hash for ``who``; whether it has had more than ``BUSY`` in the last
        ``BUSY_SECONDS`` or so (a count that decays exponentially)."""
        now = time.monotonic()
        count, when = self._recent.get(who, (0.0, now))
        count = count * math.exp((when - now) / BUSY_SECONDS) + 1.0
        self._recent[who] = (count, now)
        if len(self._recent) > 10_000:  # forget the addresses long quiet
            horizon = now - 5 * BUSY_SECONDS
            self._recent = {a: v for a, v in self._recent.items() if v[1] >= horizon}
        return count > BUSY

    async def _run(self, who: str, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the pool for the address ``who`` (issue 32, item 3). An address
        may have at most its share of the queue waiting, and the pool's threads go to the
        addresses waiting in turn, one hash each: a flood of logins or registrations from
        one address is refused past its share, and another address's login waits for at
        most one hash of each address ahead of it, not for the whole flood."""
        mine = self.pending_by.get(who, 0)
        if who and self.per_address and mine >= self.per_address:
            raise ProtocolError("rate_limited", Msg("your address has passwords being checked "
                                                    "already; try again in a second"),
                                retry_after=1.0)
        if self.pending >= self.queue:
            raise ProtocolError("rate_limited", Msg("the server is busy checking passwords; "
                                                    "try again in a second"), retry_after=1.0)
        self.pending += 1
        self.pending_by[who] = mine + 1
        try:
            wait = await self.budget(who) if who else 0.0
            if wait:
                raise ProtocolError("rate_limited", Msg("too many passwords checked for your "
                                                        "address; try again in {seconds:.0f} s",
                                                        seconds=max(wait, 1)),
                                    retry_after=round(wait, 1))
            pool = self._low if who and self._busy(who) else self._pool
            await self._turn(who)
            try:
                return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
            finally:
                self._release(who)
        finally:
            self.pending -= 1
            left = self.pending_by[who] - 1
            if left:
                self.pending_by[who] = left
            else:
                del self.pending_by[who]

    async def _turn(self, who: str) -> None:
        """Wait for a thread of the pool, in ``who``'s turn among the addresses waiting,
        and within its share of the threads."""
        if self._running < self.workers and self._holding.get(who, 0) < self.share:
            self._take(who)
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(who, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release(who)  # given the thread as it was cancelled: pass it on
            raise

    def _take(self, who: str) -> None:
        self._running += 1
        self._holding[who] = self._holding.get(who, 0) + 1

    def _release(self, who: str) -> None:
        """``who``'s thread is free: to the addresses waiting, in turn."""
        self._running -= 1
        held = self._holding[who] - 1
        if held:
            self._holding[who] = held
        else:
            del self._holding[who]
        self._dispatch()

    def _dispatch(self) -> None:
        """Free threads to the addresses waiting, each the first in turn within its share
        (an address served goes to the back of the line if it has more waiting)."""
        waiting = self._waiting
        for who in list(waiting):
            if self._running >= self.workers:
                return
            if self._holding.get(who, 0) >= self.share:
                continue
            turns = waiting.pop(who)
            while turns and turns[0].done():  # cancelled while waiting
                turns.popleft()
            if not turns:
                continue
            turn = turns.popleft()
            if turns:
                waiting[who] = turns  # last now: the others go first
            self._take(who)
            turn.set_result(None)

    async def hash(self, password: str, who: str = "") -> str:
        """The hash of ``password``, normalised (for the address ``who``)."""
        return await self._run(who, self.ph.hash, normalized(password))

    async def verify(self, password: str, stored: str | None, who: str = "") -> Verdict:
        """Check ``password``; ``stored`` None (no such account) checks a decoy, and fails."""
        verdict = await self._run(who, verify, self.ph, password, stored or self._decoy)
        self.checked += 1  # checked: not refused before its hash
        METRICS.passwords_checked.inc()
        return verdict if stored is not None else Verdict.WRONG

    def needs_rehash(self, stored: str) -> bool:
        return needs_rehash(self.ph, stored)

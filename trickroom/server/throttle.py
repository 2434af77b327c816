"""Throttles: a message budget (:class:`TokenBucket`), one a key in a bounded table
(:class:`Buckets`), exponential back-off after failed logins (:class:`Backoff`), counted
per account, address and guess (:class:`Logins`), and a sliding window of events a key
(:class:`Window`: registrations an hour).

A few failures are free (typos happen); after ``free`` of them, each further
failure closes the key for ``base * 2**k`` seconds (k = 0, 1, 2, ...), up to
``cap``. While a key is closed, attempts are refused without checking the
password, so a guesser gets about ``free + log2(time / base)`` checks, not
thousands. A success opens an account's key again, but not an address's: else
one good account would reset the address's count between guesses. Failures are
forgotten ``window`` seconds after the last one.

Back-off is pure (the caller passes the time); the bucket reads the monotonic clock, as
its holders sleep on it. The back-off's table of keys is bounded: past
``max_keys`` the oldest entries go (a flood of random names cannot grow it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(slots=True)
class _Entry:
    failures: int
    closed_until: float
    last: float


class Backoff:
    def __init__(self, free: int, base: float = 1.0, cap: float = 900.0,
                 window: float = 3600.0, max_keys: int = 100_000) -> None:
        self.free, self.base, self.cap, self.window = free, base, cap, window
        self.max_keys = max_keys
        self._keys: dict[str, _Entry] = {}

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        entry = self._keys.get(key)
        if entry is None:
            return 0.0
        if now - entry.last > self.window:
            del self._keys[key]
            return 0.0
        return max(0.0, entry.closed_until - now)

    def failed(self, key: str, now: float) -> None:
        entry = self._keys.pop(key, None)  # re-inserted last: the dict stays in age order
        if entry is None or now - entry.last > self.window:
            entry = _Entry(0, 0.0, now)
        entry.failures += 1
        entry.last = now
        over = entry.failures - self.free
        if over >= 0:
            entry.closed_until = now + min(self.cap, self.base * 2.0 ** over)
        self._keys[key] = entry
        while len(self._keys) > self.max_keys:
            del self._keys[next(iter(self._keys))]

    def succeeded(self, key: str) -> None:
        self._keys.pop(key, None)

    def __len__(self) -> int:
        return len(self._keys)


class TokenBucket:
    """Message credit: ``rate`` a second, up to ``burst`` saved.

    Over the rate, a message is not refused: it waits its turn. :meth:`reserve` takes a
    credit now, running into debt when there is none, and says how long its holder must
    wait. Shared by all of an address's sockets, the debt orders them: each reservation
    gets the next slot.
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def reserve(self) -> float:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - 1
        self.stamp = now
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def take(self) -> float:
        """Take a credit if there is one (0.0); else take nothing and say how long until
        there is: for what is refused over the rate rather than kept waiting."""
        now = time.monotonic()
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if tokens >= 1:
            self.tokens = tokens - 1
            return 0.0
        self.tokens = tokens
        return (1 - tokens) / self.rate

    def until_credit(self) -> float:
        """Seconds until there is a credit to take (0.0: now), taking none."""
        now = time.monotonic()
        tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def give_back(self) -> None:
        """Return the credit a :meth:`take` just took (what it was for was refused)."""
        self.tokens = min(self.burst, self.tokens + 1)


class Buckets:
    """A :class:`TokenBucket` a key (an address), refusing past it: ``rate`` a second, up to
    ``burst`` saved.

    The table of buckets is bounded, so a flood of addresses cannot grow it: a bucket
    that has filled up again is forgotten (a new one would be the same), those used least
    lately first; past ``max_keys`` the least lately used go even if not full (their
    address gets a new burst: a flood of that many addresses is held by what each costs,
    not by this table).
    """

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: dict[str, TokenBucket] = {}  # least lately used first

    def take(self, key: str) -> float:
        """Take a credit of ``key``'s (0.0); else the seconds until there is one. A rate
        of 0 or less limits nothing."""
        if self.rate <= 0:
            return 0.0
        bucket = self._buckets.pop(key, None)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst)
        wait = bucket.take()
        self._buckets[key] = bucket  # last: the most lately used
        self._forget(bucket.stamp)
        return wait

    def charge(self, key: str, credits: int) -> None:
        """Take ``credits`` more of ``key``'s, into debt if need be (what they paid for is
        done: a large answer sent); its next :meth:`take` waits the debt out."""
        bucket = self._buckets.get(key)
        if bucket is not None and credits > 0 and self.rate > 0:
            bucket.tokens = max(bucket.tokens - credits, -self.burst)

    def until_credit(self, key: str) -> float:
        """Seconds until ``key`` has a credit to take (0.0: now), taking none."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None or self.rate <= 0 else bucket.until_credit()

    def give_back(self, key: str) -> None:
        """Return the credit a :meth:`take` of ``key``'s just took."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.give_back()

    def _forget(self, now: float) -> None:
        """Drop the buckets full again (idle for as long as a burst takes to fill), and
        past ``max_keys`` the least lately used."""
        buckets = self._buckets
        refill = self.burst / self.rate
        while buckets:
            key = next(iter(buckets))
            if len(buckets) <= self.max_keys and now - buckets[key].stamp < refill:
                return
            del buckets[key]

    def __len__(self) -> int:
        return len(self._buckets)


class Logins:
    """Failed logins (one process's count), counted four ways (issue 32, items 1 and 4):

    * per **account** (or, for a login from a device the account knows, per device:
      a stranger's guesses close the account, never its owner's known devices; OWASP's
      lockout guidance);
    * per **address** (an address guessing across accounts);
    * per **guess**: a keyed hash of the password tried, so one password sprayed over
      many accounts from many addresses is checked a few times, not once an account;
    * and **everyone's** failures together: a budget of ``burst`` failures refilled at
      ``rate`` a second, past which logins from unknown devices wait a moment (a spray
      over many passwords, accounts and addresses at once).

    A device's login is counted under the device alone: not its address, its guess or
    the budget of everyone, which it is not held by either.
    """

    def __init__(self, free_per_account: int, free_per_address: int, base: float,
                 cap: float, free_per_guess: int = 5, rate: float = 1.0,
                 burst: int = 100) -> None:
        self.account = Backoff(free_per_account, base, cap)
        self.address = Backoff(free_per_address, base, cap)
        self.guess = Backoff(free_per_guess, base, cap)
        self.everyone = TokenBucket(rate, burst) if rate > 0 else None

    def wait(self, account: str | None, address: str | None, now: float,
             guess: str | None = None) -> float:
        """Seconds until the account (if any), the address (if any) and the guess (if
        any) may try again; with a guess, everyone's budget too."""
        wait = 0.0
        if address is not None:
            wait = self.address.wait(address, now)
        if account is not None:
            wait = max(wait, self.account.wait(account.lower(), now))
        if guess is not None:
            wait = max(wait, self.guess.wait(guess, now))
            if self.everyone is not None:
                wait = max(wait, self.everyone.until_credit())
        return wait

    def failed(self, account: str, address: str | None, now: float,
               guess: str | None = None) -> None:
        self.account.failed(account.lower(), now)
        if address is not None:
            self.address.failed(address, now)
        if guess is not None:
            self.guess.failed(guess, now)
            if self.everyone is not None:
                self.everyone.take()

    def succeeded(self, account: str) -> None:
        self.account.succeeded(account.lower())


class Window:
    """At most ``limit`` events a key in any ``seconds`` (a sliding window: registrations
    from one address an hour). The caller passes the time. The table of keys is bounded:
    past ``max_keys`` the least lately used go."""

    def __init__(self, limit: int, seconds: float, max_keys: int = 100_000) -> None:
        self.limit, self.seconds, self.max_keys = limit, seconds, max_keys
        self._times: dict[str, list[float]] = {}  # least lately used first

    def wait(self, key: str, now: float) -> float:
        """Seconds until ``key`` may have one more (0.0: now)."""
        times = [t for t in self._times.get(key, ()) if t > now - self.seconds]
        if len(times) < self.limit:
            return 0.0
        return times[len(times) - self.limit] + self.seconds - now

    def add(self, key: str, now: float) -> None:
        times = [t for t in self._times.pop(key, ()) if t > now - self.seconds]
        self._times[key] = [*times, now]
        while len(self._times) > self.max_keys:
            del self._times[next(iter(self._times))]

    def discard(self, key: str, when: float) -> None:
        """Take back the event added at ``when`` (what it was for did not happen)."""
        times = self._times.get(key)
        if times and when in times:
            times.remove(when)

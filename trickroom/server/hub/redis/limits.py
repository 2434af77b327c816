"""Rate limits and login throttles counted in Redis, so a second node is no way around them
(DESIGN sections 11 and 12).

One process counts everything in its own memory (the
:class:`~trickroom.server.hub.local.LocalHub`). A cluster counts the same things
in Redis:

* **Tallies** (open connections and guest names per address, open tables per
  account and per address): each node keeps its counts in a Redis hash of its
  own, which expires with the node (a dead node's counts go with it), and a
  check adds the other live nodes' counts to its own. Writes are absolute
  values sent in order by the bus; the whole hash is written again after a
  Redis restart and every ``REWRITE_SECONDS``, so a write that was lost (the
  bus's buffer overflowed) is mended.
* **An address's message budget** is one token bucket in Redis. A node takes
  credit from it in small chunks (a tenth of a second's worth) and spends them
  locally, so a message costs Redis nothing until the chunk is gone; a flood
  pays one round trip per message, and waits its turn as in one process.
* **Login back-off** per account, per address and per password guessed: the
  failures and the time a key is closed until, kept by Redis with Redis's clock
  (never a node's) and forgotten after ``window``.
* **Sliding windows** (registrations from one address an hour): a sorted set of
  the events a key, by Redis's clock.

Redis away: every check falls back to this node's own count (a pause in
sharing, never a refusal of everyone); login back-off keeps counting locally
as well, so a guesser gains nothing from the outage but the other nodes' count.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import TYPE_CHECKING, Any, TypeVar

from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from trickroom.server.hub.redis.bus import UNREACHABLE
from trickroom.server.hub.redis.keys import Keys
from trickroom.server.throttle import Backoff, Buckets, TokenBucket, Window

if TYPE_CHECKING:
    from trickroom.server.hub.redis.bus import Bus

T = TypeVar("T")

log = logging.getLogger("trickroom.cluster")

ANSWER_SECONDS = 0.5  # a check Redis does not answer by then counts this node alone
REWRITE_SECONDS = 30.0

# The other live nodes' counts of one thing (the caller adds its own). KEYS[1] the set of
# node numbers; ARGV: this node, the prefix of alive keys, of tally hashes, the field. A
# node with neither an alive key nor a hash is long gone and leaves the set (a live one
# whose keys a Redis restart lost puts itself back at its next renewal).
ELSEWHERE = """
local total = 0
for _, node in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if node ~= ARGV[1] then
    local tally = ARGV[3] .. node
    if redis.call('EXISTS', ARGV[2] .. node) == 1 then
      total = total + tonumber(redis.call('HGET', tally, ARGV[4]) or 0)
    elseif redis.call('EXISTS', tally) == 0 then
      redis.call('SREM', KEYS[1], node)
    end
  end
end
return total
"""

# A node's whole tally hash at once: KEYS[1] the hash; ARGV[1] its expiry in ms, then
# field, count pairs.
REWRITE = """
redis.call('DEL', KEYS[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
"""

# Take up to ARGV[3] tokens from a bucket filling at ARGV[1] a second up to ARGV[2]. At
# least one is always granted; past the bucket, it is owed, and the answer says how long
# its holder waits (as TokenBucket.reserve). Returns {granted, wait in seconds}.
TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or burst)
local stamp = tonumber(redis.call('HGET', KEYS[1], 'stamp') or now)
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local granted = math.max(1, math.min(want, math.floor(tokens)))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
local wait = 0
if tokens < 0 then wait = -tokens / rate end
return {granted, tostring(wait)}
"""

# A budget that refuses past it (TokenBucket.take): ARGV[1] a second, up to ARGV[2] saved.
# ARGV[3]: 'take' one credit if there is one, 'peek' (take none), 'back' (return one).
# Returns the seconds until there is a credit ('0': there was, and 'take' took it).
BUCKET = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate, burst, mode = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens') or burst)
local stamp = tonumber(redis.call('HGET', KEYS[1], 'stamp') or now)
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if mode == 'back' then
  tokens = math.min(burst, tokens + 1)
elseif tokens >= 1 then
  if mode == 'take' then tokens = tokens - 1 end
else
  wait = (1 - tokens) / rate
end
if mode ~= 'peek' then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
end
return tostring(wait)
"""

# One more failure for a key: past ARGV[1] free ones, it closes for base * 2^k ms, at most
# cap ms. ARGV: free, base_ms, cap_ms, window_ms.
FAILED = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local over = failures - tonumber(ARGV[1])
if over >= 0 then
  local wait = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ over)
  redis.call('HSET', KEYS[1], 'until', tostring(math.floor(now + wait)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return failures
"""

# Milliseconds until a key may try again.
WAIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local closed = tonumber(redis.call('HGET', KEYS[1], 'until') or 0)
return math.max(0, closed - now)
"""

# One more event for a key, if it has had fewer than ARGV[1] in the last ARGV[2] ms (a
# sliding window: registrations from one address an hour): recorded as member ARGV[3].
# Returns 0, or the ms until the oldest one that counts leaves the window (nothing kept).
WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, span = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + span - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], span)
return 0
"""


class SharedBucket:
    """One address's message budget on this node: credit taken from the address's bucket
    in Redis, spent here."""

    def __init__(self, limits: Limits, address: str, rate: float, burst: int) -> None:
        self.limits = limits
        self.key = limits.keys.rate(address)
        self.rate, self.burst = rate, burst
        self.chunk = max(1, min(burst // 4, math.ceil(rate / 10)))
        self.credit = 0
        self.alone = TokenBucket(rate, burst)  # the budget while Redis does not answer

    def reserve(self) -> float | None:
        """0 when this node still holds credit for one more message; None when it must
        ask Redis (:meth:`take`)."""
        if self.credit > 0:
            self.credit -= 1
            return 0.0
        return None

    async def more(self) -> float:
        """Credit from Redis for this message and a few after it; the wait it owes."""
        answer = await self.limits.ask(self.limits.take, [self.key],
                                       [self.rate, self.burst, self.chunk], None)
        if answer is None:
            return self.alone.reserve()
        granted, wait = answer
        self.credit += int(granted) - 1
        return float(wait)


class Limits:
    """This node's view of the cluster's counters."""

    def __init__(self, bus: Bus, keys: Keys, node: int, lease_seconds: float) -> None:
        self.bus = bus
        self.keys = keys
        self.node = node
        self.tallies = keys.tallies(node)  # this node's counts
        self.keep_ms = int(lease_seconds * 1000)  # they expire with the node
        self.rewritten = time.monotonic()
        redis = bus.redis
        self._elsewhere = redis.register_script(ELSEWHERE)
        self.take = redis.register_script(TAKE)
        self._failed = redis.register_script(FAILED)
        self._wait = redis.register_script(WAIT)
        self._window = redis.register_script(WINDOW)
        self._bucket = redis.register_script(BUCKET)
        self._alone: dict[str, Buckets] = {}  # by kind: budgets while Redis does not answer
        self._rates: dict[str, tuple[float, int]] = {}  # by kind: its rate and burst
        self._warned = 0.0
        self._shared: dict[str, int] = {}  # what this node last wrote, by field

    async def ask(self, script: AsyncScript, keys: list[str], args: list[Any],
                  alone: T) -> Any | T:
        """Run one of the scripts; ``alone`` (this node counting by itself) when Redis
        does not answer within ``ANSWER_SECONDS``."""
        try:
            return await asyncio.wait_for(script(keys=keys, args=args), ANSWER_SECONDS)
        except (*UNREACHABLE, RedisError, TimeoutError) as exc:
            now = time.monotonic()
            if now - self._warned > 10:
                self._warned = now
                log.warning("node %d: redis does not answer; limits count this node "
                            "alone: %r", self.node, exc)
            return alone

    # -- tallies ----------------------------------------------------------------------------------

    @staticmethod
    def _field(kind: str, key: str) -> str:
        return f"{kind}:{key.lower()}"

    def share(self, kind: str, key: str, count: int) -> None:
        """This node now counts ``count`` for ``key`` (sent in order, soon)."""
        field = self._field(kind, key)
        if self._shared.get(field, 0) == count:
            return
        if count > 0:
            self._shared[field] = count
            self.bus.command("hset", self.tallies, field, count)
        else:
            self._shared.pop(field, None)
            self.bus.command("hdel", self.tallies, field)

    def renewed(self) -> None:
        """The node's lease renewal: its tallies live as long as it does; now and then they
        are written whole, mending any write that was lost."""
        self.bus.command("sadd", self.keys.nodes, self.node)
        if time.monotonic() - self.rewritten > REWRITE_SECONDS:
            self.reshare()
        else:
            self.bus.command("pexpire", self.tallies, self.keep_ms)

    def reshare(self) -> None:
        """Write every count again, in one step (Redis restarted and lost them, or a write
        went missing)."""
        self.rewritten = time.monotonic()
        pairs = [x for field, count in self._shared.items() for x in (field, count)]
        self.bus.command("eval", REWRITE, 1, self.tallies, self.keep_ms, *pairs)
        self.bus.command("sadd", self.keys.nodes, self.node)

    async def elsewhere(self, kind: str, key: str) -> int:
        """What the other live nodes count for ``key`` (0 while Redis does not answer)."""
        return int(await self.ask(self._elsewhere, [self.keys.nodes],
                                  [str(self.node), self.keys.alive(""), self.keys.tallies(""),
                                   self._field(kind, key)], 0))

    # -- login back-off -----------------------------------------------------------------------

    async def backoff_wait(self, kind: str, key: str) -> float:
        """Seconds until ``key`` may try a password again, counted over the cluster."""
        return int(await self.ask(self._wait, [self.keys.backoff(kind, key)], [], 0)) / 1000

    async def backoff_failed(self, kind: str, key: str, backoff: Backoff) -> None:
        """One more failure for ``key``, closed as ``backoff`` (this node's own) closes it."""
        await self.ask(self._failed, [self.keys.backoff(kind, key)],
                       [backoff.free, int(backoff.base * 1000), int(backoff.cap * 1000),
                        int(backoff.window * 1000)], None)

    def backoff_succeeded(self, kind: str, key: str) -> None:
        self.bus.command("del", self.keys.backoff(kind, key))

    # -- budgets refusing past them ---------------------------------------------------------

    async def bucket(self, kind: str, key: str, rate: float, burst: int,
                     mode: str = "take") -> float:
        """One budget of ``kind`` for ``key`` over every node (see ``BUCKET``): 0.0, or the
        seconds until it has a credit. While Redis does not answer, this node's own."""
        if rate <= 0:
            return 0.0
        self._rates[kind] = (rate, burst)
        alone = self._alone.get(kind)
        if alone is None:
            alone = self._alone[kind] = Buckets(rate, burst)
        answer = await self.ask(self._bucket, [self.keys.key("bucket", kind, key.lower())],
                                [rate, burst, mode], None)
        if answer is not None:
            return float(answer)
        if mode == "take":
            return alone.take(key.lower())
        return alone.until_credit(key.lower())

    def give_back(self, kind: str, key: str) -> None:
        """Return a credit :meth:`bucket` took (sent in order, soon)."""
        if kind in self._rates:
            rate, burst = self._rates[kind]
            self.bus.command("eval", BUCKET, 1,
                             self.keys.key("bucket", kind, key.lower()), rate, burst, "back")

    # -- sliding windows ----------------------------------------------------------------------

    async def window_take(self, kind: str, key: str, limit: int, seconds: float,
                          mark: str, alone: Window, now: float) -> float:
        """One more event for ``key`` over every node (``alone``, this node's own window,
        counts it too, and answers while Redis does not): 0.0, or the seconds to wait."""
        wait = alone.wait(key, now)
        if wait > 0:
            return wait
        shared = int(await self.ask(self._window, [self.keys.key("window", kind, key.lower())],
                                    [limit, int(seconds * 1000), mark], 0)) / 1000
        if shared == 0:
            alone.add(key, now)
        return shared

    def window_give_back(self, kind: str, key: str, mark: str) -> None:
        self.bus.command("zrem", self.keys.key("window", kind, key.lower()), mark)

"""Redis between nodes: one connection publishing in order, one listening (DESIGN section 11).

The bus moves bytes: a frame (:mod:`~trickroom.server.hub.redis.frames`) is
published on a channel as it was encoded, and handed to the node's handler with
the channel it came on. The body of a frame is never re-encoded: a table's event
leaves the owner as the bytes its clients will read.

Both connections are raw (:mod:`~trickroom.server.hub.redis.wire`): a publish is
written at once, and a frame that arrives is handled in the socket's callback,
so the hop costs no task, lock or timeout of Python per message.

**Order.** A node publishes through a single connection, in the order it was
told; Redis delivers to each subscriber in the order it received, across
channels. So a forwarded request's reply never overtakes the events its action
caused.

**One database.** Redis's pub/sub is one space for every database of a server, but a
cluster on ``redis://host/5`` keeps its keys in database 5: on a database other than 0
the bus sends each channel as ``db5/`` and its name (and hands the node the name alone),
so clusters on two databases of one Redis never hear each other, whatever their prefix.

**Redis away.** Pub/sub delivers at most once. A write is kept until Redis has
answered it; while Redis is unreachable the publisher keeps what it must send
(up to ``buffer`` writes, then the oldest go) and sends it again in order on
its return, as lila-ws does; the listener reconnects and subscribes again to
every channel it had, and says so (``on_reconnect``): frames published
meanwhile are gone, and only the node can make up for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from trickroom.server.hub.redis.wire import Line, Refused, Reply, database, open_line, pack
from trickroom.server.urls import masked

log = logging.getLogger("trickroom.cluster")

UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
REDIS_AWAY = (RedisConnectionError, RedisTimeoutError)  # what redis-py raises then



class ClusterUnavailable(ConnectionError):
    """The cluster's Redis does not answer, or refuses this node, at start."""

    @classmethod
    def of(cls, url: str, exc: Exception) -> ClusterUnavailable:
        """What went wrong with the Redis of ``url``, in one line (its password masked)."""
        refused = isinstance(exc, (Refused, AuthenticationError, ResponseError))
        what = ("refused this node" if refused
                else "does not answer (is it running at that address?)")
        return cls(f"the cluster's Redis at {masked(url)} {what}: {masked(str(exc))}")


Handler = Callable[[str, bytes], None]
"""What a node does with a message: the channel it came on, and its bytes."""


class Bus:
    """Publish and subscribe on one Redis."""

    def __init__(self, url: str, handler: Handler, buffer: int = 100_000,
                 on_reconnect: Callable[[], None] | None = None) -> None:
        self.url = url
        self.handler = handler
        self.on_reconnect = on_reconnect  # the subscription was lost: frames may be missing
        self.redis: aioredis.Redis = aioredis.from_url(url, socket_timeout=5.0,
                                                       socket_connect_timeout=2.0)
        self.channels: set[str] = set()  # by their names; on the wire, in the database's space
        db = database(url)
        self._space = f"db{db}/" if db else ""
        self.connected = True  # as far as the publisher last knew
        self.published = 0
        self.received = 0
        self._buffer = buffer
        self._pub: Line | None = None
        self._unanswered: deque[bytes] = deque()  # written; Redis has not answered yet
        self._let_go = 0  # written, dropped from _unanswered, answers still to come
        self._outbox: deque[bytes] = deque(maxlen=buffer)  # waiting for Redis to be back
        self._corked: list[bytes] = []  # to go in one write when this turn of the loop ends
        self._sub: Line | None = None
        self._confirming: dict[bytes, list[asyncio.Future[None]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._stopping = False

    async def start(self, channels: list[str]) -> None:
        await self.redis.ping()  # fail loudly at start if Redis does not answer
        self._pub = await open_line(self.url, self._on_answer, self._publisher_lost)
        self._sub = await open_line(self.url, self._on_message, self._listener_lost)
        self._flush()
        await self.subscribe(*channels)

    async def stop(self) -> None:
        # What is still unanswered goes out first (a node stopping says its last words).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._drain(), 2.0)
        self._stopping = True
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for line in (self._pub, self._sub):
            if line is not None:
                line.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- out ---------------------------------------------------------------------------------

    def publish(self, channel: str, data: bytes) -> None:
        """Send one frame to ``channel``, in order with everything sent before it."""
        self._send(pack("PUBLISH", self._space + channel, data))

    def command(self, name: str, *args: str | bytes | int | float) -> None:
        """Send a write (``hset``, ``hdel``...) in order with the frames around it."""
        self._send(pack(name.upper(), *args))

    def _send(self, packed: bytes) -> None:
        if self._outbox or self._pub is None:
            self._outbox.append(packed)
            return
        # Corked until this turn of the loop ends: whatever else it sends goes in the same
        # write, one system call and one read of Redis's for many frames.
        if not self._corked:
            asyncio.get_running_loop().call_soon(self._uncork)
        self._corked.append(packed)

    def _uncork(self) -> None:
        batch, self._corked = self._corked, []
        if not batch:
            return
        if self._pub is not None and self._pub.write(b"".join(batch)):
            self._unanswered.extend(batch)
            while len(self._unanswered) > self._buffer:
                self._unanswered.popleft()  # Redis is far behind: the oldest are let go,
                self._let_go += 1  # and their answers, when they come, are skipped
        else:
            self._outbox.extend(batch)

    def _on_answer(self, reply: Reply) -> None:
        if self._let_go:
            self._let_go -= 1
        elif self._unanswered:
            self._unanswered.popleft()
        self.published += 1
        if isinstance(reply, hiredis.ReplyError):  # a refused command: dropped, not retried
            log.error("redis refused a command: %s", reply)

    def _publisher_lost(self, line: Line, exc: Exception | None) -> None:
        if line is not self._pub:
            return  # a line lost before it was taken into use: its reconnect tries again
        self._pub = None
        if self._stopping:
            return
        # Unanswered writes may not have landed: they go again, first, on the return.
        waiting = [*self._unanswered, *self._corked, *self._outbox]
        self._unanswered.clear()
        self._let_go = 0  # a new line answers only what it is sent
        self._corked = []
        self._outbox = deque(waiting, maxlen=self._buffer)
        if self.connected:
            log.warning("redis unreachable; buffering %d write(s): %s", len(self._outbox), exc)
        self.connected = False
        self._spawn(self._reconnect_publisher())

    async def _reconnect_publisher(self) -> None:
        backoff = 0.05
        while True:
            await asyncio.sleep(backoff)
            try:
                line = await open_line(self.url, self._on_answer, self._publisher_lost)
            except (OSError, TimeoutError, ConnectionError):
                backoff = min(backoff * 2, 1.0)
                continue
            if line.transport is not None:  # not lost again at once
                break
        self._pub = line
        log.info("redis back; sending %d buffered write(s)", self._flush())
        self.connected = True

    def _flush(self) -> int:
        """Send what waited for Redis, in order; returns how much."""
        waiting, self._outbox = self._outbox, deque(maxlen=self._buffer)
        for packed in waiting:
            self._send(packed)
        return len(waiting)

    async def _drain(self) -> None:
        while self._unanswered or self._corked or (self._outbox and self._pub is not None):
            await asyncio.sleep(0.005)

    # -- in ----------------------------------------------------------------------------------

    async def subscribe(self, *channels: str) -> None:
        """Listen to ``channels``; returns once Redis has confirmed (or at once while it is
        away: the listener subscribes again on its return)."""
        new = [c for c in channels if c not in self.channels]
        # Asked for a moment ago (another client's request) and not yet confirmed: this
        # waits for the same confirmation, so that nothing it sends is answered unheard.
        pending = [c for c in channels
                   if c not in new and (self._space + c).encode() in self._confirming]
        self.channels.update(new)
        await self._listen(new, pending)

    async def _listen(self, channels: list[str], pending: list[str] | None = None,
                      wait: float = 5.0) -> bool:
        """Subscribe to ``channels`` and wait until Redis has confirmed them (and
        ``pending``), for ``wait`` seconds at most; True if it did."""
        futures = [self._confirmation(c) for c in [*channels, *(pending or [])]]
        space = self._space
        if channels and (self._sub is None or not self._sub.write(
                pack("SUBSCRIBE", *(space + c for c in channels)))):
            return False  # away: _resubscribe sends them all on the return
        if not futures:
            return True
        await asyncio.wait(futures, timeout=wait)
        return all(f.done() and not f.cancelled() for f in futures)

    def _confirmation(self, channel: str) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._confirming.setdefault((self._space + channel).encode(), []).append(future)
        return future

    async def unsubscribe(self, *channels: str) -> None:
        gone = [c for c in channels if c in self.channels]
        if not gone:
            return
        self.channels.difference_update(gone)
        if self._sub is not None:
            self._sub.write(pack("UNSUBSCRIBE", *(self._space + c for c in gone)))

    def _on_message(self, reply: Reply) -> None:
        if not isinstance(reply, list) or len(reply) != 3:
            if isinstance(reply, hiredis.ReplyError):
                log.error("redis refused a subscription: %s", reply)
            return
        kind, channel, data = reply
        if kind != b"message":
            if kind == b"subscribe":
                for future in self._confirming.pop(channel, ()):
                    if not future.done():
                        future.set_result(None)
            return
        self.received += 1
        name = channel.decode()[len(self._space):]
        try:
            self.handler(name, data)
        except Exception:
            log.exception("a frame from %s failed", name)

    def _listener_lost(self, line: Line, exc: Exception | None) -> None:
        if line is not self._sub:
            return  # a line lost before it was taken into use: its reconnect tries again
        self._sub = None
        for futures in self._confirming.values():
            for future in futures:
                future.cancel()
        self._confirming.clear()
        if not self._stopping:
            log.warning("redis subscription lost, resubscribing: %s", exc)
            self._spawn(self._resubscribe())

    async def _resubscribe(self) -> None:
        """Subscribe again on a new connection, as soon as Redis answers; then say so."""
        while True:
            await asyncio.sleep(0.1)
            try:
                line = await open_line(self.url, self._on_message, self._listener_lost)
            except (OSError, TimeoutError, ConnectionError):
                continue
            if line.transport is not None:  # not lost again at once
                break
        self._sub = line
        if self.channels and not await self._listen(sorted(self.channels)):
            # Not confirmed: the line went again (and another try has begun), or Redis
            # is too slow to answer (the line is closed, and that begins another).
            if self._sub is line:
                line.close()
            return
        log.info("redis subscription back on %d channel(s)", len(self.channels))
        if self.on_reconnect is not None:
            self.on_reconnect()

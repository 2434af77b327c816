"""Redis between nodes: one connection publishing in order, one listening (DESIGN section 11).

Everything a node tells another goes through Redis pub/sub as one frame: an
operation name, a JSON header and a body (a client's message, or the text to
relay to clients), ``op \\n header \\n body``. The body is never re-encoded:
a table's event leaves the owner as the bytes its clients will read.

**Order.** A node publishes through a single connection, from one queue, in
the order it was told; Redis delivers to each subscriber in the order it
received, across channels. So a forwarded request's reply never overtakes the
events its action caused.

**Redis away.** Pub/sub delivers at most once. While Redis is unreachable the
publisher keeps what it must send (up to ``buffer`` frames, then the oldest
go) and flushes it in order on its return, as lila-ws does; the listener
reconnects and subscribes again to every channel it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger("trickroom.cluster")

UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
REDIS_AWAY = (RedisConnectionError, RedisTimeoutError)  # what redis-py raises then

Handler = Callable[[str, dict[str, Any], bytes], Awaitable[None] | None]


def frame(op: str, header: dict[str, Any], body: bytes | str = b"") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return b"%s\n%s\n%s" % (op.encode(), json.dumps(header, separators=(",", ":")).encode(),
                            data)


def unframe(data: bytes) -> tuple[str, dict[str, Any], bytes]:
    op, header, body = data.split(b"\n", 2)
    return op.decode(), json.loads(header), body


class _TellingPubSub(PubSub):
    """A subscription whose silent reconnects are told. redis-py reconnects a lost
    subscription by itself and subscribes again, without a word: the frames published
    meanwhile are gone, and only the node (``told``) can make up for them."""

    def __init__(self, *args: Any, told: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.told = told

    async def on_connect(self, connection: Any) -> None:
        # Called on reconnects only: the first connection comes from the pool already
        # open, and the callback is registered after it.
        await super().on_connect(connection)
        self.told()


class Bus:
    """Publish and subscribe on one Redis, every key and channel under ``prefix``."""

    def __init__(self, url: str, prefix: str, handler: Handler, buffer: int = 100_000,
                 on_reconnect: Callable[[], None] | None = None) -> None:
        self.url = url
        self.prefix = prefix
        self.handler = handler
        self.on_reconnect = on_reconnect  # the subscription was lost: frames may be missing
        self.redis: aioredis.Redis = aioredis.from_url(url, socket_timeout=5.0,
                                                       socket_connect_timeout=2.0)
        self._pub: aioredis.Redis = aioredis.from_url(url, socket_timeout=5.0,
                                                      socket_connect_timeout=2.0,
                                                      single_connection_client=True)
        self._pubsub = self._new_pubsub()
        self._outbox: deque[tuple[str, tuple[Any, ...]]] = deque(maxlen=buffer)
        self._wake = asyncio.Event()
        self.channels: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self.connected = True  # as far as the publisher last knew
        self.published = 0
        self.received = 0

    def key(self, *parts: object) -> str:
        return ":".join((self.prefix, *map(str, parts)))

    async def start(self, channels: list[str]) -> None:
        await self.redis.ping()  # fail loudly at start if Redis does not answer
        await self.subscribe(*channels)
        self._tasks = [asyncio.create_task(self._publisher(), name="bus-publisher"),
                       asyncio.create_task(self._listener(), name="bus-listener")]

    async def stop(self) -> None:
        # What is still queued goes out first (a node stopping says its last words).
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._drain(), 2.0)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for client in (self._pubsub, self._pub, self.redis):
            with contextlib.suppress(Exception):
                await client.aclose()

    # -- out ---------------------------------------------------------------------------------

    def publish(self, channel: str, data: bytes) -> None:
        """Queue one frame for ``channel``; it goes out in order, soon."""
        self._outbox.append(("publish", (channel, data)))
        self._wake.set()

    def command(self, name: str, *args: Any) -> None:
        """Queue a write (``hset``, ``hdel``...) in order with the frames around it."""
        self._outbox.append((name, args))
        self._wake.set()

    async def _drain(self) -> None:
        while self._outbox:
            await asyncio.sleep(0.005)

    async def _publisher(self) -> None:
        backoff = 0.05
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch = list(self._outbox)
                try:
                    async with self._pub.pipeline(transaction=False) as pipe:
                        for name, args in batch:
                            getattr(pipe, name)(*args)
                        await pipe.execute()
                except UNREACHABLE as exc:
                    if self.connected:
                        log.warning("redis unreachable; buffering %d frame(s): %s",
                                    len(self._outbox), exc)
                    self.connected = False
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 1.0)
                    continue
                except Exception:  # a refused command: drop it, never the publisher
                    log.exception("redis refused a batch of %d; dropped", len(batch))
                for _ in batch:  # sent: drop them (newer ones may have queued meanwhile)
                    self._outbox.popleft()
                self.published += len(batch)
                if not self.connected:
                    log.info("redis back; flushed buffered frames")
                self.connected = True
                backoff = 0.05

    # -- in ----------------------------------------------------------------------------------

    async def subscribe(self, *channels: str) -> None:
        new = [c for c in channels if c not in self.channels]
        if not new:
            return
        self.channels.update(new)
        with contextlib.suppress(*UNREACHABLE):  # the listener subscribes again on return
            await self._pubsub.subscribe(*new)

    async def unsubscribe(self, *channels: str) -> None:
        gone = [c for c in channels if c in self.channels]
        if not gone:
            return
        self.channels.difference_update(gone)
        with contextlib.suppress(*UNREACHABLE):
            await self._pubsub.unsubscribe(*gone)

    def _new_pubsub(self) -> _TellingPubSub:
        return _TellingPubSub(self.redis.connection_pool, ignore_subscribe_messages=True,
                              told=self._reconnected)

    def _reconnected(self) -> None:
        log.info("redis subscription reconnected on %d channel(s)", len(self.channels))
        if self.on_reconnect is not None:
            self.on_reconnect()

    async def _resubscribe(self) -> None:
        """Subscribe again on a new connection, as soon as Redis answers; then say so."""
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        while True:
            await asyncio.sleep(0.1)
            try:
                self._pubsub = self._new_pubsub()
                await self._pubsub.subscribe(*self.channels)
                break
            except UNREACHABLE:
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        log.info("redis subscription back on %d channel(s)", len(self.channels))
        if self.on_reconnect is not None:
            self.on_reconnect()

    async def _listener(self) -> None:
        while True:
            try:
                if not self._pubsub.subscribed and self.channels:
                    await self._pubsub.subscribe(*self.channels)
                message = await self._pubsub.get_message(timeout=1.0)
            except UNREACHABLE as exc:
                log.warning("redis subscription lost, resubscribing: %s", exc)
                await self._resubscribe()
                continue
            except RedisError:
                log.exception("redis subscription failed")
                await asyncio.sleep(0.2)
                continue
            if message is None or message.get("type") != "message":
                continue
            self.received += 1
            channel = message["channel"]
            channel = channel.decode() if isinstance(channel, bytes) else channel
            try:
                op, header, body = unframe(message["data"])
                result = self.handler(op, header | {"channel": channel}, body)
                if result is not None:
                    await result
            except Exception:
                log.exception("a frame from %s failed", channel)

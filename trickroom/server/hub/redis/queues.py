"""The ranked queues of a cluster, in Redis: one queue a room, whatever node a player is on.

A room's queue is a hash (account, lower-cased, to its entry), with a list of
the last twenty join times for the expected wait. One node matches a room at a
time, under a lock key with an expiry, so no player is seated twice; the
matching itself is the same code as in one process
(:mod:`~trickroom.server.queue`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator

from trickroom.server.hub.port import Queued
from trickroom.server.hub.redis.node import Node


class Queues:
    """The rooms' queues, over every node."""

    def __init__(self, node: Node) -> None:
        self.node = node

    async def add(self, room: str, entry: Queued) -> bool:
        keys, redis = self.node.keys, self.node.bus.redis
        if not await redis.hsetnx(keys.queue(room), entry.name.lower(),
                                  json.dumps(dataclasses.asdict(entry))):
            return False
        async with redis.pipeline(transaction=False) as pipe:
            pipe.rpush(keys.joins(room), entry.at)
            pipe.ltrim(keys.joins(room), -20, -1)
            await pipe.execute()
        return True

    async def remove(self, room: str, name: str) -> None:
        await self.node.bus.redis.hdel(self.node.keys.queue(room), name.lower())

    async def queued(self, room: str) -> tuple[list[Queued], list[float]]:
        keys, redis = self.node.keys, self.node.bus.redis
        async with redis.pipeline(transaction=False) as pipe:
            pipe.hvals(keys.queue(room))
            pipe.lrange(keys.joins(room), 0, -1)
            entries, joins = await pipe.execute()
        queued = sorted((Queued(**json.loads(v)) for v in entries), key=lambda e: e.at)
        return queued, [float(j) for j in joins]

    @contextlib.asynccontextmanager
    async def matcher(self, room: str) -> AsyncIterator[bool]:
        """The room's matching lock: held by one node at a time, for ten seconds at most."""
        key, redis = self.node.keys.matcher(room), self.node.bus.redis
        if not await redis.set(key, self.node.number, nx=True, px=10_000):
            yield False  # another node is matching this room; it will see these players
            return
        try:
            yield True
        finally:
            await redis.delete(key)

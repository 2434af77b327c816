"""This node of a cluster, as its parts share it: its number, its bus, its host.

Every part of a :class:`~trickroom.server.hub.redis.RedisHub` (leases, routing,
rooms, queues) holds the one :class:`Node`: what it needs to name keys, send
frames to other nodes, run a task of its own and reach the node's host.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from trickroom.server.hub.port import Host
from trickroom.server.hub.redis.bus import Bus
from trickroom.server.hub.redis.frames import Frame, encode
from trickroom.server.hub.redis.keys import Keys
from trickroom.server.store import Store
from trickroom.server.tables.commands import ClientId

log = logging.getLogger("trickroom.cluster")

CLIENT_BITS = 32  # a client id is its node's number, then 32 bits counted on the node


class Node:
    """What the parts of one node share."""

    def __init__(self, bus: Bus, keys: Keys, store: Store, lease_seconds: float,
                 forward_seconds: float) -> None:
        self.bus = bus
        self.keys = keys
        self.store = store
        self.lease_seconds = lease_seconds
        self.forward_seconds = forward_seconds
        self.number = 0  # given at start: no other live node has it
        self._host: Host | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def host(self) -> Host:
        assert self._host is not None, "the node is not started"
        return self._host

    @host.setter
    def host(self, host: Host) -> None:
        self._host = host

    @staticmethod
    def of_client(client_id: ClientId) -> int:
        """The node a client's connection is on."""
        return client_id >> CLIENT_BITS

    def first_client_id(self) -> int:
        return (self.number << CLIENT_BITS) + 1

    def send(self, node: int, frame: Frame, body: bytes | str = b"") -> None:
        """A frame for one node."""
        self.bus.publish(self.keys.node_channel(node), encode(frame, body))

    def publish(self, channel: str, frame: Frame, body: bytes | str = b"") -> None:
        """A frame for every node listening to ``channel``."""
        self.bus.publish(channel, encode(frame, body))

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run work of this node's that no one waits for (cancelled when it leaves)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()

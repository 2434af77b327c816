"""The names of a cluster's keys and channels in Redis, every one under its prefix.

Written in one place so that the parts of a node (leases, routing, rooms, queues,
limits) and every node of the cluster agree on them.
"""

from __future__ import annotations


class Keys:
    """Key and channel names under ``prefix``."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def key(self, *parts: object) -> str:
        return ":".join((self.prefix, *map(str, parts)))

    # -- channels ---------------------------------------------------------------------------

    def node_channel(self, node: int) -> str:
        """Frames for one node: calls, answers, deliveries."""
        return self.key("node", node)

    def table_channel(self, table_id: str) -> str:
        """A table's messages for clients of other nodes, and its moves."""
        return self.key("table", table_id)

    def table_of(self, channel: str) -> str | None:
        """The table a channel is for, or None."""
        prefix = self.key("table", "")
        return channel.removeprefix(prefix) if channel.startswith(prefix) else None

    @property
    def lobby_channel(self) -> str:
        """Every room's listing changes and chat, for every node."""
        return self.key("lobby")

    # -- keys -------------------------------------------------------------------------------

    def lease(self, table_id: str) -> str:
        return self.key("lease", table_id)

    def alive(self, node: int | str) -> str:
        return self.key("alive", node)

    @property
    def nodes(self) -> str:
        return self.key("nodes")

    def tallies(self, node: int | str) -> str:
        return self.key("tallies", node)

    def rate(self, address: str) -> str:
        return self.key("rate", address)

    def backoff(self, kind: str, key: str) -> str:
        return self.key("backoff", kind, key.lower())

    def room(self, room: str) -> str:
        return self.key("room", room)

    def queue(self, room: str) -> str:
        return self.key("queue", room)

    def joins(self, room: str) -> str:
        return self.key("joins", room)

    def matcher(self, room: str) -> str:
        return self.key("matcher", room)

    def guest(self, name: str) -> str:
        return self.key("guest", name.lower())

    def ignores(self, name: str) -> str:
        """The accounts ``name`` ignores."""
        return self.key("ignores", name)

    def ignored_by(self, name: str) -> str:
        """The accounts that ignore ``name``."""
        return self.key("ignored-by", name)

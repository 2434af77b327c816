"""The rooms of a cluster: one listing of every node's tables, room chat, ignore lists.

* **Listings.** Each room's open tables are a Redis hash (table id to its
  listing), written by the node that runs the table as it changes; a listing
  read leaves out the tables whose node no longer holds them (it died before
  closing them: a take-over lists them again). The lobby's beat of pushes goes
  to every node as one :class:`Listed` frame each, which each node pushes to
  its own subscribers of the room.
* **Chat.** A room's chat line goes to every node as a :class:`RoomChat` frame
  with the accounts that ignore its sender; each node gives it to its own
  subscribers but those.
* **Ignores** are two Redis sets an account: whom it ignores, and who ignores
  it (what a chat line asks), so a table's chat on any node honours an ignore
  set on any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from trickroom.server.hub.redis.frames import Listed, RoomChat
from trickroom.server.hub.redis.leases import Leases
from trickroom.server.hub.redis.node import Node
from trickroom.server.listing import LISTED_STATES, listed_first
from trickroom.server.protocol import TableInfo
from trickroom.server.tables.log import Shared


class Rooms:
    """Listings, room chat and ignores, over every node."""

    def __init__(self, node: Node, leases: Leases) -> None:
        self.node = node
        self.leases = leases

    # -- listings ------------------------------------------------------------------------------

    def table_changed(self, info: TableInfo, removed: bool) -> None:
        key = self.node.keys.room(info.room)
        if removed:
            self.node.bus.command("hdel", key, info.id)
        else:
            self.node.bus.command("hset", key, info.id, info.model_dump_json())

    def relist(self) -> None:
        """Write this node's tables again (a restarted Redis lost them)."""
        for info in self.node.host.listed():
            self.table_changed(info, removed=False)

    def tables_pushed(self, updates: Sequence[tuple[str, Shared]]) -> None:
        node = self.node
        for room, message in updates:
            node.publish(node.keys.lobby_channel, Listed(room, node.number), message.data)

    def on_listed(self, frame: Listed, body: bytes) -> None:
        if frame.sender != self.node.number:
            update = Shared.of_bytes(body)
            for member in self.node.host.subscribers(frame.room):
                member.send_text(update)

    async def room_tables(self, room: str, limit: int) -> tuple[list[TableInfo], int]:
        """Every node's open tables in a room (those whose node still holds them), listed
        as one node lists its own, with how many there are."""
        listed = {_text(k): v for k, v in
                  (await self.node.bus.redis.hgetall(self.node.keys.room(room))).items()}
        ids = list(listed)
        holders = await self.leases.holders(ids)
        # A table whose node died before closing it is left out (a take-over lists it again).
        states: dict[str, dict[str, TableInfo]] = {state: {} for state in LISTED_STATES}
        for table_id, holder in zip(ids, holders, strict=True):
            if holder is not None:
                info = TableInfo.model_validate_json(listed[table_id])
                states.setdefault(info.state, {})[table_id] = info
        return listed_first(states.values(), limit)

    async def room_counts(self, rooms: Iterable[str]) -> dict[str, int]:
        rooms = list(rooms)
        async with self.node.bus.redis.pipeline(transaction=False) as pipe:
            for room in rooms:
                pipe.hlen(self.node.keys.room(room))
            counts = await pipe.execute()
        return dict(zip(rooms, (int(c) for c in counts), strict=True))

    # -- chat and ignores ----------------------------------------------------------------------

    def room_chat(self, room: str, message: Shared, ignored_by: frozenset[str]) -> None:
        node = self.node
        node.publish(node.keys.lobby_channel, RoomChat(room, node.number, sorted(ignored_by)),
                     message.data)

    def on_room_chat(self, frame: RoomChat, body: bytes) -> None:
        if frame.sender != self.node.number:
            message = Shared.of_bytes(body)
            ignored_by = set(frame.ignored_by)
            for member in self.node.host.subscribers(frame.room):
                if member.name not in ignored_by:
                    member.send_text(message)

    async def ignore(self, name: str, other: str, on: bool) -> None:
        keys, redis = self.node.keys, self.node.bus.redis
        async with redis.pipeline(transaction=True) as pipe:
            if on:
                pipe.sadd(keys.ignores(name), other)
                pipe.sadd(keys.ignored_by(other), name)
            else:
                pipe.srem(keys.ignores(name), other)
                pipe.srem(keys.ignored_by(other), name)
            await pipe.execute()

    async def ignored_by(self, name: str) -> frozenset[str]:
        return frozenset(_text(m) for m in
                         await self.node.bus.redis.smembers(self.node.keys.ignored_by(name)))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

"""The rooms of a cluster: one listing of every node's tables, room chat, ignore lists.

* **Listings.** Each room's open tables are a Redis hash (table id to its
  listing), written by the node that runs the table as it changes, with the
  room's order beside it: a sorted set per listed state (waiting, playing,
  over), each table scored when it entered its state by a counter of the
  room's, so every node lists the room in one order, the order one process
  lists its own (:mod:`~trickroom.server.listing`). Both are written by one
  script (:data:`LIST`), in order with the frames around it. A read takes only
  the first page (:data:`PAGE`): the tables of a room's list and its count,
  in Redis, never every table of the room; a table whose node no longer holds
  it is left out (it died before closing it: a take-over lists it again), and
  once that node is gone too, its entry goes. A node keeps the page it read
  per room and answers from it until the room changes (its own tables, or
  another node's :class:`Listed` frame) or a third of a lease passes, so a
  listing beside thousands of tables costs the loop what its page costs.
* **Pushes.** The lobby's beat of pushes goes to every node as one
  :class:`Listed` frame each, which each node pushes to its own subscribers of
  the room.
* **Chat.** A room's chat line goes to every node as a :class:`RoomChat` frame
  with the accounts that ignore its sender; each node gives it to its own
  subscribers but those.
* **Ignores** are two Redis sets an account: whom it ignores, and who ignores
  it (what a chat line asks), so a table's chat on any node honours an ignore
  set on any other; a set holds at most the server's `ignores_per_player`.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from redis.commands.core import AsyncScript

from trickroom.server.hub.redis.bus import UNREACHABLE
from trickroom.server.hub.redis.frames import Listed, RoomChat
from trickroom.server.hub.redis.leases import Leases
from trickroom.server.hub.redis.node import Node
from trickroom.server.listing import LISTED_STATES, unlisted
from trickroom.server.protocol import TableInfo
from trickroom.server.tables.log import Shared

# A table's listing, and its place: KEYS the room's listings (id -> JSON), their nodes
# (id -> node number), the order of each listed state (waiting, playing, over: sorted sets
# of ids) and the room's counter; ARGV the table, its node, its state's place in
# LISTED_STATES from 1 (0: no longer listed) and its listing. A table keeps its place
# while its state stays (a waiting table keeps its turn as seats fill); in a new state it
# goes last.
LIST = """
local id, at = ARGV[1], tonumber(ARGV[3])
if at == 0 then
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  for i = 3, 5 do redis.call('ZREM', KEYS[i], id) end
  return 0
end
local order = KEYS[2 + at]
if not redis.call('ZSCORE', order, id) then
  for i = 3, 5 do
    if i ~= 2 + at then redis.call('ZREM', KEYS[i], id) end
  end
  redis.call('ZADD', order, redis.call('INCR', KEYS[6]), id)
end
redis.call('HSET', KEYS[1], id, ARGV[4])
redis.call('HSET', KEYS[2], id, ARGV[2])
return 1
"""

# A room's first ARGV[1] tables in its order, and how many it lists: {total, id, listing,
# id, listing...}. KEYS as LIST's, the counter replaced by the sweep's cursor; ARGV[2] and
# ARGV[3] the prefixes of lease and alive keys. A table no node holds is left out (its
# node died before closing it, or is paused past its lease: a take-over lists it again);
# once its node is gone too, it is forgotten. Each read also looks at ARGV[1] entries
# wherever the sweep is, so a dead node's tables far down the list go as well.
PAGE = """
local limit = tonumber(ARGV[1])
local function held(id)
  if redis.call('EXISTS', ARGV[2] .. id) == 1 then return 'held' end
  local node = redis.call('HGET', KEYS[2], id)
  if node and redis.call('EXISTS', ARGV[3] .. node) == 1 then return 'hidden' end
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  for i = 3, 5 do redis.call('ZREM', KEYS[i], id) end
  return 'gone'
end
local swept = redis.call('HSCAN', KEYS[2], redis.call('GET', KEYS[6]) or '0', 'COUNT',
                         math.max(limit, 10))
redis.call('SET', KEYS[6], swept[1])
for i = 1, #swept[2], 2 do held(swept[2][i]) end
local out, total, taken = {0}, 0, 0
for i = 3, 5 do total = total + redis.call('ZCARD', KEYS[i]) end
for i = 3, 5 do
  local start = 0
  while taken < limit do
    local ids = redis.call('ZRANGE', KEYS[i], start, start + limit - taken - 1)
    if #ids == 0 then break end
    for _, id in ipairs(ids) do
      local why = held(id)
      local listing = why == 'held' and redis.call('HGET', KEYS[1], id)
      if listing then
        taken = taken + 1
        out[#out + 1] = id
        out[#out + 1] = listing
      else
        total = total - 1
      end
      if why ~= 'gone' then start = start + 1 end
    end
  end
end
out[1] = total
return out
"""

# One player ignores another, within its bound: KEYS whom it ignores, who ignores the
# other; ARGV the player, the other, the bound. 0 (nothing changed) at the bound.
IGNORE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[2]) == 0
    and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class Page:
    """The first tables of a room's list as read, with the room's count."""

    tables: list[TableInfo]
    total: int
    limit: int  # the most it was read for
    read_at: float  # monotonic, when the read began
    changes: int  # the room's changes heard when the read began


class Rooms:
    """Listings, room chat and ignores, over every node."""

    def __init__(self, node: Node, leases: Leases) -> None:
        self.node = node
        self.leases = leases
        # A page answers a room's listings until the room changes, or for a third of a
        # lease at most (a dead node's tables leave the list as their leases go).
        self.fresh_seconds = node.lease_seconds / 3
        self.pages: dict[str, Page] = {}
        self.reads = 0  # pages read from Redis
        self._changes: defaultdict[str, int] = defaultdict(int)  # room -> changes heard
        self._reading: dict[str, tuple[Page, asyncio.Task[Page]]] = {}  # room -> its read
        self._decoded: dict[str, dict[bytes, TableInfo]] = {}  # room -> its last page's
        self._page_script: AsyncScript | None = None
        self._ignore_script: AsyncScript | None = None

    # -- listings ------------------------------------------------------------------------------

    def _keys(self, room: str) -> tuple[str, ...]:
        """A room's listings, their nodes, and the order of each listed state."""
        keys = self.node.keys
        return (keys.room(room), keys.key("listing", room, "nodes"),
                *(keys.key("listing", room, state) for state in LISTED_STATES))

    def table_changed(self, info: TableInfo, removed: bool) -> None:
        at = 0 if unlisted(info, removed) or info.state not in LISTED_STATES else \
            LISTED_STATES.index(info.state) + 1
        self.node.bus.command("EVAL", LIST, 6, *self._keys(info.room),
                              self.node.keys.key("listing", info.room, "counter"), info.id,
                              self.node.number, at, info.model_dump_json() if at else "")
        self._changes[info.room] += 1

    def relist(self) -> None:
        """Write this node's tables again (a restarted Redis lost them), and read every
        room's page again (other nodes' changes may have been missed meanwhile)."""
        for info in self.node.host.listed():
            self.table_changed(info, removed=False)
        for room in list(self.pages):
            self._changes[room] += 1

    def tables_pushed(self, updates: Sequence[tuple[str, Shared]]) -> None:
        node = self.node
        for room, message in updates:
            node.publish(node.keys.lobby_channel, Listed(room, node.number), message.data)

    def on_listed(self, frame: Listed, body: bytes) -> None:
        if frame.sender != self.node.number:
            self._changes[frame.room] += 1
            update = Shared.of_bytes(body)
            for member in self.node.host.subscribers(frame.room):
                member.send_text(update)

    async def room_tables(self, room: str, limit: int) -> tuple[list[TableInfo], int]:
        """Every node's open tables in a room (those whose node still holds them), listed
        as one node lists its own, with how many there are: from the page last read while
        it is fresh, else from one read of Redis shared by every listing asked meanwhile
        (while Redis does not answer, the last page read, if there is one)."""
        changes = self._changes[room]
        page = self.pages.get(room)
        if (page is None or page.changes != changes or page.limit < limit
                or time.monotonic() - page.read_at >= self.fresh_seconds):
            reading = self._reading.get(room)
            if reading is None or reading[0].changes != changes or reading[0].limit < limit:
                # Read in a task of its own: it starts once this turn of the loop has sent
                # the writes before it (the bus sends when the turn ends).
                started = Page([], 0, limit, time.monotonic(), changes)
                task = asyncio.get_running_loop().create_task(self._read(room, started))
                task.add_done_callback(functools.partial(self._read_done, room))
                reading = self._reading[room] = (started, task)
            try:
                page = await asyncio.shield(reading[1])
            except UNREACHABLE:
                if page is None or page.limit < limit:
                    raise
        return page.tables[:limit], page.total

    async def _read(self, room: str, started: Page) -> Page:
        if self._page_script is None:
            self._page_script = self.node.bus.redis.register_script(PAGE)
        keys = self.node.keys
        reply = await self._page_script(
            keys=[*self._keys(room), keys.key("listing", room, "sweep")],
            args=[started.limit, keys.lease(""), keys.alive("")])
        self.reads += 1
        known, decoded = self._decoded.get(room, {}), {}
        tables = []
        for listing in reply[2::2]:  # a listing read before is not decoded again
            info = known.get(listing)
            if info is None:
                info = TableInfo.model_validate_json(listing)
            decoded[listing] = info
            tables.append(info)
        self._decoded[room] = decoded
        page = Page(tables, int(reply[0]), started.limit, started.read_at, started.changes)
        current = self.pages.get(room)
        if current is None or current.changes <= page.changes:
            self.pages[room] = page
        return page

    def _read_done(self, room: str, task: asyncio.Task[Page]) -> None:
        reading = self._reading.get(room)
        if reading is not None and reading[1] is task:
            del self._reading[room]
        if not task.cancelled():
            task.exception()  # a read Redis did not answer: its askers were told

    async def room_listings(self, room: str, tables: Iterable[str]) -> list[TableInfo]:
        """These tables' listings, as their nodes last wrote them (one HMGET)."""
        ids = list(tables)
        if not ids:
            return []
        found = await self.node.bus.redis.hmget(self.node.keys.room(room), ids)
        return [TableInfo.model_validate_json(listing) for listing in found if listing]

    async def room_counts(self, rooms: Iterable[str]) -> dict[str, int]:
        rooms = list(rooms)
        async with self.node.bus.redis.pipeline(transaction=False) as pipe:
            for room in rooms:
                for key in self._keys(room)[2:]:
                    pipe.zcard(key)
            counts = await pipe.execute()
        each = len(LISTED_STATES)
        return {room: sum(int(c) for c in counts[i * each:(i + 1) * each])
                for i, room in enumerate(rooms)}

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

    async def ignore(self, name: str, other: str, on: bool, most: int) -> bool:
        keys, redis = self.node.keys, self.node.bus.redis
        if on:
            if self._ignore_script is None:
                self._ignore_script = redis.register_script(IGNORE)
            return bool(await self._ignore_script(
                keys=[keys.ignores(name), keys.ignored_by(other)], args=[name, other, most]))
        async with redis.pipeline(transaction=True) as pipe:
            pipe.srem(keys.ignores(name), other)
            pipe.srem(keys.ignored_by(other), name)
            await pipe.execute()
        return True

    async def ignores_dropped(self, name: str) -> None:
        keys, redis = self.node.keys, self.node.bus.redis
        ignored = await redis.smembers(keys.ignores(name))
        async with redis.pipeline(transaction=True) as pipe:
            for other in ignored:
                pipe.srem(keys.ignored_by(_text(other)), name)
            pipe.delete(keys.ignores(name))
            await pipe.execute()

    async def ignores_restored(self, name: str, others: Iterable[str]) -> None:
        """The list replaced in one transaction: no node reads it half made."""
        keys, redis = self.node.keys, self.node.bus.redis
        before = {_text(other) for other in await redis.smembers(keys.ignores(name))}
        ignored = set(others)
        async with redis.pipeline(transaction=True) as pipe:
            for other in before - ignored:
                pipe.srem(keys.ignored_by(other), name)
            pipe.delete(keys.ignores(name))
            if ignored:
                pipe.sadd(keys.ignores(name), *ignored)
            for other in ignored:
                pipe.sadd(keys.ignored_by(other), name)
            await pipe.execute()

    async def ignored_by(self, name: str) -> frozenset[str]:
        return frozenset(_text(m) for m in
                         await self.node.bus.redis.smembers(self.node.keys.ignored_by(name)))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

"""The lobby: rooms, their open tables, who is subscribed to which room, and chat ignores.

A table lives here from ``create_table`` (or the random queue, or a restart)
until it closes: its runner tells the lobby, which drops it and pushes a
``table_update`` with ``removed`` to the room's subscribers, so a server that
runs for weeks lists only the tables that are still open.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from trickroom.game.engine import ENGINES
from trickroom.game.trickgame import rules_wire
from trickroom.server.config import Config, ConfigError, Room
from trickroom.server.listing import LISTED_STATES, listed_first
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import (
    ChatMessage,
    ProtocolError,
    QueueStatus,
    RoomInfo,
    TableInfo,
    TableUpdate,
)
from trickroom.server.ranked import Ranked
from trickroom.server.store import Store, StoredGame
from trickroom.server.tables.commands import ClientId, Open, Resume, SitReserved, Who
from trickroom.server.tables.log import Shared
from trickroom.server.tables.machine import TableMachine
from trickroom.server.tables.runner import TableRunner

if TYPE_CHECKING:
    from trickroom.server.cluster.node import Cluster

log = logging.getLogger("trickroom.lobby")


class Member(Protocol):
    """A connection as the lobby knows it."""

    id: ClientId
    name: str
    guest: bool
    address: str
    tables: set[str]
    remote: bool  # a client of another node of a cluster

    def send_text(self, text: str | Shared) -> None: ...

    def send_many(self, messages: list[str | Shared]) -> None: ...

    def joined(self, table_id: str) -> None: ...


class Lobby:
    def __init__(self, config: Config, store: Store, ranked: Ranked,
                 clients: Mapping[ClientId, Member],
                 rng: Callable[[], random.Random] = secrets.SystemRandom,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.settings = config.settings
        self.rooms = config.rooms
        self.store = store
        self.ranked = ranked
        self.clients = clients
        self.rng = rng  # each table's randomness (seeds, tokens, seat draws)
        self.clock = clock
        self.wall_clock = wall_clock  # the tables' "now" (bans end by it)
        self.tables: dict[str, TableRunner] = {}
        self.subscribers: dict[str, set[Member]] = defaultdict(set)
        self.ignores: dict[str, set[str]] = defaultdict(set)
        self.queues: dict[str, list[Member]] = defaultdict(list)  # room -> queued connections
        self.queue_joins: dict[str, list[float]] = defaultdict(list)
        self.created_by: dict[str, tuple[str, str]] = {}  # open table -> (creator, address)
        self.cluster: Cluster | None = None  # a node of a cluster (server/cluster/node.py)
        # Every account a seat belongs to, with how many seats: what a guest name's "does a
        # seat wait for it" asks at each guest's logout. Kept from each table's seats after
        # its every command, so the question is one lookup, not a walk over every seat of
        # every table (which let each guest leaving cost the loop time of the whole room).
        self.seated: Counter[str] = Counter()
        self._seats_of: dict[TableRunner, tuple[str, ...]] = {}
        # Each room's open tables as last told, by state: a room's list and its count come
        # from here in the time of the tables listed, not of every table open (a list of
        # thousands of tables took the loop 30 ms, and a client may ask 50 times a second).
        self.listed: dict[str, dict[str, dict[str, TableInfo]]] = defaultdict(
            lambda: {state: {} for state in LISTED_STATES})
        self._unpushed: dict[str, tuple[TableInfo, bool]] = {}  # changed, not yet pushed
        self._push_timer: asyncio.TimerHandle | None = None

    def room(self, name: str) -> Room:
        room = self.rooms.get(name)
        if room is None:
            raise ProtocolError("not_found",
                                f"no room {name!r}; rooms: {', '.join(sorted(self.rooms))}")
        return room

    def table(self, table_id: str) -> TableRunner:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("no_such_table",
                                f"no table {table_id!r} is open (it may have closed)")
        return table

    def rooms_info(self, counts: dict[str, int] | None = None) -> list[RoomInfo]:
        """The rooms, with their open tables counted here (or as ``counts`` says: a
        cluster's count over every node)."""
        if counts is None:
            counts = {room: sum(map(len, states.values()))
                      for room, states in self.listed.items()}
        return [RoomInfo(name=r.name, game=r.game, rated=r.rated, system=r.system,
                         rules=rules_wire(r.make_rules()), tables=counts.get(r.name, 0))
                for r in self.rooms.values()]

    def tables_info(self, room: str) -> tuple[list[TableInfo], int]:
        """At most ``tables_listed`` of a room's open tables, those waiting for players
        first (in the order they opened), then those playing (in the order they began),
        then finished ones; and how many are open in all."""
        return listed_first(self.listed[room].values(), self.settings.tables_listed)

    async def new_table(self, room_name: str, rules: dict[str, Any], seating: str,
                        table_id: str | None = None,
                        creator: Member | None = None) -> TableRunner:
        room = self.room(room_name)
        table_id = table_id or secrets.token_urlsafe(6)
        try:
            if creator is not None:
                await self._may_create(room, rules, creator, table_id)
            try:
                made = room.make_rules(rules)
            except ConfigError as exc:
                raise ProtocolError("invalid_field", f"rules: {exc}") from None
            machine = TableMachine(table_id, room, self.settings, made, seating, self.rng(),
                                   creator=creator.name if creator else None)
            runner = self._runner(machine)
            if self.cluster is not None and not await self.cluster.claim(runner.id):
                raise ProtocolError("internal", "could not open the table; try again")
        except BaseException:
            self.forget_creator(table_id)
            raise
        self._add(runner)
        await runner.call(Open())
        return runner

    def _runner(self, machine: TableMachine) -> TableRunner:
        runner = TableRunner(machine, self.store, self.ranked, self.clients, self,
                             self.wall_clock)
        if self.cluster is not None:
            runner.cluster = self.cluster
        return runner

    def _add(self, runner: TableRunner) -> None:
        self.tables[runner.id] = runner
        self._list(runner.machine.info(), removed=False)
        METRICS.tables.set(len(self.tables))
        runner.start()

    async def _may_create(self, room: Room, rules: dict[str, Any], creator: Member,
                          table_id: str) -> None:
        """A ranked room plays its host's rules; one player (or address) opens few tables,
        on every node of a cluster together. The table counts from here on, before any
        wait: requests sent at once from many sockets each see those before them."""
        if room.rated and rules:
            raise ProtocolError("invalid_field", f"room {room.name!r} is ranked: it plays the "
                                "host's rules; create the table without 'rules'")
        mine, here = self._created(creator.name, creator.address)
        self._within_caps(mine, here)
        self.created_by[table_id] = (creator.name, creator.address)  # new_table undoes it
        if self.cluster is not None:
            limits = self.cluster.limits
            self._within_caps(mine + await limits.elsewhere("tables-account", creator.name),
                              here + await limits.elsewhere("tables-address", creator.address))
            self._share_created(creator.name, creator.address)

    def _within_caps(self, mine: int, here: int) -> None:
        if mine >= self.settings.tables_per_account:
            raise ProtocolError("rate_limited", f"you have {mine} open tables, the most "
                                "one player may open; play at or leave one of them first")
        if here >= self.settings.tables_per_address:
            raise ProtocolError("rate_limited", f"{here} tables are open from your "
                                "address, the most it may open; wait for one to close")

    def forget_creator(self, table_id: str) -> None:
        """A table closed, failed to open or went to another node: its creator may open
        another (on every node)."""
        creator = self.created_by.pop(table_id, None)
        if creator is not None:
            self._share_created(*creator)

    def _created(self, name: str, address: str) -> tuple[int, int]:
        """The open tables ``name`` created here, and those created from ``address``."""
        who = self.created_by.values()
        return sum(n == name for n, _ in who), sum(a == address for _, a in who)

    def _share_created(self, name: str, address: str) -> None:
        if self.cluster is not None:
            mine, here = self._created(name, address)
            self.cluster.limits.share("tables-account", name, mine)
            self.cluster.limits.share("tables-address", address, here)

    # -- what runners tell the lobby -----------------------------------------------------------

    def seats_taken(self, runner: TableRunner, accounts: tuple[str, ...]) -> None:
        """A table's seats now belong to ``accounts`` (none: it closed, or runs elsewhere)."""
        old = self._seats_of.pop(runner, ())
        if accounts:
            self._seats_of[runner] = accounts
        seated = self.seated
        for name in old:
            left = seated[name] - 1
            if left:
                seated[name] = left
            else:
                del seated[name]
        for name in accounts:
            seated[name] += 1

    def on_change(self, info: TableInfo) -> None:
        """Push a table's new state to everyone subscribed to its room."""
        self._push(info, removed=False)

    def on_close(self, runner: TableRunner, info: TableInfo,
                 audience: tuple[ClientId, ...]) -> None:
        """A closed table leaves the lobby; its record stays in the store for review."""
        for client_id in audience:  # they need not tell it of their going
            member = self.clients.get(client_id)
            if member is not None:
                member.tables.discard(runner.id)
        self.seats_taken(runner, ())
        if self.tables.get(runner.id) is runner:
            del self.tables[runner.id]
            self.forget_creator(runner.id)
            METRICS.tables.set(len(self.tables))
            METRICS.tables_closed.inc()
            if self.cluster is not None:
                self.cluster.table_closed(runner.id)
        self._push(info, removed=True)

    def _list(self, info: TableInfo, removed: bool) -> None:
        """Keep a table's latest info in its room's list, in its place while its state
        stays (a waiting table keeps its turn as seats fill), or last in its new state."""
        states = self.listed[info.room]
        tables = None if removed else states.get(info.state)
        if tables is not None and info.id in tables:
            tables[info.id] = info
            return
        for others in states.values():
            others.pop(info.id, None)
        if tables is not None:
            tables[info.id] = info

    def unlist(self, runner: TableRunner) -> None:
        """A table this node no longer runs (another node took it over)."""
        self._list(runner.machine.info(), removed=True)

    def _push(self, info: TableInfo, removed: bool) -> None:
        """A table changed: list it now; tell the room (and the cluster) at once if the
        lobby has been quiet for ``lobby_push_seconds``, else with everything else that
        changed meanwhile, each table once, as it is by then. Every push goes to every
        subscriber of the room: pushed as they came, a client flapping watch and unwatch
        made each of its messages cost the loop a write to every one of them."""
        self._list(info, removed)
        self._unpushed[info.id] = (info, removed)
        if self._push_timer is None:
            self._flush_pushes()

    def _flush_pushes(self) -> None:
        unpushed, self._unpushed = self._unpushed, {}
        if not unpushed:
            self._push_timer = None
            return
        self._push_timer = asyncio.get_running_loop().call_later(
            self.settings.lobby_push_seconds, self._flush_pushes)
        for info, removed in unpushed.values():
            if self.cluster is not None:
                self.cluster.table_listed(info, removed)
            subscribers = self.subscribers.get(info.room)
            if not subscribers:
                continue
            update = Shared(TableUpdate(table=info, removed=removed).encode())
            for client in subscribers:
                client.send_text(update)

    def unsubscribe(self, client: Member) -> None:
        for subs in self.subscribers.values():
            subs.discard(client)
        for room, queue in self.queues.items():
            if client in queue:
                queue.remove(client)
                self._queue_status(room)

    # -- the random queue ------------------------------------------------------------------------

    async def queue_join(self, client: Member, room_name: str, request_id: Any) -> None:
        """Queue for a ranked room; four eligible players are seated at random."""
        room = self.room(room_name)
        if not room.rated:
            raise ProtocolError("invalid_field", "the random queue is for ranked rooms; "
                                                 "casual tables are in the table list")
        await self.ranked.check_eligible(client.name, client.guest)
        if self.cluster is not None:  # one queue for the whole cluster, in Redis
            await self.cluster.queue_join(client, room_name, request_id)
            return
        queue = self.queues[room_name]
        if any(c.name == client.name for c in queue):
            raise ProtocolError("invalid_field", "you are already in this queue")
        queue.append(client)
        joins = self.queue_joins[room_name]
        joins.append(self.clock())
        del joins[:-20]
        if len(queue) >= 4:
            await self._match(room_name)
        self._queue_status(room_name, client, request_id)

    async def queue_leave(self, client: Member, room_name: str, request_id: Any) -> None:
        if self.cluster is not None:
            await self.cluster.queue_leave(client, room_name, request_id)
            return
        queue = self.queues[room_name]
        if client in queue:
            queue.remove(client)
        self._queue_status(room_name, client, request_id)

    async def _match(self, room_name: str) -> None:
        queue = self.queues[room_name]
        draw = secrets.SystemRandom()
        players = draw.sample(queue, 4)
        for player in players:
            queue.remove(player)
        table = await self.new_table(room_name, {}, "random_queue")
        seats = draw.sample(range(4), 4)
        for player, seat in zip(players, seats, strict=True):
            player.joined(table.id)
            await table.call(SitReserved(Who(player.id, player.name, player.guest), None, seat))

    def _queue_status(self, room_name: str, asker: Member | None = None,
                      request_id: Any = None) -> None:
        queue = self.queues[room_name]
        joins = self.queue_joins[room_name]
        expected = None
        if len(joins) >= 2 and joins[-1] > joins[0]:
            gap = (joins[-1] - joins[0]) / (len(joins) - 1)
            expected = round(gap * max(0, 4 - len(queue)), 1)
        for client in {*queue, *([asker] if asker else [])}:
            status = QueueStatus(id=request_id if client is asker else None, room=room_name,
                                 queued=client in queue, length=len(queue),
                                 expected_wait=expected)
            client.send_text(status.encode())

    def room_chat(self, client: Member, room: str, text: str) -> None:
        self.room(room)
        message = Shared(ChatMessage(name=client.name, text=text, room=room).encode())
        for other in self.subscribers.get(room, ()):
            if client.name not in self.ignores.get(other.name, set()):
                other.send_text(message)

    def ignored_by(self, name: str) -> frozenset[str]:
        """The accounts that ignore ``name`` (its chat is not shown to them)."""
        return frozenset(who for who, ignored in self.ignores.items() if name in ignored)

    async def restore(self) -> int:
        """Load unfinished games and resume their tables (DESIGN section 9)."""
        stored_games = await self.store.unfinished_games()
        for stored in stored_games:
            await self.resume(stored)
        METRICS.tables.set(len(self.tables))
        return len(stored_games)

    async def resume(self, stored: StoredGame) -> TableRunner | None:
        """Run a stored, unfinished game's table again, from its record."""
        if stored.room not in self.rooms:
            log.warning("game %s: room %s is no longer configured; left as is",
                        stored.id, stored.room)
            return None
        game = ENGINES[stored.kind].replay({"game": stored.kind, "rules": stored.rules,
                                            "seed": stored.seed, "dealer": stored.dealer,
                                            "actions": stored.actions})
        room = self.room(stored.room)
        machine = TableMachine(stored.table_id, room, self.settings, game.rules,
                               stored.seating, self.rng())
        runner = self._runner(machine)
        self._add(runner)
        await runner.call(Resume(game, stored.id, tuple(stored.seats)))
        log.info("resumed table %s game %s at action %d", runner.id, stored.id,
                 len(stored.actions))
        return runner

    async def stop(self) -> None:
        if self._push_timer is not None:
            self._push_timer.cancel()
            self._push_timer = None
        for table in list(self.tables.values()):
            await table.stop()


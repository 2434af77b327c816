"""The hub of a cluster: the nodes share leases, routes, rooms, queues and limits in Redis.

One :class:`RedisHub` a node, on the cluster's Redis (``--cluster redis://...``)
and its PostgreSQL store. It answers the :class:`~trickroom.server.hub.port.Hub`
port with its parts, each a module of this package:

* :mod:`.leases`: which node runs which table, fencing, take-overs;
* :mod:`.routing`: requests to other nodes' tables and their answers;
* :mod:`.rooms`: every node's listing, room chat and ignores;
* :mod:`.queues`: the ranked queues;
* :mod:`.limits`: counts, budgets and back-off over every node;

joined by :mod:`.bus` (Redis pub/sub in order) carrying typed :mod:`.frames`, each
kind handed to its part by one table (:attr:`RedisHub.handlers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import math
import secrets
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager

from redis.exceptions import RedisError

from trickroom.i18n import Msg
from trickroom.server.config import ServerSettings
from trickroom.server.hub.port import (
    OFFLINE,
    Batch,
    Budget,
    Host,
    Member,
    Presence,
    Queued,
    close_signed_out,
)
from trickroom.server.hub.redis import frames
from trickroom.server.hub.redis.bus import REDIS_AWAY, UNREACHABLE, Bus, ClusterUnavailable
from trickroom.server.hub.redis.keys import Keys
from trickroom.server.hub.redis.leases import Leases
from trickroom.server.hub.redis.limits import REWRITE, REWRITE_SECONDS, Limits, SharedBucket
from trickroom.server.hub.redis.node import Node, log
from trickroom.server.hub.redis.queues import Queues
from trickroom.server.hub.redis.rooms import Rooms
from trickroom.server.hub.redis.routing import Routing
from trickroom.server.hub.redis.wire import database
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import ClientMessage, ProtocolError, TableInfo
from trickroom.server.store import Fence, Store, StoreUnavailable
from trickroom.server.tables.commands import ClientId
from trickroom.server.tables.log import Shared
from trickroom.server.throttle import Logins, Window
from trickroom.server.urls import masked

BALANCE_OVER = 1.25  # a node holding more than this times the mean hands tables over
REDIS_WAIT = 5.0  # seconds a rejoin, sit or watch waits for Redis to come back
WAITS_FOR_REDIS = frozenset({"sit", "rejoin", "watch"})
BALANCE_AT_ONCE = 20  # tables one node hands over in one round of balancing


class RedisHub:
    """The :class:`~trickroom.server.hub.port.Hub` of one node of a cluster."""

    away: tuple[type[Exception], ...] = REDIS_AWAY  # Redis restarting: a pause, said plainly

    def __init__(self, url: str, prefix: str, store: Store, settings: ServerSettings) -> None:
        self.url = url
        self.keys = Keys(prefix)
        self.bus = Bus(url, self._on_message, on_reconnect=self._resync)
        self.node = Node(self.bus, self.keys, store, settings.lease_seconds,
                         settings.forward_seconds)
        self.leases = Leases(self.node, on_moved=self._moved)
        self.routing = Routing(self.node, self.leases)
        self.rooms = Rooms(self.node, self.leases)
        self.queues = Queues(self.node)
        self.balance_seconds = settings.balance_seconds
        self.logins = Logins(settings.login_free_failures,
                             settings.login_free_failures_per_address,
                             settings.login_backoff_seconds, settings.login_backoff_max_seconds,
                             settings.login_free_failures_per_guess,
                             settings.login_failures_per_second, settings.login_failure_burst)
        self.limits: Limits  # made at start, once this node has its number
        self.guess_key = secrets.token_bytes(32)  # the cluster's, read at start
        self.registrations: Window | None = None  # this node's own count, made when first used
        routing, rooms = self.routing, self.rooms
        self.handlers: frames.Handlers = {
            frames.Relay: routing.on_relay, frames.Deliver: routing.on_deliver,
            frames.Done: routing.on_done, frames.Elsewhere: routing.on_elsewhere,
            frames.Call: routing.on_call, frames.Follow: routing.on_follow,
            frames.Gone: routing.on_gone, frames.Moved: routing.on_moved,
            frames.Closed: routing.on_closed, frames.Listed: rooms.on_listed,
            frames.Take: self.leases.on_take,
            frames.RoomChat: rooms.on_room_chat,
            frames.SignedOut: self._on_signed_out,
            frames.PresenceChanged: self._on_presence,
            frames.ToAccount: self._on_to_account,
        }
        self._presence_here: dict[str, tuple[str, Presence]] = {}  # this node's, by key
        self._presence_written = 0.0  # when this node's presence hash was last written whole

    def _on_message(self, channel: str, data: bytes) -> None:
        frame, body = frames.decode(data)
        self.handlers[type(frame)](frame, body)

    def _moved(self, table_id: str, why: str) -> None:
        self.routing.close_local(table_id, why)

    def _resync(self) -> None:
        """After a lost subscription: the counts of connections, guests and tables are
        written again (a restarted Redis lost them), this node's tables listed again, and
        its sockets at other nodes' tables rejoin them (they may have missed events)."""
        self.limits.reshare()
        self.rooms.relist()
        self.routing.resync()
        self._rewrite_presence()  # a restarted Redis lost them

    # -- life -------------------------------------------------------------------------------

    async def start(self, host: Host) -> None:
        """Join: check that the store is this cluster's, take a node number no live node
        has, listen, and start the lease work. Raises ``OtherCluster`` for a store of
        another cluster, :class:`ClusterUnavailable` if Redis does not answer."""
        from trickroom.server.store.postgres import PostgresStore

        self.node.host = host
        store = self.node.store
        try:
            if isinstance(store, PostgresStore):  # the only store nodes share (open_hub)
                await store.join_cluster(self.keys.prefix, database(self.url))
            try:
                await self.bus.redis.ping()
                number = self.node.number = await self.leases.join()
                self.limits = Limits(self.bus, self.keys, number, self.node.lease_seconds)
                self.limits.renewed()
                self.guess_key = await self._guess_key()
                await self.bus.start([self.keys.node_channel(number), self.keys.lobby_channel])
            except (*UNREACHABLE, RedisError) as exc:
                raise ClusterUnavailable.of(self.url, exc) from exc
        except BaseException:
            await self.bus.stop()  # its connections, if any were made
            raise
        self.leases.start(renewed=self._renewed)
        self.node.spawn(self._balance_loop())
        METRICS.leases.set_function(lambda: len(self.leases.epochs))
        log.info("node %d joined the cluster at %s", number, masked(self.url))

    async def _guess_key(self) -> bytes:
        """The cluster's key for hashing guesses: the first node to start makes it (a
        Redis that lost it gets a new one from the next node to start)."""
        key = self.keys.key("guess-key")
        await self.bus.redis.set(key, secrets.token_hex(32), nx=True)
        found = await self.bus.redis.get(key)
        return bytes.fromhex(found.decode() if isinstance(found, bytes) else str(found))

    def first_client_id(self) -> int:
        return self.node.first_client_id()

    def node_name(self) -> str:
        return str(self.node.number)

    def description(self) -> str:
        return f"cluster node {self.node.number} via {masked(self.url)}"

    async def resume_tables(self) -> int:
        """Tables without an owner are taken by the scans, the first a renewal from now
        (their owner may be setting its lease again after a Redis restart)."""
        await self.leases.scan()
        return 0

    async def stop(self) -> None:
        """Leave: the leases go at once, then the node's keys. (A node whose start failed
        before it had a number has nothing to let go but its connections.)"""
        if self.node.number:
            await self.leases.stop()
            self.node.cancel_tasks()
            with contextlib.suppress(*UNREACHABLE):
                await self.bus.redis.delete(self.keys.alive(self.node.number),
                                            self.keys.tallies(self.node.number))
                await self.bus.redis.srem(self.keys.nodes, self.node.number)
        await self.bus.stop()

    async def hand_over(self, tables: Sequence[str]) -> int:
        self.leases.draining = True  # no node picks this one from now on
        return await self._give(tables)

    async def balance(self) -> int:
        """Hand tables in play to the live nodes holding the fewest while this node holds
        more than its share (the mean over live nodes, and a quarter more, and two tables
        more; or two more while another node holds under half the mean): a node that
        joins, or comes back from a restart, fills up without any being killed. Only
        nodes over their share give, and only to nodes under it, so two nodes never hand
        tables back and forth. How many went."""
        if self.leases.draining:
            return 0
        loads = await self.leases.loads()
        if len(loads) < 2:
            return 0
        mean = sum(loads.values()) / len(loads)
        mine = loads[self.node.number]
        # Over its share; or two over the mean while a node holds under half of it (a
        # small cluster's new node: 4 tables and 0, or 6, 6 and 0, are within "a quarter
        # and two more" of the mean, and the new node would wait for new tables).
        starved = mine >= mean + 2 and min(loads.values()) < mean / 2
        if mine <= max(BALANCE_OVER * mean, mean + 2) and not starved:
            return 0
        playing = [info.id for info in self.node.host.listed()
                   if info.state == "playing" and info.id in self.leases.epochs]
        excess = min(mine - math.ceil(mean), BALANCE_AT_ONCE)
        given = await self._give(playing[:excess], loads)
        if given:
            log.info("node %d handed %d table(s) to other nodes: it held %d of a mean %.1f",
                     self.node.number, given, mine, mean)
        return given

    async def _balance_loop(self) -> None:
        while True:
            await asyncio.sleep(self.balance_seconds)
            try:
                await self.balance()
            except (*UNREACHABLE, RedisError, OSError, StoreUnavailable) as exc:
                log.warning("node %d: balancing failed: %s", self.node.number, exc)

    async def _give(self, tables: Sequence[str], loads: dict[int, int] | None = None) -> int:
        """Each table to the live node holding the fewest, counting those given so far;
        eight at a time (each waits for its move in hand to be stored)."""
        loads = {n: c for n, c in (loads or await self.leases.loads()).items()
                 if n != self.node.number}
        if not loads:
            return 0
        plan = []
        for table_id in tables:
            to = min(loads, key=lambda n: (loads[n], n))
            loads[to] += 1
            plan.append((table_id, to))
        room = asyncio.Semaphore(8)

        async def give(table_id: str, to: int) -> bool:
            async with room:
                return await self.leases.hand_over(table_id, to)

        given = await asyncio.gather(*(give(t, to) for t, to in plan), return_exceptions=True)
        for failed in (g for g in given if isinstance(g, BaseException)):
            log.warning("node %d: a table could not be handed over: %r (a scan takes it)",
                        self.node.number, failed)
        return sum(g is True for g in given)

    async def unready(self) -> str | None:
        try:
            await self.bus.redis.ping()
        except (*UNREACHABLE, RedisError) as exc:
            return f"Redis does not answer ({type(exc).__name__})"
        if not self.leases.proved:
            return "this node cannot prove its tables' leases its own yet"
        return None

    # -- tables -----------------------------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        return await self.leases.claim(table_id)

    async def fence(self, table_id: str) -> Fence | None:
        return await self.leases.fence(table_id)

    def lost(self, table_id: str, why: str) -> None:
        self.leases.lost(table_id, why)

    def table_closed(self, table_id: str) -> None:
        if self.leases.closed(table_id):
            self.node.publish(self.keys.table_channel(table_id), frames.Closed(table_id))

    def relay(self, table_id: str, batch: Batch) -> None:
        self.routing.relay(table_id, batch)

    async def route(self, client: Member, message: ClientMessage, table_id: str) -> bool:
        """A table of this node runs here once its lease is proved (a node that was paused
        answers nothing for a table it lost: the proof lets go of it first); another
        node's is forwarded there, or its player told where to go (``moved``)."""
        if self.node.host.has_table(table_id):
            if not self.leases.proved and not await self.leases.prove():
                raise ProtocolError("unavailable", Msg("this server cannot prove it still runs "
                                                       "table {table_id!r} (it reaches neither "
                                                       "Redis nor the database): send it again "
                                                       "in a moment", table_id=table_id),
                                retry_after=1.0)
            # Lost during the proof: its fence is gone at once, its runner a moment later.
            if self.node.host.has_table(table_id) and table_id in self.leases.epochs:
                return False
        if message.type not in WAITS_FOR_REDIS:
            return await self.routing.forward(client, message, table_id)
        # A player coming (back) to a table waits out a Redis restart, rather than be
        # refused: what it asks changes nothing twice.
        deadline = time.monotonic() + REDIS_WAIT
        while True:
            try:
                return await self.routing.forward(client, message, table_id)
            except self.away:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    def watching(self, table_id: str) -> bool:
        return self.routing.watching(table_id)

    async def disconnected(self, client: Member, tables: Sequence[str]) -> None:
        if tables:
            await self.routing.disconnected(client.id, tables)

    # -- rooms ------------------------------------------------------------------------------

    def table_changed(self, info: TableInfo, removed: bool) -> None:
        self.rooms.table_changed(info, removed)

    def tables_pushed(self, updates: Sequence[tuple[str, Shared]]) -> None:
        self.rooms.tables_pushed(updates)

    async def room_tables(self, room: str, limit: int) -> tuple[list[TableInfo], int]:
        return await self.rooms.room_tables(room, limit)

    async def room_listings(self, room: str, tables: Iterable[str]) -> list[TableInfo]:
        return await self.rooms.room_listings(room, tables)

    async def room_counts(self, rooms: Iterable[str]) -> dict[str, int]:
        return await self.rooms.room_counts(rooms)

    def room_chat(self, room: str, message: Shared, ignored_by: frozenset[str]) -> None:
        self.rooms.room_chat(room, message, ignored_by)

    async def ignore(self, name: str, other: str, on: bool, most: int) -> bool:
        return await self.rooms.ignore(name, other, on, most)

    async def ignores_dropped(self, name: str) -> None:
        await self.rooms.ignores_dropped(name)

    async def ignores_restored(self, name: str, others: Iterable[str]) -> None:
        await self.rooms.ignores_restored(name, others)

    async def ignored_by(self, name: str) -> frozenset[str]:
        return await self.rooms.ignored_by(name)

    # -- the ranked queues ------------------------------------------------------------------

    async def queue_add(self, room: str, entry: Queued) -> bool:
        return await self.queues.add(room, entry)

    async def queue_remove(self, room: str, name: str) -> None:
        await self.queues.remove(room, name)

    async def queued(self, room: str) -> tuple[list[Queued], list[float]]:
        return await self.queues.queued(room)

    def matcher(self, room: str) -> AbstractAsyncContextManager[bool]:
        return self.queues.matcher(room)

    async def follow(self, entry: Queued, table_id: str) -> Member:
        """A queued player's node relays the table to it before it is seated."""
        at = Node.of_client(entry.client)
        if at != self.node.number:
            await self.routing.follow(at, entry.client, table_id)
        client = self.node.host.clients.get(entry.client)
        if client is None:
            client = self.routing.stand_in(entry.client, entry.name, entry.guest,
                                           entry.address, at)
        return client

    def tell(self, entry: Queued, text: str) -> None:
        at = Node.of_client(entry.client)
        if at != self.node.number:
            self.node.send(at, frames.Deliver(entry.client), text)
        elif (client := self.node.host.clients.get(entry.client)) is not None:
            client.send_text(text)

    # -- names and limits -------------------------------------------------------------------

    async def hold_guest(self, name: str, seconds: float, renew: bool = False) -> bool:
        """Hold a guest name for the whole cluster, for as long as its session may resume:
        two nodes never hand one name to two guests (the second would end the first's
        session). ``renew``: its guest came back; the hold starts again."""
        key, ms = self.keys.guest(name), int(seconds * 1000)
        if renew:
            await self.bus.redis.set(key, self.node.number, px=ms)
            return True
        return bool(await self.bus.redis.set(key, self.node.number, nx=True, px=ms))

    def share_count(self, kind: str, key: str, count: int) -> None:
        self.limits.share(kind, key, count)

    async def count_elsewhere(self, kind: str, key: str) -> int:
        return await self.limits.elsewhere(kind, key)

    def budget(self, address: str, rate: float, burst: int) -> Budget:
        return SharedBucket(self.limits, address, rate, burst)

    async def take(self, kind: str, key: str, rate: float, burst: int) -> float:
        return await self.limits.bucket(kind, key, rate, burst)

    def give_back(self, kind: str, key: str) -> None:
        self.limits.give_back(kind, key)

    async def registration(self, address: str, limit: int, seconds: float) -> tuple[float, str]:
        if self.registrations is None:
            self.registrations = Window(limit, seconds)
        now = time.monotonic()
        mark = f"{now!r}/{secrets.token_hex(4)}"  # this node's time (its own count's key)
        wait = await self.limits.window_take("registrations", address, limit, seconds, mark,
                                             self.registrations, now)
        return (0.0, mark) if wait == 0 else (wait, "")

    def registration_failed(self, address: str, mark: str) -> None:
        if mark:
            if self.registrations is not None:
                self.registrations.discard(address, float(mark.split("/")[0]))
            self.limits.window_give_back("registrations", address, mark)

    def signed_out(self, name: str, ended: str | None, keep: str, client: ClientId) -> None:
        """Every node closes its sockets of the ended sessions (this one too, as the frame
        comes back to it)."""
        self.node.publish(self.keys.lobby_channel, frames.SignedOut(name, ended, keep, client))

    def _on_signed_out(self, frame: frames.SignedOut, body: bytes) -> None:
        close_signed_out(self.node.host.clients.values(), frame.name, frame.ended, frame.keep,
                         frame.client)

    # -- presence ---------------------------------------------------------------------------
    # Each node keeps its players' presence in a hash of its own (name -> JSON), which lives
    # as long as the node renews its leases (as its limit tallies do): a node that dies
    # takes its players' presence with it, and one that renews late writes it all again.

    def _presence_key(self, number: int) -> str:
        return self.keys.key("presence", number)

    def _renewed(self) -> None:
        self.limits.renewed()
        key = self._presence_key(self.node.number)
        if time.monotonic() - self._presence_written > REWRITE_SECONDS:
            self._rewrite_presence()
        else:
            self.bus.command("pexpire", key, self.limits.keep_ms)

    def _rewrite_presence(self) -> None:
        """Write this node's whole hash again, in one step (Redis lost it, or a renewal came
        too late to keep it)."""
        self._presence_written = time.monotonic()
        key = self._presence_key(self.node.number)
        pairs = [x for name, here in self._presence_here.values()
                 for x in (name.lower(), json.dumps(dataclasses.asdict(here)))]
        self.bus.command("eval", REWRITE, 1, key, self.limits.keep_ms, *pairs)

    def presence_changed(self, name: str, here: Presence | None) -> None:
        key = self._presence_key(self.node.number)
        if here is None:
            self._presence_here.pop(name.lower(), None)
            self.bus.command("hdel", key, name.lower())
        else:
            self._presence_here[name.lower()] = (name, here)
            self.bus.command("hset", key, name.lower(), json.dumps(dataclasses.asdict(here)))
            self.bus.command("pexpire", key, self.limits.keep_ms)
        self.node.publish(self.keys.lobby_channel, frames.PresenceChanged(name))

    async def presence(self, names: Sequence[str]) -> dict[str, Presence]:
        if not names:
            return {}
        redis = self.bus.redis
        nodes = sorted({int(n) for n in await redis.smembers(self.keys.nodes)}
                       | {self.node.number})
        fields = [name.lower() for name in names]
        async with redis.pipeline(transaction=False) as pipe:
            for number in nodes:
                pipe.hmget(self._presence_key(number), fields)
            found: list[list[bytes | None]] = await pipe.execute()
        out: dict[str, Presence] = {}
        for i, name in enumerate(names):
            seen = [Presence(**json.loads(value)) for row in found
                    if (value := row[i]) is not None]
            out[name] = functools.reduce(Presence.merged, seen) if seen else OFFLINE
        return out

    def _on_presence(self, frame: frames.PresenceChanged, body: bytes) -> None:
        self.node.host.presence_pushed(frame.name)

    def to_account(self, name: str, message: Shared) -> None:
        self.node.publish(self.keys.lobby_channel,
                          frames.ToAccount(name, message.localize is not None), message.kept)

    def _on_to_account(self, frame: frames.ToAccount, body: bytes) -> None:
        self.node.host.to_account(frame.name, Shared.of_kept(body) if frame.kept
                                  else Shared.of_bytes(body))

    # -- challenges ---------------------------------------------------------------------------

    def _challenge_key(self, challenge_id: str) -> str:
        return self.keys.key("challenge", challenge_id)

    async def challenge_put(self, challenge_id: str, record: str, seconds: float) -> None:
        key = self._challenge_key(challenge_id)
        async with self.bus.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, "record", record)
            pipe.pexpire(key, max(1, int(seconds * 1000)))
            await pipe.execute()

    async def challenge_answer(self, challenge_id: str, name: str,
                               answer: str) -> tuple[str, dict[str, str]] | None:
        key = self._challenge_key(challenge_id)
        async with self.bus.redis.pipeline(transaction=True) as pipe:
            pipe.exists(key)
            pipe.hsetnx(key, f"answer:{name.lower()}", answer)
            pipe.hgetall(key)
            alive, _, fields = await pipe.execute()
        if not alive:
            await self.bus.redis.delete(key)  # the answer just made it again: gone
            return None
        found = {k.decode(): v.decode() for k, v in fields.items()}
        if "record" not in found:
            return None
        answers = {k.split(":", 1)[1]: v for k, v in found.items() if k.startswith("answer:")}
        return found["record"], answers

    async def challenge_claim(self, challenge_id: str) -> bool:
        return bool(await self.bus.redis.delete(self._challenge_key(challenge_id)))

    async def login_wait(self, account: str | None, address: str | None,
                         guess: str | None = None) -> float:
        """By every node's count of the account and the address (a second node is no way
        around it), and this node's own (which still counts while Redis does not answer;
        everyone's failure budget is each node's own)."""
        waits = [self.logins.wait(account, address, time.monotonic(), guess)]
        if address is not None:
            waits.append(await self.limits.backoff_wait("address", address))
        if account is not None:
            waits.append(await self.limits.backoff_wait("account", account))
        if guess is not None:
            waits.append(await self.limits.backoff_wait("guess", guess))
            everyone = self.logins.everyone
            if everyone is not None:
                waits.append(await self.limits.bucket("everyone", "failed-logins",
                                                      everyone.rate, int(everyone.burst),
                                                      "peek"))
        return max(waits)

    async def login_failed(self, account: str, address: str | None,
                           guess: str | None = None) -> None:
        self.logins.failed(account, address, time.monotonic(), guess)
        await self.limits.backoff_failed("account", account, self.logins.account)
        if address is not None:
            await self.limits.backoff_failed("address", address, self.logins.address)
        if guess is not None:
            await self.limits.backoff_failed("guess", guess, self.logins.guess)
            everyone = self.logins.everyone
            if everyone is not None:
                await self.limits.bucket("everyone", "failed-logins", everyone.rate,
                                         int(everyone.burst))

    async def login_succeeded(self, account: str) -> None:
        self.logins.succeeded(account)
        self.limits.backoff_succeeded("account", account)

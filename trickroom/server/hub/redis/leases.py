"""Who runs which table: leases in Redis, epochs in the store (DESIGN section 11).

* **Ownership.** A table runs on the node holding its lease, a Redis key set if
  absent with an expiry (``lease_seconds``) and renewed at a third of it.
  Taking a table bumps its epoch in the store (:meth:`Store.take_table`); every
  write the table makes carries that epoch as its fencing token, so an old
  owner that wakes up after losing the lease cannot write.
* **Self-fencing.** A node that has not renewed its leases for most of a lease
  (paused, cut off) serves nothing for its tables, reads included, and creates no
  table, until it has proved them again (:meth:`Leases.prove`): one renewal of all
  of them at once, shared by every request waiting, which lets go at once of the
  tables another node took meanwhile. Redis not answering, the store proves them:
  no table's epoch moved, so no other node took one (a node cut off from Redis alone
  then serves its tables for at most most of a lease after another took one; any
  write of its is refused by the store's fence).
* **Take-over.** Every node scans the store's unfinished games six times a lease;
  a table whose lease is gone (its node died, or stopped, a whole lease ago) is
  taken by the first node to set the lease, and resumed from the store as after a
  restart. Clients of other nodes still watching the old owner are told to
  reconnect.
* **Redis restarting** loses the leases: each node sets its own again within a
  renewal, before any scan could count them missing twice. Meanwhile the store
  proves them, so no table pauses.
* **Where a node is**: each node that has a ``node_url`` keeps it beside its alive
  key, for the others to send players to (:meth:`Leases.url_of`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import secrets
import time
from collections.abc import Callable

from trickroom.server.hub.redis.bus import UNREACHABLE
from trickroom.server.hub.redis.frames import Moved, Take
from trickroom.server.hub.redis.node import Node, log
from trickroom.server.loops import cancelled
from trickroom.server.metrics import METRICS
from trickroom.server.store import Fence, StaleOwner, StoreUnavailable

# Renew a lease only while this node holds it: 1 renewed, 0 gone (take it again), -1 lost.
RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then return 0 end
return -1
"""

# Let a lease go only if it is ours.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

MOVED = "the table moved to another server: reconnect and rejoin"
SCANS_A_LEASE = 6  # a dead node's tables are taken within a sixth of a lease of its expiry
PROVE_SECONDS = 1.0  # Redis not answering a renewal by then: the store proves the leases
# (a second: a node just woken from a pause has a backlog to read before Redis's answer)


class Leases:
    """This node's tables and what it knows of other nodes' tables."""

    def __init__(self, node: Node, on_moved: Callable[[str, str], None]) -> None:
        self.node = node
        self._urls: dict[int, tuple[str | None, float]] = {}  # other nodes', as last read
        self._proving: asyncio.Future[bool] | None = None
        self._renew_script = node.bus.redis.register_script(RENEW)
        self.on_moved = on_moved  # close this node's sockets at a table that moved
        self.epochs: dict[str, int] = {}  # the tables this node owns, with their epochs
        self.taking: set[str] = set()  # tables being taken over this moment
        self.renewed_at = time.monotonic()  # the last time every lease was renewed
        self.takeovers = 0
        self.handed = 0  # tables handed to other nodes
        self.draining = False  # handing every table over: no node is to pick this one
        self._owners: dict[str, int] = {}  # other nodes' tables, by owner as last read
        self._unfinished: list[str] = []  # the store's games in play, as last read
        self._unfinished_at = -math.inf
        self._run_id = ""  # Redis's, at the last scan: a new one, Redis restarted
        self._restarted_at = -math.inf
        self._tasks: list[asyncio.Task[None]] = []
        self._watches: dict[tuple[str, int], asyncio.Future[int | None]] = {}  # live_owner's
        # Set at stop: a loop ends at its next turn even if its cancellation was lost (a
        # redis-py call cancelled mid-command may swallow it and return as if nothing
        # happened; the loop would then run on, and stop wait for it for ever).
        self._stopping = False

    @property
    def _ms(self) -> int:
        return int(self.node.lease_seconds * 1000)

    # -- life ----------------------------------------------------------------------------------

    async def join(self) -> int:
        """A node number no live node has."""
        redis = self.node.bus.redis
        while True:
            number = secrets.randbelow(2**20) + 1
            if await redis.set(self.node.keys.alive(number), os.getpid(), nx=True,
                               px=self._ms):
                return number

    def start(self, renewed: Callable[[], None]) -> None:
        """Renew the leases (then call ``renewed``) and scan for tables to take over."""
        self._tasks = [asyncio.create_task(self._renew_loop(renewed), name="cluster-renew"),
                       asyncio.create_task(self._scan_loop(), name="cluster-scan")]

    async def stop(self) -> None:
        """Let every lease go at once, so other nodes take the tables without waiting for
        them to expire (the tables were stopped and flushed before)."""
        self._stopping = True
        for task in self._tasks:
            await cancelled(task)
        with contextlib.suppress(*UNREACHABLE):
            release = self.node.bus.redis.register_script(RELEASE)
            for table_id in list(self.epochs):
                await release(keys=[self.node.keys.lease(table_id)], args=[self.node.number])
            await self.node.bus.redis.delete(self._url_key(self.node.number))
            await self.node.bus.redis.hdel(self._load_key, str(self.node.number))
        self.epochs.clear()

    # -- this node's tables --------------------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        """Take the lease of a table no one holds; then its newer epoch from the store. A
        node that cannot prove its leases (it was paused) opens no table until it has."""
        if not await self.prove():
            raise StoreUnavailable("this server cannot prove it still belongs to the "
                                   "cluster: it opens no table for now")
        node = self.node
        if not await node.bus.redis.set(node.keys.lease(table_id), str(node.number), nx=True,
                                        px=self._ms):
            return False
        self._owners.pop(table_id, None)
        self.epochs[table_id] = await node.store.take_table(table_id)
        return True

    async def fence(self, table_id: str) -> Fence:
        """The table's fencing token, once this node has proved its leases its own (a node
        that has not renewed them for most of a lease may have lost them); the store's
        fence catches anything that slips through."""
        if not self.proved and not await self.prove():
            raise StoreUnavailable("this server can reach neither Redis nor the database to "
                                   "prove it still runs the table; nothing was stored")
        epoch = self.epochs.get(table_id)
        if epoch is None:  # lost meanwhile: a write without its fence might land
            raise StaleOwner(f"table {table_id!r} is no longer run by this server")
        return Fence(table_id, epoch)

    def lost(self, table_id: str, why: str) -> None:
        """Stop running a table another node now owns (or will): self-fencing. Its fence
        goes at once (no write of its lands, and requests for it are routed away); the
        table stops in the background: its runner may be inside a command that waits
        for this very proof (its write's fence), and stops once that command is refused."""
        if self.epochs.pop(table_id, None) is None:
            return
        log.warning("node %d lost table %s: %s", self.node.number, table_id, why)
        METRICS.tables_lost.inc()
        self.node.spawn(self._let_go(table_id))

    async def _let_go(self, table_id: str) -> None:
        await self.node.host.let_go(table_id)
        self.on_moved(table_id, MOVED)

    def closed(self, table_id: str) -> bool:
        """A table of this node closed: its lease goes. False if it was not this node's."""
        if self.epochs.pop(table_id, None) is None:
            return False
        self.node.spawn(self._release(table_id))
        return True

    async def _release(self, table_id: str) -> None:
        with contextlib.suppress(*UNREACHABLE):
            release = self.node.bus.redis.register_script(RELEASE)
            await release(keys=[self.node.keys.lease(table_id)], args=[self.node.number])

    @property
    def proved(self) -> bool:
        """Whether this node's leases are surely its own this moment: renewed (or proved by
        the store) within most of a lease, before any other node could take one."""
        return time.monotonic() - self.renewed_at < self.node.lease_seconds * 0.75

    async def prove(self) -> bool:
        """Prove this node's leases its own, now: renewed in Redis (letting go of any that
        another node holds), or, Redis not answering, by the store's epochs. One proof at
        a time, shared by everyone waiting for it. False: neither answers."""
        if self.proved:
            return True
        if self._proving is None or self._proving.done():
            self._proving = asyncio.ensure_future(self._prove())
        return await asyncio.shield(self._proving)

    async def _prove(self) -> bool:
        started = time.monotonic()
        try:
            async with asyncio.timeout(PROVE_SECONDS):
                await self._renew()
            return True
        except (*UNREACHABLE, TimeoutError) as exc:
            log.warning("node %d: cannot renew leases: %r; proving them by the store",
                        self.node.number, exc)
        try:
            epochs = await self.node.store.epochs(list(self.epochs))
        except Exception as exc:
            log.warning("node %d: cannot prove leases by the store either: %s",
                        self.node.number, exc)
            return False
        for table_id, epoch in list(self.epochs.items()):
            if epochs.get(table_id, epoch) != epoch:
                self.lost(table_id, "another node took it over")
        self.renewed_at = max(self.renewed_at, started)
        return True

    async def _renew(self) -> None:
        """Renew every lease of this node (and its alive key) in one round trip."""
        node = self.node
        redis = node.bus.redis
        started = time.monotonic()
        await redis.set(node.keys.alive(node.number), os.getpid(), px=self._ms)
        if self.draining:
            await redis.hdel(self._load_key, str(node.number))
        else:
            await redis.hset(self._load_key, str(node.number), str(len(self.epochs)))
        if (url := node.host.url()) is not None:
            await redis.set(self._url_key(node.number), url, px=self._ms)
        tables = list(self.epochs)
        async with redis.pipeline(transaction=False) as pipe:
            for table_id in tables:
                await self._renew_script(keys=[node.keys.lease(table_id)],
                                         args=[node.number, str(self._ms)], client=pipe)
            results = await pipe.execute() if tables else []
        for table_id, result in zip(tables, results, strict=True):
            if result == 0:  # Redis lost it (a restart): ours again, same epoch
                if not await redis.set(node.keys.lease(table_id), str(node.number),
                                       nx=True, px=self._ms):
                    self.lost(table_id, "its lease went to another node")
            elif result == -1:
                self.lost(table_id, "its lease went to another node")
        self.renewed_at = max(self.renewed_at, started)
        METRICS.renew_seconds.observe(time.monotonic() - started)

    async def _renew_loop(self, renewed: Callable[[], None]) -> None:
        node = self.node
        while not self._stopping:
            await asyncio.sleep(node.lease_seconds / 3)
            try:
                if self._proving is None or self._proving.done():
                    self._proving = asyncio.ensure_future(self._prove())
                if await asyncio.shield(self._proving):
                    renewed()
            except Exception:
                log.exception("node %d: lease renewal failed", node.number)

    # -- handing tables over -----------------------------------------------------------------

    @property
    def _load_key(self) -> str:
        return self.node.keys.key("load")

    async def loads(self) -> dict[int, int]:
        """How many tables each live node holds, as each said at its last renewal (this
        node's as it is now)."""
        redis = self.node.bus.redis
        said = {int(n): int(c) for n, c in (await redis.hgetall(self._load_key)).items()}
        numbers = sorted(said)
        alive = await redis.mget([self.node.keys.alive(n) for n in numbers]) if numbers else []
        live = {n: said[n] for n, up in zip(numbers, alive, strict=True) if up is not None}
        if not self.draining:
            live[self.node.number] = len(self.epochs)
        return live

    async def hand_over(self, table_id: str, to: int) -> bool:
        """Give a table of this node to node ``to`` between two moves: the table stops once
        the move in hand is stored (nothing of it is lost: a move is acknowledged only
        once stored), its lease goes at once, and ``to`` takes it over from the store as
        after a failover, without waiting out a lease. Its players here are told to
        rejoin: wherever they reconnect, they are sent to ``to`` (``moved``). If ``to``
        does not take it, any node's scan does within a lease."""
        node = self.node
        epoch = self.epochs.pop(table_id, None)
        if epoch is None:
            return False
        if not await node.host.hand_off(table_id):
            # Its game ended as it stopped: it stays here, between games (a drain hands
            # it over once the next game starts), rather than vanish with its players.
            self.epochs[table_id] = epoch
            return False
        await self._release(table_id)
        node.publish(node.keys.node_channel(to), Take(table_id, node.number))
        self.on_moved(table_id, MOVED)
        self.handed += 1
        METRICS.handed_over.inc()
        return True

    def on_take(self, frame: Take, body: bytes) -> None:
        """Another node handed this node a table: take it over now."""
        self.node.spawn(self._take(frame.table))

    async def _take(self, table_id: str) -> None:
        try:
            await self.take_over(table_id)
        except (*UNREACHABLE, OSError, StoreUnavailable) as exc:
            log.warning("node %d: could not take table %s handed over: %s (a scan will)",
                        self.node.number, table_id, exc)

    # -- where nodes are -----------------------------------------------------------------------

    def _url_key(self, number: int) -> str:
        return self.node.keys.key("url", number)

    async def url_of(self, number: int) -> str | None:
        """Where players reach node ``number`` directly (None: it has no URL; its tables'
        requests are forwarded to it). Read at most once a lease."""
        now = time.monotonic()
        known = self._urls.get(number)
        if known is not None and now - known[1] < self.node.lease_seconds / (
                1 if known[0] else 3):  # a node just started has its URL in a renewal
            return known[0]
        url = await self.node.bus.redis.get(self._url_key(number))
        found = url.decode() if isinstance(url, bytes) else url
        if len(self._urls) > 1000:
            self._urls.clear()
        self._urls[number] = (found, now)
        return found

    # -- other nodes' tables -------------------------------------------------------------------

    async def owner(self, table_id: str, fresh: bool = False) -> int | None:
        """The node holding a table's lease. Another node's tables are remembered as last
        read (a forwarded action then costs no lookup); the memory goes when the table
        moves or closes (their frames on its channel) and is read again when the owner
        does not answer (``fresh``)."""
        if not fresh and (known := self._owners.get(table_id)) is not None:
            return known
        node = self.node
        holder = await node.bus.redis.get(node.keys.lease(table_id))
        if holder is None or int(holder) == node.number:
            self._owners.pop(table_id, None)
            return None if holder is None else node.number
        if len(self._owners) > 100_000:
            self._owners.clear()
        self._owners[table_id] = int(holder)
        return int(holder)

    async def live_owner(self, table_id: str, owner: int) -> int | None:
        """The table's owner once it is surely alive, before a player is sent to it.

        A live owner renews its leases every third of a lease, so a lease with less
        than two thirds of it left has missed a renewal: its node may be paused or dead,
        and a player sent there would wait on a socket that never opens. Such a lease is
        watched until it is renewed (the owner was only late: it is returned) or expires,
        and then this node takes the table over itself, at once (it was seen unrenewed
        for a whole lease; the store's fence settles any race). None: the table's owner
        is to be looked up again. One watch a table, shared by every request waiting on it
        (a dead node's players all rejoin at once)."""
        watch = self._watches.get((table_id, owner))
        if watch is None or watch.done():
            watch = self._watches[(table_id, owner)] = asyncio.ensure_future(
                self._watch(table_id, owner))
            watch.add_done_callback(lambda _: self._watches.pop((table_id, owner), None))
        return await asyncio.shield(watch)

    async def _watch(self, table_id: str, owner: int) -> int | None:
        node = self.node
        key = node.keys.lease(table_id)
        healthy = self._ms * 2 // 3 - 50
        deadline = time.monotonic() + node.lease_seconds + 1
        while time.monotonic() < deadline:
            async with node.bus.redis.pipeline(transaction=False) as pipe:
                pipe.get(key)
                pipe.pttl(key)
                holder, left = await pipe.execute()
            if holder is None:
                self.forget_owner(table_id)
                await self.take_over(table_id)
                return None
            if int(holder) != owner:
                self.forget_owner(table_id)
                return None
            if left >= healthy or left < 0:  # renewed (or set without expiry: not a lease)
                return owner
            await asyncio.sleep(min(0.05, left / 1000))
        return None

    def forget_owner(self, table_id: str | None = None) -> None:
        """The table moved or closed (None: any table may have; moves may have been
        missed): its owner is looked up again."""
        if table_id is None:
            self._owners.clear()
        else:
            self._owners.pop(table_id, None)

    async def holders(self, tables: list[str]) -> list[int | None]:
        """The node holding each table's lease (None: no one)."""
        if not tables:
            return []
        node = self.node
        found = await node.bus.redis.mget([node.keys.lease(t) for t in tables])
        return [None if holder is None else int(holder) for holder in found]

    # -- take-overs ------------------------------------------------------------------------------

    async def _scan_loop(self) -> None:
        """Take over the tables whose node is gone: a game in play whose lease expired."""
        while not self._stopping:
            await asyncio.sleep(self.node.lease_seconds / SCANS_A_LEASE)
            try:
                await self.scan()
            except (*UNREACHABLE, OSError, StoreUnavailable) as exc:
                log.warning("node %d: take-over scan failed: %s", self.node.number, exc)
            except Exception:
                log.exception("node %d: take-over scan failed", self.node.number)

    async def scan(self) -> None:
        """One look for tables to take over: the store's games in play (read again once a
        lease) whose lease is gone. A lease is gone when its node stopped renewing it for a
        whole lease, or when Redis restarted and lost every key: its owner sets it again
        within a renewal, so for a renewal after a restart (Redis's ``run_id`` changed)
        nothing is taken."""
        node = self.node
        now = time.monotonic()
        if now - self._unfinished_at >= node.lease_seconds:
            self._unfinished = await node.store.unfinished_tables()
            self._unfinished_at = now
        if not self.proved:  # this node was paused itself: its own leases first
            return
        tables = [t for t in self._unfinished if t not in self.epochs]
        run_id = str((await node.bus.redis.info("server")).get("run_id", ""))
        if run_id != self._run_id:
            if self._run_id:
                log.info("node %d: Redis restarted; leases are set again before any "
                         "take-over", node.number)
            self._run_id, self._restarted_at = run_id, now
        if not tables or now - self._restarted_at < node.lease_seconds / 3 + 0.5:
            return
        holders = await self.holders(tables)
        due = [t for t, holder in zip(tables, holders, strict=True) if holder is None]
        # All at once: a dead node's tables each wait for their replay, not for each other's.
        await asyncio.gather(*(self.take_over(table_id) for table_id in due))

    async def take_over(self, table_id: str) -> bool:
        """Claim a table left without an owner and resume its game from the store."""
        if table_id in self.taking or self.draining:  # a draining node takes nothing on
            return False
        self.taking.add(table_id)
        node = self.node
        try:
            # The lease first: of the nodes that saw the table orphaned, one takes it, and
            # only that one reads its game.
            if not await self.claim(table_id):
                return False
            started = time.monotonic()
            stored = await node.store.unfinished_game(table_id)
            if stored is None:  # its game ended meanwhile: nothing to run here
                self.closed(table_id)
                return False
            # Sockets here that followed the table on the old owner rejoin it here.
            self.on_moved(table_id, MOVED)
            try:
                await node.host.resume(stored)
            except BaseException:  # no table runs it here: the lease goes, for another try
                self.closed(table_id)
                raise
            self.takeovers += 1
            METRICS.takeovers.inc()
            log.info("node %d took over table %s (epoch %d) in %.0f ms", node.number, table_id,
                     self.epochs[table_id], 1000 * (time.monotonic() - started))
            # Clients still bound to the old owner through other nodes: rejoin here.
            node.publish(node.keys.table_channel(table_id), Moved(table_id, node.number))
            return True
        finally:
            self.taking.discard(table_id)

    async def until_taken(self, table_id: str) -> None:
        """Wait (a lease at most) while this node is taking the table over."""
        deadline = time.monotonic() + self.node.lease_seconds
        while table_id in self.taking and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

"""One node of a cluster: table leases, forwarded requests, relayed events, take-overs.

The lila / lila-ws pattern on Redis (DESIGN section 11), with PostgreSQL as
the store every node shares:

* **Ownership.** A table runs on the node holding its lease, a Redis key set
  if absent with an expiry (``lease_seconds``) and renewed at a third of it.
  Taking a table bumps its epoch in the store (:meth:`Store.take_table`);
  every write the table makes carries that epoch as its fencing token, so an
  old owner that wakes up after losing the lease cannot write.
* **Routing.** A client may connect to any node. A request for a table owned
  elsewhere goes to the owner's channel with a correlation id; the owner runs
  it as if the client were local (a :class:`RemoteClient` stands in for the
  socket), answers the client through the client's node, then says ``done``.
  No ``done`` within ``forward_seconds``: the client gets a clear error.
* **Events.** The owner publishes each message for clients on other nodes
  once, on the table's channel, with the ids it is for; each node subscribed
  to that channel hands it to its own sockets.
* **Take-over.** Every node scans the store's unfinished games; a table
  whose lease has been missing for two scans (its node died, or stopped) is
  taken by the first node to set the lease, and resumed from the store as
  after a restart. Its players rejoin through any node with their seat token
  and last ``seq``; clients of other nodes still watching the old owner are
  told to reconnect (close code 1012).
* **Redis restarting** loses the leases: each node sets its own again within
  a renewal, before any scan could count them missing twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import logging
import os
import secrets
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from trickroom.server.cluster.bus import UNREACHABLE, Bus, frame
from trickroom.server.cluster.limits import Limits
from trickroom.server.listing import LISTED_STATES, listed_first
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import (
    Act,
    ProtocolError,
    QueueStatus,
    ServerMessage,
    TableInfo,
    TableUpdate,
    parse_client_message,
)
from trickroom.server.store import Fence, StoreUnavailable
from trickroom.server.tables.commands import ClientId, Disconnect, SitReserved, Who
from trickroom.server.tables.log import Shared

if TYPE_CHECKING:
    from trickroom.server.app import App

log = logging.getLogger("trickroom.cluster")

CLIENT_BITS = 32  # a client id is its node's number, then 32 bits counted on the node

# Renew a lease only while this node holds it: 1 renewed, 0 gone (take it again), -1 lost.
RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then return 0 end
return -1
"""
# A forwarded act being run in this task: (asking node, corr, answered yet). Its table's
# relay frame carries the answer, instead of a ``done`` frame of its own: the relay is the
# call's last word (runner.call flushes it last, and nothing awaits after it).
_ANSWERING: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "answering", default=None)

# Let a lease go only if it is ours.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RemoteClient:
    """A client of another node, as the tables of this one see it."""

    remote = True

    def __init__(self, cluster: Cluster, client_id: ClientId, name: str, guest: bool,
                 address: str, node: int) -> None:
        self.cluster = cluster
        self.id = client_id
        self.name = name
        self.guest = guest
        self.address = address
        self.node = node
        self.tables: set[str] = set()
        self.closing = False

    def send_text(self, text: str | Shared) -> None:
        data = text.data if isinstance(text, Shared) else text.encode()
        self.cluster.bus.publish(self.cluster.node_channel(self.node),
                                 frame("deliver", {"to": [self.id]}, data))

    def send_many(self, messages: list[str | Shared]) -> None:
        for message in messages:
            self.send_text(message)

    def joined(self, table_id: str) -> None:
        self.tables.add(table_id)

    def reply(self, message: ServerMessage) -> None:
        self.send_text(message.encode())

    def error(self, exc: ProtocolError) -> None:
        METRICS.errors.labels(exc.code).inc()
        self.reply(exc.to_model())

    @property
    def who(self) -> Who:
        return Who(self.id, self.name, self.guest)


class Cluster:
    """This node's part in the cluster."""

    def __init__(self, app: App, url: str, prefix: str = "trickroom",
                 lease_seconds: float = 3.0, forward_seconds: float = 5.0) -> None:
        self.app = app
        self.url = url
        self.lease_seconds = lease_seconds
        self.forward_seconds = forward_seconds
        self.bus = Bus(url, prefix, self._on_frame, on_reconnect=self._resync)
        self.renewed_at = time.monotonic()  # the last time every lease was renewed
        self.node = 0
        self.epochs: dict[str, int] = {}  # the tables this node owns, with their epochs
        self._missing: set[str] = set()  # tables seen without a lease at the last scan
        # Forwarded requests, by corr: True once run, False if the node does not run it.
        self._waiting: dict[int, asyncio.Future[bool]] = {}
        self._corr = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self._calls: set[asyncio.Task[None]] = set()
        self._calls_seen: dict[tuple[int, int], bool] = {}  # (node, corr) -> answered
        self._taking: set[str] = set()
        self._owners: dict[str, int] = {}  # other nodes' tables, by owner as last read
        self.takeovers = 0
        self.forwarded = 0
        self.limits: Limits  # made at start, once this node has its number

    # -- names in Redis ----------------------------------------------------------------------

    def node_channel(self, node: int) -> str:
        return self.bus.key("node", node)

    def table_channel(self, table_id: str) -> str:
        return self.bus.key("table", table_id)

    def lease_key(self, table_id: str) -> str:
        return self.bus.key("lease", table_id)

    @staticmethod
    def node_of(client_id: ClientId) -> int:
        return client_id >> CLIENT_BITS

    # -- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Join: take a node number no live node has, listen, and start the lease work."""
        redis = self.bus.redis
        await redis.ping()
        while True:
            node = secrets.randbelow(2**20) + 1
            if await redis.set(self.bus.key("alive", node), os.getpid(), nx=True,
                               px=int(self.lease_seconds * 1000)):
                break
        self.node = node
        self.limits = Limits(self.bus, node, self.lease_seconds)
        self.limits.renewed()
        await self.bus.start([self.node_channel(node), self.bus.key("lobby")])
        self._tasks = [asyncio.create_task(self._renew_loop(), name="cluster-renew"),
                       asyncio.create_task(self._scan_loop(), name="cluster-scan")]
        log.info("node %d joined the cluster at %s", node, self.url)

    def first_client_id(self) -> int:
        return (self.node << CLIENT_BITS) + 1

    async def stop(self) -> None:
        """Leave: let every lease go at once, so other nodes take the tables without
        waiting for them to expire (the tables were stopped and flushed before)."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for task in list(self._calls):
            task.cancel()
        with contextlib.suppress(*UNREACHABLE):
            release = self.bus.redis.register_script(RELEASE)
            for table_id in list(self.epochs):
                await release(keys=[self.lease_key(table_id)], args=[self.node])
            await self.bus.redis.delete(self.bus.key("alive", self.node),
                                        self.limits.tallies)
            await self.bus.redis.srem(self.bus.key("nodes"), self.node)
        self.epochs.clear()
        await self.bus.stop()

    # -- leases ------------------------------------------------------------------------------

    def watching(self, table_id: str) -> bool:
        """Whether this node relays a remote table's events to its own sockets."""
        return self.table_channel(table_id) in self.bus.channels

    def fence(self, table_id: str) -> Fence | None:
        epoch = self.epochs.get(table_id)
        return None if epoch is None else Fence(table_id, epoch)

    async def claim(self, table_id: str) -> bool:
        """Take the lease of a table no one holds; then its newer epoch from the store."""
        ok = await self.bus.redis.set(self.lease_key(table_id), str(self.node), nx=True,
                                      px=int(self.lease_seconds * 1000))
        if not ok:
            return False
        self._owners.pop(table_id, None)
        self.epochs[table_id] = await self.app.store.take_table(table_id)
        return True

    async def owner(self, table_id: str, fresh: bool = False) -> int | None:
        """The node holding a table's lease. Another node's tables are remembered as last
        read (a forwarded action then costs no lookup); the memory goes when the table
        moves or closes (their frames on its channel) and is read again when the owner
        does not answer (``fresh``)."""
        if not fresh and (known := self._owners.get(table_id)) is not None:
            return known
        holder = await self.bus.redis.get(self.lease_key(table_id))
        if holder is None or int(holder) == self.node:
            self._owners.pop(table_id, None)
            return None if holder is None else self.node
        if len(self._owners) > 100_000:
            self._owners.clear()
        self._owners[table_id] = int(holder)
        return int(holder)

    async def _renew_loop(self) -> None:
        renew = self.bus.redis.register_script(RENEW)
        every = self.lease_seconds / 3
        ms = str(int(self.lease_seconds * 1000))
        while True:
            await asyncio.sleep(every)
            try:
                await self.bus.redis.set(self.bus.key("alive", self.node), os.getpid(),
                                         px=int(ms))
                self.limits.renewed()
                tables = list(self.epochs)
                async with self.bus.redis.pipeline(transaction=False) as pipe:
                    for table_id in tables:
                        await renew(keys=[self.lease_key(table_id)], args=[self.node, ms],
                                    client=pipe)
                    results = await pipe.execute() if tables else []
                for table_id, result in zip(tables, results, strict=True):
                    if result == 0:  # Redis lost it (a restart): ours again, same epoch
                        if not await self.bus.redis.set(self.lease_key(table_id),
                                                        str(self.node), nx=True, px=int(ms)):
                            await self.lost(table_id, "its lease went to another node")
                    elif result == -1:
                        await self.lost(table_id, "its lease went to another node")
                self.renewed_at = time.monotonic()
            except UNREACHABLE as exc:
                log.warning("node %d: cannot renew leases: %s", self.node, exc)
            except Exception:
                log.exception("node %d: lease renewal failed", self.node)

    async def until_held(self) -> None:
        """Wait until this node's leases are known to be its own (self-fencing): a node
        that has not renewed them for most of a lease may have lost them, so its tables
        write nothing until it has (a Redis restart: a pause), or refuse after
        ``forward_seconds`` (the write is not acknowledged; the store's fence catches
        anything that slips through)."""
        limit = self.lease_seconds * 0.75
        if time.monotonic() - self.renewed_at < limit:
            return
        deadline = time.monotonic() + self.forward_seconds
        while time.monotonic() - self.renewed_at >= limit:
            if time.monotonic() > deadline:
                raise StoreUnavailable("this server cannot reach Redis to keep its tables; "
                                       "nothing was stored")
            await asyncio.sleep(0.02)

    def _resync(self) -> None:
        """After a lost subscription: the lobby lists this node's tables again, and this
        node's sockets at other nodes' tables rejoin them (they may have missed events;
        a rejoin with their last seq replays exactly those); its counts of connections,
        guests and tables are written again (a restarted Redis lost them)."""
        self.limits.reshare()
        self._owners.clear()  # moves may have been missed
        lobby = self.app.lobby
        for runner in list(lobby.tables.values()):
            self.table_listed(runner.machine.info(), removed=False)
        for channel in list(self.bus.channels):
            prefix = self.bus.key("table", "")
            if channel.startswith(prefix):
                self.close_local(channel.removeprefix(prefix), "this server lost contact "
                                 "with the table's server for a moment: reconnect and rejoin")

    async def lost(self, table_id: str, why: str) -> None:
        """Stop running a table another node now owns (or will): self-fencing."""
        if self.epochs.pop(table_id, None) is None:
            return
        log.warning("node %d lost table %s: %s", self.node, table_id, why)
        runner = self.app.lobby.tables.pop(table_id, None)
        self.app.lobby.forget_creator(table_id)
        if runner is not None:
            await runner.stop()
            self.app.lobby.seats_taken(runner, ())  # its seats are the new owner's to tell
            self.app.lobby.unlist(runner)
        self.close_local(table_id, "the table moved to another server: reconnect and rejoin")

    async def _scan_loop(self) -> None:
        """Take over the tables whose node is gone: a game in play with no lease, twice."""
        while True:
            await asyncio.sleep(self.lease_seconds / 2)
            try:
                await self.scan()
            except (*UNREACHABLE, OSError) as exc:
                log.warning("node %d: take-over scan failed: %s", self.node, exc)
            except Exception:
                log.exception("node %d: take-over scan failed", self.node)

    async def scan(self) -> None:
        tables = [t for t in await self.app.store.unfinished_tables()
                  if t not in self.epochs]
        if not tables:
            self._missing.clear()
            return
        holders = await self.bus.redis.mget([self.lease_key(t) for t in tables])
        missing = {t for t, holder in zip(tables, holders, strict=True) if holder is None}
        due, self._missing = missing & self._missing, missing
        for table_id in sorted(due):
            await self.take_over(table_id)

    async def take_over(self, table_id: str) -> bool:
        """Claim a table left without an owner and resume its game from the store."""
        if table_id in self._taking:
            return False
        self._taking.add(table_id)
        try:
            stored = await self.app.store.unfinished_game(table_id)
            if stored is None or not await self.claim(table_id):
                return False
            started = time.monotonic()
            # Sockets here that followed the table on the old owner rejoin it here.
            self.close_local(table_id, "the table moved to another server: reconnect and "
                                       "rejoin")
            await self.app.lobby.resume(stored)
            self.takeovers += 1
            log.info("node %d took over table %s (epoch %d) in %.0f ms", self.node, table_id,
                     self.epochs[table_id], 1000 * (time.monotonic() - started))
            # Clients still bound to the old owner through other nodes: rejoin here.
            self.bus.publish(self.table_channel(table_id),
                             frame("moved", {"table": table_id, "node": self.node}))
            return True
        finally:
            self._taking.discard(table_id)

    # -- requests out --------------------------------------------------------------------------

    async def forward(self, conn: Any, msg: Any, table_id: str, joins: bool) -> bool:
        """Send a request for a table this node does not run to the node that does.

        Returns False when the request should run here after all (this node just took
        the table over). Raises :class:`ProtocolError` when no node runs the table or the
        owner does not answer in time.
        """
        fresh = False
        for _ in range(3):  # a node that no longer runs it says so: look again, twice
            owner = await self._resolve(table_id, fresh)
            if owner is None:
                return False
            if joins:
                conn.joined(table_id)
            await self.bus.subscribe(self.table_channel(table_id))
            if await self._call(conn, msg, table_id, owner):
                return True
            self._owners.pop(table_id, None)
            fresh = True
        raise ProtocolError("unavailable", f"table {table_id!r} is moving between servers: "
                            "send it again", retry_after=1.0)

    async def _resolve(self, table_id: str, fresh: bool) -> int | None:
        """The node to send a request for the table to; None: run it here (this node runs
        it, or has just taken it over)."""
        owner = await self.owner(table_id, fresh)
        if owner is None and await self.app.store.unfinished_game(table_id) is not None:
            # A game in play with no lease this moment: Redis may have restarted and its
            # owner not yet taken it again (it does within a renewal); or its node died.
            # Taking it at once would fight a live owner: give the owner a lease's time.
            deadline = time.monotonic() + self.lease_seconds
            while owner is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                owner = await self.owner(table_id, fresh=True)
        if owner is None or owner == self.node:
            deadline = time.monotonic() + self.lease_seconds
            while table_id in self._taking and time.monotonic() < deadline:
                await asyncio.sleep(0.02)  # this node is resuming it: a moment
            if table_id in self.app.lobby.tables or await self.take_over(table_id):
                return None
            owner = await self.owner(table_id, fresh=True)  # another node took it first?
            if owner is None or owner == self.node:
                raise ProtocolError("no_such_table",
                                    f"no table {table_id!r} is open (it may have closed)")
        return owner

    async def _call(self, conn: Any, msg: Any, table_id: str, owner: int) -> bool:
        """One forwarded request: True once the owner ran it, False if that node does not
        run the table (any more)."""
        corr = next(self._corr)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[corr] = done
        header = {"corr": corr, "from": self.node, "client": conn.id, "name": conn.name,
                  "guest": conn.guest, "address": conn.address, "table": table_id}
        call = frame("call", header, msg.model_dump_json(exclude_none=True))
        self.forwarded += 1
        try:
            # Pub/sub delivers at most once (a Redis restart drops what is in flight): the
            # same call goes again, under the same id, until answered; the owner runs it
            # once and answers every copy.
            deadline = time.monotonic() + self.forward_seconds
            while True:
                self.bus.publish(self.node_channel(owner), call)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(left, 0.5)):
                        return await asyncio.shield(done)
                # No answer yet: if the lease has gone (its node died) or moved, the
                # request waits out the take-over and goes to the new owner, rather than
                # the client being told to send it again.
                if await self.owner(table_id, fresh=True) != owner:
                    return False
        except TimeoutError:
            self._owners.pop(table_id, None)  # the next request looks the owner up again
            raise ProtocolError("unavailable", f"the server running table {table_id!r} did "
                                f"not answer within {self.forward_seconds:g} s (if it "
                                "stopped, another takes the table over): send it again",
                                retry_after=1.0) from None
        finally:
            self._waiting.pop(corr, None)

    async def disconnected(self, client_id: ClientId, tables: Iterable[str]) -> None:
        """A local client closed: tell each remote table's owner (no answer awaited)."""
        tables = list(tables)
        if not tables:
            return
        with contextlib.suppress(*UNREACHABLE):
            holders = await self.bus.redis.mget([self.lease_key(t) for t in tables])
            for table_id, holder in zip(tables, holders, strict=True):
                if holder is not None and int(holder) != self.node:
                    self.bus.publish(self.node_channel(int(holder)),
                                     frame("gone", {"client": client_id, "table": table_id}))

    def relay(self, table_id: str, batch: list[tuple[list[ClientId], str | Shared]]) -> None:
        """What one command of a table sends to clients of other nodes: once, as one frame
        on the table's channel (each message with the clients it is for, bodies end to end;
        every node subscribed hands each message to those of its own sockets)."""
        bodies = [m.data if isinstance(m, Shared) else m.encode() for _, m in batch]
        header: dict[str, Any] = {"to": [to for to, _ in batch],
                                  "sizes": [len(b) for b in bodies]}
        answering = _ANSWERING.get()
        if answering is not None and not answering[2]:
            header["done"] = answering[:2]
            answering[2] = True
        self.bus.publish(self.table_channel(table_id), frame("relay", header, b"".join(bodies)))

    def close_local(self, table_id: str, reason: str) -> None:
        """Close this node's sockets at a table that moved, so their clients rejoin."""
        for client in list(self.app.clients.values()):
            if table_id in client.tables and not isinstance(client, RemoteClient):
                client.tables.discard(table_id)
                client.closing = True
                asyncio.get_running_loop().create_task(client.ws.close(1012, reason))
        # The channel stays subscribed: these clients rejoin at once, and an unsubscribe
        # landing after their rejoin's subscribe would leave them hearing nothing. It goes
        # when the table closes.

    # -- frames in --------------------------------------------------------------------------

    def _on_frame(self, op: str, header: dict[str, Any], body: bytes) -> None:
        if op == "relay":
            clients = self.app.clients
            start = 0
            for to, size in zip(header["to"], header["sizes"], strict=True):
                shared = Shared.of_bytes(body[start:start + size])
                start += size
                for client_id in to:
                    client = clients.get(client_id)
                    if client is not None and not client.remote:
                        client.send_text(shared)
            done = header.get("done")
            if done is not None and done[0] == self.node:
                self._answered(done[1], True)
        elif op == "deliver":
            client = self.app.clients.get(header["to"][0])
            if client is not None and not client.remote:
                client.send_text(Shared.of_bytes(body))
        elif op in ("done", "elsewhere"):  # elsewhere: that node does not run the table
            self._answered(header["corr"], op == "done")
        elif op == "call":
            self._spawn(self._on_call(header, body))
        elif op == "follow":  # a client here is about to be seated at another node's table
            self._spawn(self._on_follow(header))

        elif op == "gone":
            table_id = header["table"]
            if table_id in self.app.lobby.tables:
                self._spawn(self._on_gone(table_id, header["client"]))
        elif op == "table":
            if header["from"] != self.node:
                lobby = self.app.lobby
                update = Shared.of_bytes(body)
                for member in lobby.subscribers.get(header["room"], ()):
                    member.send_text(update)
        elif op in ("moved", "closed"):
            table_id = header["channel"].rsplit(":", 1)[1]
            self._owners.pop(table_id, None)
            if op == "moved" and header["node"] != self.node:
                self.close_local(table_id, "the table moved to another server: reconnect "
                                           "and rejoin")
            elif op == "closed":
                for client in self.app.clients.values():
                    client.tables.discard(table_id)
                self._spawn(self.bus.unsubscribe(self.table_channel(table_id)))

    def _answered(self, corr: int, ran: bool) -> None:
        waiting = self._waiting.get(corr)
        if waiting is not None and not waiting.done():
            waiting.set_result(ran)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    async def _on_call(self, header: dict[str, Any], body: bytes) -> None:
        from trickroom.server.app import REQUESTS
        key = (header["from"], header["corr"])
        if key in self._calls_seen:  # a copy of a call already run (or running)
            if self._calls_seen[key]:
                self.bus.publish(self.node_channel(header["from"]),
                                 frame("done", {"corr": header["corr"]}))
            return
        self._calls_seen[key] = False  # copies arriving meanwhile wait for this one
        while len(self._calls_seen) > 10_000:
            self._calls_seen.pop(next(iter(self._calls_seen)))
        table_id = header.get("table")
        tables = self.app.lobby.tables
        if table_id is not None and table_id not in tables:
            # Taking it over this moment (leased, its game still loading): answer once up.
            deadline = time.monotonic() + self.lease_seconds
            while table_id in self._taking and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if table_id not in tables:
                # The asker's idea of the owner is old (the table moved or closed): it
                # looks again, rather than its client hearing of no such table.
                self._calls_seen.pop(key, None)
                self.bus.publish(self.node_channel(header["from"]),
                                 frame("elsewhere", {"corr": header["corr"]}))
                return
        client_id = header["client"]
        known = self.app.clients.get(client_id)
        if isinstance(known, RemoteClient):
            client = known
        else:
            client = RemoteClient(self, client_id, header["name"], header["guest"],
                                  header["address"], header["from"])
            self.app.clients[client_id] = client
        client.name, client.guest = header["name"], header["guest"]
        answering = [header["from"], header["corr"], False]
        try:
            msg = parse_client_message(body)
            if isinstance(msg, Act):
                _ANSWERING.set(answering)  # this task's own context: no reset needed
            try:
                await REQUESTS[type(msg)](self.app, client, msg)  # type: ignore[arg-type]
            except ProtocolError as exc:
                exc.request_id = msg.id
                raise
        except ProtocolError as exc:
            client.error(exc)
        except Exception:
            log.exception("a forwarded request failed")
            client.error(ProtocolError("internal", "the server failed on that request"))
        finally:
            self._calls_seen[key] = True
            if not answering[2]:  # no relay frame carried the answer
                self.bus.publish(self.node_channel(header["from"]),
                                 frame("done", {"corr": header["corr"]}))

    async def _on_follow(self, header: dict[str, Any]) -> None:
        """A client here is about to be seated at another node's table (the ranked queue
        matched it there): relay that table's events to it from now on, then say so."""
        client = self.app.clients.get(header["client"])
        if client is not None and not client.remote:
            client.joined(header["table"])
            await self.bus.subscribe(self.table_channel(header["table"]))
        self.bus.publish(self.node_channel(header["from"]),
                         frame("done", {"corr": header["corr"]}))

    async def _on_gone(self, table_id: str, client_id: ClientId) -> None:
        table = self.app.lobby.tables.get(table_id)
        client = self.app.clients.get(client_id)
        if table is not None:
            await table.call(Disconnect(client_id))
        if client is not None and client.remote:
            client.tables.discard(table_id)
            if not client.tables:
                self.app.clients.pop(client_id, None)

    # -- the lobby, shared -----------------------------------------------------------------

    def table_listed(self, info: TableInfo, removed: bool) -> None:
        """A table of this node changed or closed: the room's list in Redis follows, and
        every other node pushes the change to its own subscribers of the room."""
        key = self.bus.key("room", info.room)
        if removed:
            self.bus.command("hdel", key, info.id)
        else:
            self.bus.command("hset", key, info.id, info.model_dump_json())
        update = TableUpdate(table=info, removed=removed).encode()
        self.bus.publish(self.bus.key("lobby"), frame("table", {"room": info.room,
                                                                "from": self.node}, update))

    async def room_tables(self, room: str) -> tuple[list[TableInfo], int]:
        """Every node's open tables in a room (those whose node still holds them), listed
        as one node lists its own (``Lobby.tables_info``), with how many there are."""
        listed = {_text(k): v for k, v in
                  (await self.bus.redis.hgetall(self.bus.key("room", room))).items()}
        if not listed:
            return [], 0
        ids = list(listed)
        holders = await self.bus.redis.mget([self.lease_key(t) for t in ids])
        # A table whose node died before closing it is left out (a take-over lists it again).
        states: dict[str, dict[str, TableInfo]] = {state: {} for state in LISTED_STATES}
        for table_id, holder in zip(ids, holders, strict=True):
            if holder is not None:
                info = TableInfo.model_validate_json(listed[table_id])
                states.setdefault(info.state, {})[table_id] = info
        return listed_first(states.values(), self.app.config.settings.tables_listed)

    async def room_counts(self) -> dict[str, int]:
        rooms = list(self.app.lobby.rooms)
        async with self.bus.redis.pipeline(transaction=False) as pipe:
            for room in rooms:
                pipe.hlen(self.bus.key("room", room))
            counts = await pipe.execute()
        return dict(zip(rooms, (int(c) for c in counts), strict=True))

    # -- the ranked queues, shared ------------------------------------------------------------

    async def queue_join(self, client: Any, room: str, request_id: Any) -> None:
        """Queue a player (on any node) in a room's random queue, then try to match."""
        entry = json.dumps({"client": client.id, "name": client.name, "guest": client.guest,
                            "address": client.address, "node": self.node, "at": time.time()})
        key = self.bus.key("queue", room)
        if not await self.bus.redis.hsetnx(key, client.name.lower(), entry):
            raise ProtocolError("invalid_field", "you are already in this queue")
        await self.bus.redis.rpush(self.bus.key("joins", room), time.time())
        await self.bus.redis.ltrim(self.bus.key("joins", room), -20, -1)
        await self._match(room)
        await self.queue_status(room, client, request_id)

    async def queue_leave(self, client: Any, room: str, request_id: Any = None,
                          tell: bool = True) -> None:
        await self.bus.redis.hdel(self.bus.key("queue", room), client.name.lower())
        if tell:
            await self.queue_status(room, client, request_id)

    async def _match(self, room: str) -> None:
        """Four queued players, wherever they are, seated at random at a new table here.
        One node matches a room at a time (a Redis lock), so no player is seated twice."""
        lock = self.bus.key("matcher", room)
        if not await self.bus.redis.set(lock, self.node, nx=True, px=10_000):
            return  # another node is matching this room; it will see these players too
        try:
            key = self.bus.key("queue", room)
            queued = {_text(k): json.loads(v) for k, v in
                      (await self.bus.redis.hgetall(key)).items()}
            if len(queued) < 4:
                return
            draw = secrets.SystemRandom()
            players = draw.sample(sorted(queued.values(), key=lambda e: e["at"]), 4)
            await self.bus.redis.hdel(key, *(p["name"].lower() for p in players))
        finally:
            await self.bus.redis.delete(lock)
        table = await self.app.lobby.new_table(room, {}, "random_queue")
        for player in players:  # each player's node follows the table before it is seated
            if player["node"] != self.node:
                await self._call_node(player["node"], "follow",
                                      {"client": player["client"], "table": table.id})
        seats = draw.sample(range(4), 4)
        for player, seat in zip(players, seats, strict=True):
            member = self._member(player)
            member.joined(table.id)
            await table.call(SitReserved(Who(player["client"], player["name"], player["guest"]),
                                         None, seat))
        await self.queue_status(room)

    def _member(self, entry: dict[str, Any]) -> Any:
        """A queued player as this node's tables know them: local, or a stand-in."""
        client = self.app.clients.get(entry["client"])
        if client is None:
            client = RemoteClient(self, entry["client"], entry["name"], entry["guest"],
                                  entry["address"], entry["node"])
            self.app.clients[entry["client"]] = client
        return client

    async def _call_node(self, node: int, op: str, header: dict[str, Any]) -> None:
        """Ask another node to do something and wait for its ``done`` (or the deadline)."""
        corr = next(self._corr)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[corr] = done
        self.bus.publish(self.node_channel(node),
                         frame(op, {**header, "corr": corr, "from": self.node}))
        try:
            await asyncio.wait_for(done, self.forward_seconds)
        except TimeoutError:
            log.warning("node %d did not answer %s in time", node, op)
        finally:
            self._waiting.pop(corr, None)

    async def queue_status(self, room: str, asker: Any = None, request_id: Any = None) -> None:
        """Tell every queued player (and the asker) the queue's length and expected wait."""
        queued = [json.loads(v) for v in
                  (await self.bus.redis.hgetall(self.bus.key("queue", room))).values()]
        joins = [float(j) for j in await self.bus.redis.lrange(self.bus.key("joins", room),
                                                              0, -1)]
        expected = None
        if len(joins) >= 2 and joins[-1] > joins[0]:
            gap = (joins[-1] - joins[0]) / (len(joins) - 1)
            expected = round(gap * max(0, 4 - len(queued)), 1)
        told = set()
        for entry in queued:
            asked = asker is not None and entry["client"] == asker.id
            status = QueueStatus(id=request_id if asked else None, room=room, queued=True,
                                 length=len(queued), expected_wait=expected)
            self._tell(entry["node"], entry["client"], status.encode())
            told.add(entry["client"])
        if asker is not None and asker.id not in told:
            status = QueueStatus(id=request_id, room=room, queued=False, length=len(queued),
                                 expected_wait=expected)
            asker.send_text(status.encode())

    def _tell(self, node: int, client_id: ClientId, text: str) -> None:
        if node == self.node:
            client = self.app.clients.get(client_id)
            if client is not None:
                client.send_text(text)
        else:
            self.bus.publish(self.node_channel(node),
                             frame("deliver", {"to": [client_id]}, text))

    # -- names ---------------------------------------------------------------------------------

    async def reserve_guest(self, name: str, seconds: float, renew: bool = False) -> bool:
        """Hold a guest name for the whole cluster, for as long as its session may resume:
        two nodes never hand one name to two guests (the second would end the first's
        session). ``renew``: its guest came back; the hold starts again."""
        key, ms = self.bus.key("guest", name.lower()), int(seconds * 1000)
        if renew:
            await self.bus.redis.set(key, self.node, px=ms)
            return True
        return bool(await self.bus.redis.set(key, self.node, nx=True, px=ms))

    # -- what the lobby tells the cluster --------------------------------------------------------

    def table_closed(self, table_id: str) -> None:
        if self.epochs.pop(table_id, None) is not None:
            self.bus.publish(self.table_channel(table_id), frame("closed", {}))
            self._spawn(self._release(table_id))

    async def _release(self, table_id: str) -> None:
        with contextlib.suppress(*UNREACHABLE):
            release = self.bus.redis.register_script(RELEASE)
            await release(keys=[self.lease_key(table_id)], args=[self.node])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

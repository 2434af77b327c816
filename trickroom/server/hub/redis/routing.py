"""How a request reaches a table on another node, and how its answers come back.

The lila / lila-ws pattern on Redis (DESIGN section 11):

* **Requests.** A client may connect to any node. A request for a table owned
  elsewhere goes to the owner's channel as a :class:`Call` with a correlation
  id; the owner runs it as if the client were its own (a :class:`RemoteClient`
  stands in for the socket), answers the client through the client's node,
  then says :class:`Done`. No answer within ``forward_seconds``: the client
  gets a clear error.
* **Events.** The owner publishes each message for clients on other nodes once,
  as one :class:`Relay` on the table's channel with the ids it is for; each node
  subscribed to that channel hands it to its own sockets. A forwarded act is
  answered by its table's relay frame itself, with no ``Done`` of its own.
* **Moves.** A table that moved (a take-over) closes this node's sockets at it
  (close code 1012): their clients rejoin, and reach the new owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import time
from collections.abc import Sequence

from trickroom.i18n import Msg
from trickroom.server.hub.port import Batch, Member
from trickroom.server.hub.redis.bus import UNREACHABLE
from trickroom.server.hub.redis.frames import (
    Call,
    Closed,
    Deliver,
    Done,
    Elsewhere,
    Follow,
    Gone,
    Moved,
    Relay,
)
from trickroom.server.hub.redis.leases import Leases
from trickroom.server.hub.redis.node import Node, log
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import (
    Act,
    ClientMessage,
    ProtocolError,
    ServerMessage,
    TableMoved,
    parse_client_message,
)
from trickroom.server.tables.commands import ClientId, Who
from trickroom.server.tables.log import Shared

# A forwarded act being run in this task: (asking node, corr, answered yet). Its table's
# relay frame carries the answer, instead of a ``Done`` frame of its own: the relay is the
# call's last word (runner.call flushes it last, and nothing awaits after it).
# The requests that bring a player to a table: answered, for another node's table that has
# a node URL, with ``moved`` (the client goes there). The rest are forwarded: watchers stay
# where they are, and a request for a table whose player did not move still gets there.
MOVES = frozenset({"sit", "rejoin"})

_ANSWERING: contextvars.ContextVar[list[int | bool] | None] = contextvars.ContextVar(
    "answering", default=None)


class RemoteClient:
    """A client of another node, as the tables of this one see it."""

    remote = True

    def __init__(self, node: Node, client_id: ClientId, name: str, guest: bool,
                 address: str, at: int, language: str = "en") -> None:
        self.node = node
        self.language = language  # its answers' (its node renders the table's texts)
        self.id = client_id
        self.name = name
        self.guest = guest
        self.address = address
        self.at = at  # the node its socket is on
        self.tables: set[str] = set()

    @property
    def who(self) -> Who:
        return Who(self.id, self.name, self.guest, self.address)

    def send_text(self, text: str | Shared) -> None:
        if isinstance(text, Shared):
            self.node.send(self.at, Deliver(self.id, text.localize is not None), text.kept)
        else:
            self.node.send(self.at, Deliver(self.id), text)

    def send_many(self, messages: list[str | Shared]) -> None:
        for message in messages:
            self.send_text(message)

    def joined(self, table_id: str) -> None:
        self.tables.add(table_id)

    def reply(self, message: ServerMessage) -> None:
        self.send_text(message.encode())

    def error(self, exc: ProtocolError) -> None:
        METRICS.errors.labels(exc.code).inc()
        self.reply(exc.to_model(self.language))

    def close(self, code: int, reason: str) -> None:
        pass  # its own node closes the socket


class Routing:
    """Requests to other nodes' tables, and their tables' messages to this node's clients."""

    def __init__(self, node: Node, leases: Leases) -> None:
        self.node = node
        self.leases = leases
        self.forwarded = 0
        # Forwarded requests, by corr: True once run, False if the node does not run it.
        self._waiting: dict[int, asyncio.Future[bool]] = {}
        self._corr = itertools.count(1)
        self._calls_seen: dict[tuple[int, int], bool] = {}  # (node, corr) -> answered

    # -- requests out ------------------------------------------------------------------------

    async def forward(self, client: Member, message: ClientMessage, table_id: str) -> bool:
        """Send a request for a table this node does not run to the node that does.

        Returns False when the request should run here after all (this node just took
        the table over, or no node runs it). Raises :class:`ProtocolError` when the owner
        does not answer in time.
        """
        fresh = False
        for _ in range(3):  # a node that no longer runs it says so: look again, twice
            owner = await self._resolve(table_id, fresh)
            if owner is None:
                return False
            if message.type in MOVES and (url := await self.leases.url_of(owner)):
                # A player's socket lives on its table's node: no hop on any move. Not to
                # a node that missed a renewal (paused, or dead): the player waits here
                # for its lease to be renewed, or to expire and the table to come here.
                if await self.leases.live_owner(table_id, owner) != owner:
                    fresh = True
                    continue
                raise TableMoved(table_id, url, message.id)
            if message.type in ("sit", "rejoin", "watch"):
                client.joined(table_id)
            elif message.type == "unwatch":
                client.tables.discard(table_id)
            await self.node.bus.subscribe(self.node.keys.table_channel(table_id))
            if await self._call(client, message, table_id, owner):
                return True
            self.leases.forget_owner(table_id)
            fresh = True
        raise ProtocolError("unavailable", Msg("table {table_id!r} is moving between servers: "
                                               "send it again", table_id=table_id), retry_after=1.0)

    async def _resolve(self, table_id: str, fresh: bool) -> int | None:
        """The node to send a request for the table to; None: run it here (this node runs
        it, or has just taken it over, or no node runs it)."""
        leases = self.leases
        owner = await leases.owner(table_id, fresh)
        if (owner == self.node.number and table_id not in leases.epochs
                and table_id not in leases.taking):
            # This node is letting the table go (handed over, lost, or closed): its lease
            # goes once the table has stopped. A request for it (an act from a socket here)
            # waits for that, and then goes where the table is now.
            deadline = time.monotonic() + self.node.lease_seconds
            while owner == self.node.number and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
                owner = await leases.owner(table_id, fresh=True)
        if owner is None and await self.node.store.unfinished_game(table_id) is not None:
            # A game in play with no lease this moment: Redis may have restarted and its
            # owner not yet taken it again (it does within a renewal); or its node died.
            # Taking it at once would fight a live owner: give the owner a lease's time.
            deadline = time.monotonic() + self.node.lease_seconds
            while owner is None and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
                owner = await leases.owner(table_id, fresh=True)
        if owner is None or owner == self.node.number:
            await leases.until_taken(table_id)  # this node is resuming it: a moment
            if self.node.host.has_table(table_id) or await leases.take_over(table_id):
                return None
            owner = await leases.owner(table_id, fresh=True)  # another node took it first?
            if owner is None or owner == self.node.number:
                return None  # no node runs it: here, it is no such table
        return owner

    async def _call(self, client: Member, message: ClientMessage, table_id: str,
                    owner: int) -> bool:
        """One forwarded request: True once the owner ran it, False if that node does not
        run the table (any more)."""
        corr = next(self._corr)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[corr] = done
        call = Call(corr, self.node.number, client.id, client.name, client.guest,
                    client.address, table_id, client.language)
        body = message.model_dump_json(exclude_none=True)
        self.forwarded += 1
        METRICS.forwards.inc()
        try:
            # Pub/sub delivers at most once (a Redis restart drops what is in flight): the
            # same call goes again, under the same id, until answered; the owner runs it
            # once and answers every copy.
            deadline = time.monotonic() + self.node.forward_seconds
            while True:
                self.node.send(owner, call, body)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(left, 0.25)):
                        return await asyncio.shield(done)
                # No answer yet: if the lease has gone (its node died) or moved, the
                # request waits out the take-over and goes to the new owner, rather than
                # the client being told to send it again.
                if await self.leases.owner(table_id, fresh=True) != owner:
                    return False
        except TimeoutError:
            self.leases.forget_owner(table_id)  # the next request looks the owner up again
            raise ProtocolError("unavailable", Msg("the server running table {table_id!r} did "
                                                   "not answer within {forward_seconds:g} s "
                                                   "(if it stopped, another takes the table "
                                                   "over): send it again", table_id=table_id,
                                                   forward_seconds=self.node.forward_seconds),
                                retry_after=1.0) from None
        finally:
            self._waiting.pop(corr, None)

    async def follow(self, at: int, client_id: ClientId, table_id: str) -> None:
        """Ask node ``at`` to relay a table of this node to its client, and wait until it
        does (or the deadline): the client's seat is taken next."""
        corr = next(self._corr)
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting[corr] = done
        self.node.send(at, Follow(corr, self.node.number, client_id, table_id))
        try:
            await asyncio.wait_for(done, self.node.forward_seconds)
        except TimeoutError:
            log.warning("node %d did not answer a follow in time", at)
        finally:
            self._waiting.pop(corr, None)

    async def disconnected(self, client_id: ClientId, tables: Sequence[str]) -> None:
        """A local client closed: tell each remote table's owner (no answer awaited)."""
        with contextlib.suppress(*UNREACHABLE):
            holders = await self.leases.holders(list(tables))
            for table_id, holder in zip(tables, holders, strict=True):
                if holder is not None and holder != self.node.number:
                    self.node.send(holder, Gone(client_id, table_id))

    def relay(self, table_id: str, batch: Batch) -> None:
        """What one command of a table sends to clients of other nodes: once, as one frame
        on the table's channel (each message with the clients it is for, bodies end to end;
        every node subscribed hands each message to those of its own sockets)."""
        bodies = [m.kept if isinstance(m, Shared) else m.encode() for _, m in batch]
        kept = [i for i, (_, m) in enumerate(batch)
                if isinstance(m, Shared) and m.localize is not None] or None
        done = None
        answering = _ANSWERING.get()
        if answering is not None and not answering[2]:
            done = [int(answering[0]), int(answering[1])]
            answering[2] = True
        self.node.publish(self.node.keys.table_channel(table_id),
                          Relay([to for to, _ in batch], [len(b) for b in bodies], done, kept),
                          b"".join(bodies))

    def watching(self, table_id: str) -> bool:
        """Whether this node relays a remote table's events to its own sockets."""
        return self.node.keys.table_channel(table_id) in self.node.bus.channels

    def close_local(self, table_id: str, reason: str) -> None:
        """Close this node's sockets at a table that moved, so their clients rejoin."""
        for client in list(self.node.host.clients.values()):
            if table_id in client.tables and not client.remote:
                client.tables.discard(table_id)
                client.close(1012, reason)
        # The channel stays subscribed: these clients rejoin at once, and an unsubscribe
        # landing after their rejoin's subscribe would leave them hearing nothing. It goes
        # when the table closes.

    def resync(self) -> None:
        """After a lost subscription: this node's sockets at other nodes' tables rejoin
        them (they may have missed events; a rejoin with their last seq replays exactly
        those)."""
        self.leases.forget_owner()  # moves may have been missed
        for channel in list(self.node.bus.channels):
            table_id = self.node.keys.table_of(channel)
            if table_id is not None:
                self.close_local(table_id, "this server lost contact with the table's "
                                 "server for a moment: reconnect and rejoin")

    # -- frames in ------------------------------------------------------------------------------

    def on_relay(self, frame: Relay, body: bytes) -> None:
        clients = self.node.host.clients
        start = 0
        kept = frozenset(frame.kept or ())
        for index, (to, size) in enumerate(zip(frame.to, frame.sizes, strict=True)):
            data = body[start:start + size]
            shared = Shared.of_kept(data) if index in kept else Shared.of_bytes(data)
            start += size
            for client_id in to:
                client = clients.get(client_id)
                if client is not None and not client.remote:
                    client.send_text(shared)
        if frame.done is not None and frame.done[0] == self.node.number:
            self._answered(frame.done[1], True)

    def on_deliver(self, frame: Deliver, body: bytes) -> None:
        client = self.node.host.clients.get(frame.to)
        if client is not None and not client.remote:
            client.send_text(Shared.of_kept(body) if frame.kept else Shared.of_bytes(body))

    def on_done(self, frame: Done, body: bytes) -> None:
        self._answered(frame.corr, True)

    def on_elsewhere(self, frame: Elsewhere, body: bytes) -> None:
        self._answered(frame.corr, False)

    def _answered(self, corr: int, ran: bool) -> None:
        waiting = self._waiting.get(corr)
        if waiting is not None and not waiting.done():
            waiting.set_result(ran)

    def on_call(self, frame: Call, body: bytes) -> None:
        self.node.spawn(self._run_call(frame, body))

    async def _run_call(self, frame: Call, body: bytes) -> None:
        node = self.node
        key = (frame.sender, frame.corr)
        if key in self._calls_seen:  # a copy of a call already run (or running)
            if self._calls_seen[key]:
                node.send(frame.sender, Done(frame.corr))
            return
        self._calls_seen[key] = False  # copies arriving meanwhile wait for this one
        while len(self._calls_seen) > 10_000:
            self._calls_seen.pop(next(iter(self._calls_seen)))
        if not node.host.has_table(frame.table):
            # Taking it over this moment (leased, its game still loading): answer once up.
            await self.leases.until_taken(frame.table)
            if not node.host.has_table(frame.table):
                # The asker's idea of the owner is old (the table moved or closed): it
                # looks again, rather than its client hearing of no such table.
                self._calls_seen.pop(key, None)
                node.send(frame.sender, Elsewhere(frame.corr))
                return
        client = self.stand_in(frame.client, frame.name, frame.guest, frame.address,
                               frame.sender, frame.language)
        answering: list[int | bool] = [frame.sender, frame.corr, False]
        message: ClientMessage | None = None
        try:
            message = parse_client_message(body)
            if isinstance(message, Act):
                _ANSWERING.set(answering)  # this task's own context: no reset needed
            try:
                await node.host.run(client, message)
            except ProtocolError as exc:
                exc.request_id = message.id
                raise
        except ProtocolError as exc:
            client.error(exc)
        except Exception:
            log.exception("a forwarded request failed")
            client.error(ProtocolError("internal", Msg("the server failed on that request"),
                                       getattr(message, "id", None)))
        finally:
            self._calls_seen[key] = True
            if not answering[2]:  # no relay frame carried the answer
                node.send(frame.sender, Done(frame.corr))

    def stand_in(self, client_id: ClientId, name: str, guest: bool, address: str,
                 at: int, language: str | None = None) -> Member:
        """Another node's client as this node's tables know it (made once, kept while it
        is at a table here)."""
        clients = self.node.host.clients
        client = clients.get(client_id)
        if client is None or not client.remote:
            client = clients[client_id] = RemoteClient(self.node, client_id, name, guest,
                                                       address, at)
        client.name, client.guest = name, guest
        if language is not None:
            client.language = language
        return client

    def on_follow(self, frame: Follow, body: bytes) -> None:
        self.node.spawn(self._run_follow(frame))

    async def _run_follow(self, frame: Follow) -> None:
        """A client here is about to be seated at another node's table (the ranked queue
        matched it there): relay that table's events to it from now on, then say so."""
        client = self.node.host.clients.get(frame.client)
        if client is not None and not client.remote:
            client.joined(frame.table)
            await self.node.bus.subscribe(self.node.keys.table_channel(frame.table))
        self.node.send(frame.sender, Done(frame.corr))

    def on_gone(self, frame: Gone, body: bytes) -> None:
        if self.node.host.has_table(frame.table):
            self.node.spawn(self._run_gone(frame))

    async def _run_gone(self, frame: Gone) -> None:
        await self.node.host.disconnect(frame.table, frame.client)
        clients = self.node.host.clients
        client = clients.get(frame.client)
        if client is not None and client.remote:
            client.tables.discard(frame.table)
            if not client.tables:
                clients.pop(frame.client, None)

    def on_moved(self, frame: Moved, body: bytes) -> None:
        self.leases.forget_owner(frame.table)
        if frame.node != self.node.number:
            self.close_local(frame.table, "the table moved to another server: reconnect "
                                          "and rejoin")

    def on_closed(self, frame: Closed, body: bytes) -> None:
        self.leases.forget_owner(frame.table)
        for client in self.node.host.clients.values():
            client.tables.discard(frame.table)
        self.node.spawn(self.node.bus.unsubscribe(self.node.keys.table_channel(frame.table)))

"""The sockets: one :class:`Connection` each, read under its limits and dispatched.

Each socket gets a :class:`Connection`: who it is, where it sits, and how much
it has yet to read. :class:`Sessions` runs the socket's life: it counts the
address's sockets (over every node, through the hub), reads each frame at the
pace of the socket's and the address's message budgets, parses it, and hands it
to the accounts (logging in), to the requests, or to the hub when the table it
names runs on another node. Sending goes straight into the socket's transport (a
client that stops reading is cut off instead of growing the server's memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
from collections import defaultdict
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from trickroom.i18n import Msg
from trickroom.i18n.catalogs import DEFAULT, render
from trickroom.server.accounts import Accounts
from trickroom.server.config import ServerSettings
from trickroom.server.hub.port import Budget, Hub, Member
from trickroom.server.languages import choose
from trickroom.server.lobby import Lobby
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import (
    ChangePassword,
    Chat,
    ClientMessage,
    Guest,
    ListRooms,
    ListSessions,
    Login,
    Logout,
    LogoutAll,
    Ping,
    Pong,
    ProtocolError,
    Register,
    Resume,
    Rooms,
    ServerMessage,
    Slowed,
    UpgradeToBot,
    parse_client_message,
)
from trickroom.server.proxies import Peers
from trickroom.server.queues import Queues
from trickroom.server.requests import REQUESTS, TABLE_REQUESTS, Requests
from trickroom.server.store import StoreUnavailable
from trickroom.server.tables.commands import ClientId, Disconnect, Who
from trickroom.server.tables.log import Shared
from trickroom.server.throttle import TokenBucket

log = logging.getLogger("trickroom.server")


class Connection:
    """One client socket: who it is, where it sits, and how much it has yet to read.

    Sending is synchronous: a message's frame goes straight into the socket's
    transport, with no task or queue per connection. A message for many clients
    (:class:`Shared`) is framed once and the same bytes go to each of them; this is
    what websockets' ``broadcast`` does, less the framing of every copy. What the
    client has not read yet waits in the transport's buffer; past ``outbox_bytes``
    the client is cut off instead of growing the server's memory.
    """

    remote = False  # a socket of this node (a cluster's stand-ins are another node's)

    def __init__(self, ws: ServerConnection, settings: ServerSettings, client_id: int = 0,
                 address: str = "?", here: Callable[[str], bool] = lambda table: True,
                 peer: str | None = None) -> None:
        self.ws = ws
        # Its loop, asked once: on Python 3.11 each asyncio.get_running_loop() is a getpid
        # system call, and sending is on every action's path (issue 40).
        self._loop: asyncio.AbstractEventLoop | None = None
        self.id = client_id  # how table machines name this connection
        self.name = ""
        self.guest = True
        # The client's address group, the key of its limits (proxies.py), and its own
        # address behind the host's proxies, which the logs name.
        self.address = address
        self.peer = address if peer is None else peer
        self.logins = 0  # register, login, guest or resume on this socket
        self.session = ""  # the hash of its session's token, once logged in
        self.tables: set[str] = set()  # the tables this connection sits at or watches
        self.bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
        self.chat_bucket = TokenBucket(settings.chat_per_second, settings.chat_burst)
        self.slowed = False  # told ``slowed`` since its messages last came within the rate
        self.outbox_bytes = settings.outbox_bytes
        self.closing = False
        self._pending: list[bytes] | None = None  # frames to write at the loop turn's end
        self._pending_bytes = 0  # their size (counted with the transport's in the outbox)
        self._here = here  # whether a table is still open (here, or relayed from elsewhere)
        self._who: Who | None = None
        # The language of its texts (server/languages.py): the handshake's Accept-Language
        # until a login or a setting says otherwise.
        request = getattr(ws, "request", None)
        self.accept_language = request.headers.get("Accept-Language") if request else None
        self.language: str = choose(None, None, self.accept_language)

    def send_text(self, text: str | Shared) -> None:
        """Send one message, unless the connection is closing (as ``broadcast`` skips it).

        The frames a connection is sent in one turn of the event loop go out in one write,
        at the end of the turn (issue 40): an action sends a player its answer and the
        table's event, or the event and its prompt, and each write is a system call (the
        largest single cost of an action in ``bench/profile.py``)."""
        if self._writable() is None:
            return
        frame = _frame_of(text, self.language)
        self._pending_bytes += len(frame)
        pending = self._pending
        if pending is None:
            self._pending = [frame]
            self._soon(self._flush)
        else:
            pending.append(frame)

    def send_many(self, messages: list[str | Shared]) -> None:
        """Send messages in order in one write: a rejoin's hundreds of missed events cost
        one system call, not hundreds."""
        if self._writable() is None:
            return
        language = self.language
        frames = [_frame_of(m, language) for m in messages]
        self._pending_bytes += sum(map(len, frames))
        if self._pending is None:
            self._pending = frames
            self._soon(self._flush)
        else:
            self._pending.extend(frames)

    def _soon(self, callback: Callable[[], None]) -> None:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        loop.call_soon(callback)

    def _flush(self) -> None:
        """Write the frames of this turn of the loop, in order, in one write."""
        frames, self._pending, self._pending_bytes = self._pending, None, 0
        ws = self.ws
        transport = ws.transport
        # Still open: a close handshake may have ended since the frames were queued (the
        # transport then refuses writes, and no data frame may follow a close frame).
        if frames and ws.protocol.state is State.OPEN and not transport.is_closing():
            transport.write(frames[0] if len(frames) == 1 else b"".join(frames))

    def _writable(self) -> asyncio.WriteTransport | None:
        """The transport, unless the connection is closing or is now cut off for not
        reading (past ``outbox_bytes`` unread)."""
        ws = self.ws
        if self.closing or ws.protocol.state is not State.OPEN:
            return None
        transport = ws.transport
        if transport.get_write_buffer_size() + self._pending_bytes > self.outbox_bytes:
            log.warning("closing slow consumer %s (%s)", self.name or "?", self.peer)
            self.close(1008, "slow consumer")
            return None
        return transport

    def close(self, code: int, reason: str) -> None:
        """Close the socket (its handler ends, and tells its tables)."""
        self.closing = True
        asyncio.get_running_loop().create_task(self.ws.close(code, reason))

    def joined(self, table_id: str) -> None:
        """Remember a table this connection is at (told when it closes), forgetting
        tables that have closed since, so a connection that watches game after game
        does not keep every table id it ever saw."""
        self.tables.add(table_id)
        if len(self.tables) > 16:
            self.tables = {t for t in self.tables if self._here(t)}

    def reply(self, message: ServerMessage) -> None:
        self.send_text(message.encode())

    @property
    def who(self) -> Who:
        """This connection as a table's command names its sender (made once per login)."""
        who = self._who
        if who is None or who.name != self.name or who.guest != self.guest:
            who = self._who = Who(self.id, self.name, self.guest, self.address)
        return who

    def error(self, exc: ProtocolError) -> None:
        METRICS.errors.labels(exc.code).inc()
        self.reply(exc.to_model(exc.language or self.language))


class Sessions:
    """Every socket of this node, from its handshake to its close."""

    def __init__(self, settings: ServerSettings, hub: Hub, lobby: Lobby, queues: Queues,
                 accounts: Accounts, requests: Requests, peers: Peers,
                 clients: dict[ClientId, Member]) -> None:
        self.settings = settings
        self.hub = hub
        self.lobby = lobby
        self.queues = queues
        self.accounts = accounts
        self.requests = requests
        self.peers = peers  # who a socket's client is, and the group its limits count
        self.clients = clients  # every open connection, by its id
        self.ids = itertools.count(1)
        self.per_ip: dict[str, int] = defaultdict(int)
        # One message budget for all of an address's sockets (on every node): opening more
        # sockets does not buy a flood more messages.
        self.address_budgets: dict[str, Budget] = {}
        self._here = self._open_here  # one bound method for every connection's use

    def number_from(self, first: int) -> None:
        """Number connections from ``first`` on (a cluster's nodes number apart)."""
        self.ids = itertools.count(first)

    async def admits(self, ip: str) -> bool:
        """Whether an address may open one more socket, over every node."""
        cap = self.settings.connections_per_ip
        here = self.per_ip.get(ip, 0)
        if here < cap:
            here += await self.hub.count_elsewhere("connections", ip)
        return here < cap

    def _count_connection(self, ip: str, change: int) -> int:
        """An address's open sockets here, after ``change`` (shared with other nodes)."""
        count = self.per_ip[ip] + change
        if count > 0:
            self.per_ip[ip] = count
        else:
            self.per_ip.pop(ip, None)
        self.hub.share_count("connections", ip, count)
        return count

    def _open_here(self, table_id: str) -> bool:
        return table_id in self.lobby.tables or self.hub.watching(table_id)

    # -- a socket's life ------------------------------------------------------------------

    async def handler(self, ws: ServerConnection) -> None:
        opened = await self._opened(ws)
        if opened is None:
            return
        conn, budget = opened
        try:
            async for frame in ws:
                # Over the rate (this socket's, or its address's), the message waits its
                # turn: the server reads this socket more slowly, the client's own sends
                # back up, and a flood costs the room nothing, refused or not.
                address_wait = budget.reserve()
                if address_wait is None:  # a shared budget: this node's credit is spent
                    address_wait = await budget.more()
                wait = max(conn.bucket.reserve(), address_wait)
                if wait > 0:
                    METRICS.messages_delayed.inc()
                    if not conn.slowed:  # said once a spell, not at every message
                        conn.slowed = True
                        conn.reply(self._slowed(wait, conn.language))
                    await asyncio.sleep(wait)
                elif conn.slowed:
                    conn.slowed = False
                message = None
                try:
                    message = parse_client_message(frame)
                    await self.dispatch(conn, message)
                except Exception as exc:
                    self._failed(conn, message, exc)
        except ConnectionClosed:
            pass
        finally:
            await self._closed(conn, conn.address)

    def _slowed(self, wait: float, language: str) -> Slowed:
        settings = self.settings
        return Slowed(wait=round(wait, 3), message=render(Msg(
            "you send faster than the server reads: {rate:g} messages a second on a "
            "connection (after {burst} at once), {address_rate:g} from one address (after "
            "{address_burst}); your messages now wait their turn (none is dropped)",
            rate=settings.messages_per_second, burst=settings.message_burst,
            address_rate=settings.messages_per_second_per_address,
            address_burst=settings.message_burst_per_address), language))

    async def _opened(self, ws: ServerConnection) -> tuple[Connection, Budget] | None:
        """A new socket, counted for its address (None: one too many, closed)."""
        peer = self.peers.address(ws, ws.request)
        ip = self.peers.group(peer)
        if self._count_connection(ip, 1) > self.settings.connections_per_ip:
            # Let in by a check that many handshakes passed at once: one too many.
            self._count_connection(ip, -1)
            log.info("refused a socket from %s: its group %s has too many", peer, ip)
            await ws.close(1013, "too many connections from one address")
            return None
        budget = self.address_budgets.get(ip)
        if budget is None:
            budget = self.address_budgets[ip] = self.hub.budget(
                ip, self.settings.messages_per_second_per_address,
                self.settings.message_burst_per_address)
        METRICS.connections.inc()
        conn = Connection(ws, self.settings, next(self.ids), ip, self._here, peer)
        self.clients[conn.id] = conn
        return conn, budget

    def _failed(self, conn: Connection, message: ClientMessage | None,
                exc: Exception) -> None:
        """A request that failed: its refusal, a pause of what is shared, or our fault."""
        rid = getattr(message, "id", None)  # every answer names its request
        if isinstance(exc, ProtocolError):
            if exc.request_id is None:
                exc.request_id = rid
            conn.error(exc)
        elif isinstance(exc, self.hub.away):
            conn.error(ProtocolError(
                "unavailable", Msg("the servers' shared state (Redis) is unreachable for a "
                                   "moment; nothing changed: send it again"), rid, retry_after=1.0))
        elif isinstance(exc, StoreUnavailable):
            log.warning("request %s: the database is unavailable: %s",
                        getattr(message, "type", "?"), exc)
            conn.error(ProtocolError(
                "unavailable", Msg("the database is unreachable for a moment: send it again"),
                rid, retry_after=1.0))
        else:
            log.error("request failed", exc_info=exc)
            conn.error(ProtocolError("internal", Msg("the server failed on that request"), rid))

    async def _closed(self, conn: Connection, ip: str) -> None:
        """The socket closed: its address's count, its subscriptions, its queues, its name
        and its seats (away now, each at its table) let go of it."""
        ws = conn.ws
        if conn.tables:
            log.info("%s's connection closed (code %s %s) at table(s) %s",
                     conn.name or "?", ws.close_code, ws.close_reason or "",
                     ", ".join(sorted(conn.tables)))
        if self._count_connection(ip, -1) == 0:
            self.address_budgets.pop(ip, None)
        METRICS.connections.dec()
        self.lobby.unsubscribe(conn)
        with contextlib.suppress(*self.hub.away):  # Redis away: the socket's close goes on
            await self.queues.closed(conn)
            if conn.guest and conn.name:  # a guest's ignore list is its connection's
                await self.hub.ignores_dropped(conn.name)
        self.accounts.logout(conn)
        elsewhere = []
        for table_id in list(conn.tables):
            table = self.lobby.tables.get(table_id)
            if table is not None:
                await table.call(Disconnect(conn.id))
            else:
                elsewhere.append(table_id)
        await self.hub.disconnected(conn, elsewhere)
        del self.clients[conn.id]

    async def dispatch(self, conn: Connection, msg: ClientMessage) -> None:
        rid = msg.id
        if isinstance(msg, Ping):
            conn.reply(Pong(id=rid))
            return
        if isinstance(msg, (Register, Login, Guest, Resume)):
            try:
                await self.accounts.authenticate(conn, msg)
            except ProtocolError as exc:
                exc.request_id = rid
                exc.language = msg.language  # a login refused speaks the language it asked
                raise
            return
        if isinstance(msg, ListRooms):
            asker = conn if conn.name else None  # a ranked room says why it is not theirs
            conn.reply(Rooms(id=rid, rooms=await self.lobby.rooms_info(asker)))
            return
        if isinstance(msg, (Logout, LogoutAll, ChangePassword, ListSessions, UpgradeToBot)):
            await self.accounts.manage(conn, msg)
            return
        if not conn.name:
            raise ProtocolError("not_authorized", Msg("log in, register or play as a guest first"),
                                rid)
        try:
            if type(msg) is Chat:  # here, where the client is, before any forwarding
                await self._may_chat(conn)
            table_id = getattr(msg, "table", None)
            if (table_id and type(msg) in TABLE_REQUESTS
                    and await self.hub.route(conn, msg, table_id)):
                return  # run by the node that runs the table (or its player sent there)
            await REQUESTS[type(msg)](self.requests, conn, msg)
        except ProtocolError as exc:
            exc.request_id = rid
            raise

    async def _may_chat(self, conn: Connection) -> None:
        """A chat line goes to every player or subscriber it is for: over the chat rate
        of the connection, of its address group or of its account, it is refused, so that
        a flood is not every reader's to receive. The address's and the account's rates are
        each one over every node (the hub's): more sockets, or sockets on another node, buy
        a flood nothing."""
        settings = self.settings
        wait = conn.chat_bucket.take()
        if not wait:
            wait = await self.hub.take("chat-address", conn.address,
                                       settings.chat_per_second_per_address,
                                       settings.chat_burst_per_address)
            if wait:
                conn.chat_bucket.give_back()  # refused all the same: its credit stays
        if wait:
            raise chat_refusal(Msg("too many chat messages"), wait)
        wait = await self.hub.take("chat-account", conn.name, settings.chat_per_second_per_account,
                                   settings.chat_burst_per_account)
        if wait:
            conn.chat_bucket.give_back()
            self.hub.give_back("chat-address", conn.address)
            raise chat_refusal(Msg("too many chat messages from your account"), wait)


def chat_refusal(what: str, wait: float) -> ProtocolError:
    """A chat line over a rate: ``retry_after`` rounded up, so that a client that waits
    that long is not refused again for a rounding."""
    up = math.ceil(wait * 100) / 100
    return ProtocolError("rate_limited", Msg("{what}; wait {seconds:.1f} s before the next",
                                             what=what, seconds=math.ceil(wait * 10) / 10),
                         retry_after=up)


def _frame_of(text: str | Shared, language: str = DEFAULT) -> bytes:
    """A message's frame; a shared message's is built once, by its first connection (of
    its language, when it holds texts for people)."""
    if isinstance(text, Shared):
        if text.localize is not None and language != DEFAULT:
            frames = text.frames
            if frames is None:
                frames = text.frames = {}
            frame = frames.get(language)
            if frame is None:
                frame = frames[language] = text_frame(text.localize(language))
            return frame
        frame = text.frame
        if frame is None:
            frame = text.frame = text_frame(text.data)
        return frame
    return text_frame(text.encode())


def text_frame(data: bytes) -> bytes:
    """A whole unmasked text frame, as a server sends it (no extension: the server turns
    compression off, so every client's frame of a message is the same bytes)."""
    return Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])

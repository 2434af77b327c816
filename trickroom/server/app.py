"""The server: one port for the web client, the read-only API, health, metrics and /ws.

HTTP paths are answered in the WebSocket server's ``process_request`` hook, so
everything shares one port and one event loop. Each socket gets a
:class:`Connection`: parse, rate-limit, dispatch to the lobby or a table, and
send straight into the socket's transport (a client that stops reading is cut
off instead of growing the server's memory).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import mimetypes
import os
import time
import unicodedata
from collections import defaultdict
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State

from trickroom.game.engine import rules_catalogue
from trickroom.game.review import review
from trickroom.ratings import SYSTEMS, Rating
from trickroom.server import auth, names
from trickroom.server.cluster.bus import REDIS_AWAY
from trickroom.server.cluster.limits import SharedBucket
from trickroom.server.cluster.node import Cluster, RemoteClient
from trickroom.server.collector import Collector
from trickroom.server.config import Config
from trickroom.server.lobby import Lobby
from trickroom.server.metrics import METRICS
from trickroom.server.names import GuestNames
from trickroom.server.passwords import Passwords
from trickroom.server.protocol import (
    Act,
    CastVote,
    Chat,
    ClientMessage,
    CreateTable,
    FillRobots,
    Guest,
    Ignore,
    ListRooms,
    ListTables,
    Login,
    Ok,
    Ping,
    PlayAgain,
    Pong,
    ProtocolError,
    Queue,
    Register,
    Rejoin,
    Resume,
    Rooms,
    ServerMessage,
    SettingsSaved,
    Sit,
    Stand,
    Start,
    TableCreated,
    Tables,
    Unqueue,
    Unwatch,
    Watch,
    Welcome,
    parse_client_message,
)
from trickroom.server.protocol import Settings as SettingsRequest
from trickroom.server.proxies import client_address, networks
from trickroom.server.ranked import Ranked
from trickroom.server.store import NameTaken, is_postgres, open_store
from trickroom.server.tables import commands as command
from trickroom.server.tables.commands import Disconnect, Who
from trickroom.server.tables.log import Shared
from trickroom.server.throttle import Backoff, TokenBucket

log = logging.getLogger("trickroom.server")
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"


# Unicode's explicit direction overrides and isolates: they make chat text read as
# something else (a name or a score turned around).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def default_db_path() -> Path:
    """The database under the user's data directory (XDG), created on first start."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "trickroom" / "trickroom.sqlite3"


class Connection:
    """One client socket: who it is, where it sits, and how much it has yet to read.

    Sending is synchronous: a message's frame goes straight into the socket's
    transport, with no task or queue per connection. A message for many clients
    (:class:`Shared`) is framed once and the same bytes go to each of them; this is
    what websockets' ``broadcast`` does, less the framing of every copy. What the
    client has not read yet waits in the transport's buffer; past ``outbox_bytes``
    the client is cut off instead of growing the server's memory.
    """

    remote = False  # a socket of this node (a cluster's RemoteClient is another node's)

    def __init__(self, ws: ServerConnection, app: App, client_id: int = 0,
                 address: str = "?") -> None:
        self.ws = ws
        self.app = app
        self.id = client_id  # how table machines name this connection
        self.name = ""
        self.guest = True
        self.address = address  # the client's, behind the host's proxies (server/proxies.py)
        self.logins = 0  # register, login, guest or resume on this socket
        self.tables: set[str] = set()  # the tables this connection sits at or watches
        settings = app.config.settings
        self.bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
        self.chat_bucket = TokenBucket(settings.chat_per_second, settings.chat_burst)
        self.outbox_bytes = settings.outbox_bytes
        self.closing = False
        self._who: Who | None = None

    def send_text(self, text: str | Shared) -> None:
        """Send one message, unless the connection is closing (as ``broadcast`` skips it)."""
        transport = self._writable()
        if transport is not None:
            transport.write(_frame_of(text))

    def send_many(self, messages: list[str | Shared]) -> None:
        """Send messages in order in one write: a rejoin's hundreds of missed events cost
        one system call, not hundreds."""
        transport = self._writable()
        if transport is not None:
            transport.write(b"".join([_frame_of(m) for m in messages]))

    def _writable(self) -> asyncio.WriteTransport | None:
        """The transport, unless the connection is closing or is now cut off for not
        reading (past ``outbox_bytes`` unread)."""
        ws = self.ws
        if self.closing or ws.protocol.state is not State.OPEN:
            return None
        transport = ws.transport
        if transport.get_write_buffer_size() > self.outbox_bytes:
            self.closing = True
            log.warning("closing slow consumer %s", self.name or ws.remote_address)
            asyncio.get_running_loop().create_task(ws.close(1008, "slow consumer"))
            return None
        return transport

    def joined(self, table_id: str) -> None:
        """Remember a table this connection is at (told when it closes), forgetting
        tables that have closed since, so a connection that watches game after game
        does not keep every table id it ever saw."""
        self.tables.add(table_id)
        if len(self.tables) > 16:
            cluster = self.app.cluster
            self.tables = {t for t in self.tables if t in self.app.lobby.tables
                           or (cluster is not None and cluster.watching(t))}

    def reply(self, message: ServerMessage) -> None:
        self.send_text(message.encode())

    @property
    def who(self) -> Who:
        """This connection as a table's command names its sender (made once per login)."""
        who = self._who
        if who is None or who.name != self.name or who.guest != self.guest:
            who = self._who = Who(self.id, self.name, self.guest)
        return who

    def error(self, exc: ProtocolError) -> None:
        METRICS.errors.labels(exc.code).inc()
        self.reply(exc.to_model())



class App:
    def __init__(self, config: Config, db_path: str | Path,
                 wall_clock: Callable[[], float] = time.time, cluster: str | None = None,
                 cluster_prefix: str = "trickroom") -> None:
        self.config = config
        self.store = open_store(db_path, durability=config.settings.durability)
        if cluster is not None and not is_postgres(db_path):
            raise ValueError("a cluster's nodes share one PostgreSQL store: give a "
                             "postgresql:// store with the cluster's Redis")
        self.cluster_url, self.cluster_prefix = cluster, cluster_prefix
        self.cluster: Cluster | None = None
        self.collector = Collector(config.settings.gc_freeze_seconds,
                                   config.settings.gc_full_seconds,
                                   freeze_above_ms=config.settings.gc_freeze_above_ms)
        self.ranked = Ranked(self.store, config.settings.min_games, wall_clock)
        self.clients: dict[int, Connection | RemoteClient] = {}  # every open connection, by its id
        self._ids = itertools.count(1)
        self.lobby = Lobby(config, self.store, self.ranked, self.clients,
                           wall_clock=wall_clock)
        self.server: Server | None = None
        self.per_ip: dict[str, int] = defaultdict(int)
        # One message budget for all of an address's sockets: opening more sockets does not
        # buy a flood more messages.
        self.address_buckets: dict[str, TokenBucket | SharedBucket] = {}
        self.chat_buckets: dict[str, TokenBucket] = {}  # by address, while it has sockets
        settings = config.settings
        self.passwords = Passwords(settings.password_profile, settings.password_workers,
                                   settings.password_queue)
        self.account_backoff = Backoff(settings.login_free_failures,
                                       settings.login_backoff_seconds,
                                       settings.login_backoff_max_seconds)
        self.address_backoff = Backoff(settings.login_free_failures_per_address,
                                       settings.login_backoff_seconds,
                                       settings.login_backoff_max_seconds)
        self.guests = GuestNames()
        self.trusted_proxies = networks(settings.trusted_proxies)

    async def start(self, host: str = "127.0.0.1", port: int = 8765) -> None:
        await self.store.open()
        if self.cluster_url is not None:
            self.cluster = Cluster(self, self.cluster_url, self.cluster_prefix,
                                   self.config.settings.lease_seconds,
                                   self.config.settings.forward_seconds)
            await self.cluster.start()
            self._ids = itertools.count(self.cluster.first_client_id())
            self.lobby.cluster = self.cluster
            self.guests.on_count = functools.partial(self._share, "guests")
            await self.cluster.scan()  # tables without an owner: taken at the next scan
            resumed = 0
        else:
            resumed = await self.lobby.restore()
        self.server = await serve(
            self.handler, host, port, process_request=self.process_request,
            max_size=self.config.settings.max_frame_bytes, compression=None,
            ping_interval=20, ping_timeout=20)
        self.collector.start()
        METRICS.logged_events.set_function(
            lambda: sum(len(t.machine.log) for t in self.lobby.tables.values()))
        log.info("serving on %s:%d, %d game(s) resumed", host, self.port, resumed)

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        """Stop the tables' timers and robots, close sockets, flush every pending write.

        Tables stop first: as sockets close, the robots that take over dropped seats
        would otherwise play on, and be cut off mid-action when the tables stopped.
        """
        await self.lobby.stop()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        if self.cluster is not None:  # the tables are flushed: other nodes may take them
            await self.cluster.stop()
        await self.store.close()
        await self.collector.stop()
        self.passwords.close()

    # -- HTTP --------------------------------------------------------------------------------

    async def process_request(self, connection: ServerConnection,
                              request: Request) -> Response | None:
        path, _, query = request.path.partition("?")
        if path == "/ws":
            origin = request.headers.get("Origin")
            if origin is not None and not self._origin_allowed(origin,
                                                               request.headers.get("Host")):
                log.warning("refused a socket from origin %s", origin)
                return _response(HTTPStatus.FORBIDDEN, f"origin {origin} may not open this "
                                 "server's socket\n".encode(), "text/plain")
            ip = self.address_of(connection, request)
            here = self.per_ip.get(ip, 0)
            if self.cluster is not None and here < self.config.settings.connections_per_ip:
                here += await self.cluster.limits.elsewhere("connections", ip)
            if here >= self.config.settings.connections_per_ip:
                return _response(HTTPStatus.TOO_MANY_REQUESTS, b"too many connections\n",
                                 "text/plain")
            return None
        if path == "/healthz":
            return _response(HTTPStatus.OK, b"ok\n", "text/plain")
        if path == "/metrics":
            return _response(HTTPStatus.OK, METRICS.render(), "text/plain; version=0.0.4")
        if path.startswith("/api/"):
            return await self.api(path, query)
        return self.static(path)

    def address_of(self, connection: ServerConnection, request: Request | None) -> str:
        """The client's address: the socket's peer, or behind a trusted proxy, the client
        it forwarded (``trusted_proxies``)."""
        peer = str(connection.remote_address[0]) if connection.remote_address else "?"
        if not self.trusted_proxies or request is None:
            return peer
        forwarded = ", ".join(request.headers.get_all("X-Forwarded-For"))
        return client_address(peer, forwarded, self.trusted_proxies)

    def _count_connection(self, ip: str, change: int) -> int:
        """An address's open sockets here, after ``change`` (shared with a cluster)."""
        count = self.per_ip[ip] + change
        if count > 0:
            self.per_ip[ip] = count
        else:
            self.per_ip.pop(ip, None)
        self._share("connections", ip, count)
        return count

    def _share(self, kind: str, key: str, count: int) -> None:
        """In a cluster, this node's count of something limited (per address, per account)
        goes to Redis, where the other nodes' checks add it to theirs."""
        if self.cluster is not None:
            self.cluster.limits.share(kind, key, count)

    def _origin_allowed(self, origin: str, host: str | None) -> bool:
        """A browser page may open the socket from the server's own origin or one the host
        allows (``allowed_origins``); a client without an Origin header (a bot) always may."""
        if origin in self.config.settings.allowed_origins:
            return True
        parsed = urlsplit(origin)
        return parsed.scheme in ("http", "https") and host is not None and parsed.netloc == host

    def shown(self, game: str, system: str, value: float, sigma: float | None) -> float:
        """A rating as players read it, by the system as this server's rooms use it (with
        the constants they adopted: Weng-Lin's scale depends on its beta)."""
        return round(self.config.rating_system(game, system).shown(
            Rating(value, sigma or 0.0)), 1)

    async def api(self, path: str, query: str) -> Response:
        params = {k: unquote(v) for k, v in (p.split("=", 1) for p in query.split("&")
                                             if "=" in p)}
        if path == "/api/rooms":
            counts = await self.cluster.room_counts() if self.cluster is not None else None
            return _json({"rooms": [r.model_dump() for r in self.lobby.rooms_info(counts)]})
        if path == "/api/rules":
            return _json({"rules": rules_catalogue()})
        if path == "/api/tables":
            room = params.get("room", "")
            if room not in self.lobby.rooms:
                return _json({"error": f"give room=NAME, one of: "
                                       f"{', '.join(sorted(self.lobby.rooms))}"},
                             HTTPStatus.NOT_FOUND)
            tables, total = (await self.cluster.room_tables(room) if self.cluster is not None
                             else self.lobby.tables_info(room))
            return _json({"tables": [t.model_dump() for t in tables], "total": total})
        if path.startswith("/api/games/"):
            record = await self.store.game(unquote(path.removeprefix("/api/games/")))
            if record is None:
                return _json({"error": "no finished game with that id"}, HTTPStatus.NOT_FOUND)
            # Replaying a long game takes tens of ms: off the loop, so no table waits for it.
            record["hands"] = await asyncio.to_thread(review, record["record"])
            return _json(record)
        if path == "/api/leaderboard":
            game, system = params.get("game", ""), params.get("system", "")
            if game not in ("spades", "hearts") or system not in SYSTEMS:
                return _json({"error": "give game=spades|hearts and system="
                                       + "|".join(sorted(SYSTEMS))}, HTTPStatus.BAD_REQUEST)
            board = await self.store.leaderboard(game, system,
                                                 self.config.settings.leaderboard_min_games)
            for entry in board:
                entry["shown"] = self.shown(game, system, entry["rating"], entry["sigma"])
            # Ranked by the number players read (Weng-Lin's conservative skill, not its mean).
            board.sort(key=lambda entry: -entry["shown"])
            return _json({"game": game, "system": system, "players": board})
        if path.startswith("/api/players/"):
            name = unquote(path.removeprefix("/api/players/"))
            player = await self.store.player(name) if names.valid_name(name) else None
            if player is None:
                return _json({"error": "no registered player by that name"},
                             HTTPStatus.NOT_FOUND)
            for entry in player["ratings"]:
                game, system = entry["game"], entry["system"]
                entry["shown"] = self.shown(game, system, entry["rating"], entry["sigma"])
                for point in entry["history"]:  # a point stored before sigma was kept: none
                    if point["sigma"] is not None:
                        point["shown"] = self.shown(game, system, point["value"],
                                                    point["sigma"])
            return _json(player)
        return _json({"error": f"no API path {path}"}, HTTPStatus.NOT_FOUND)

    def static(self, path: str) -> Response:
        relative = "index.html" if path in ("", "/") else path.lstrip("/")
        target = (WEB_ROOT / relative).resolve()
        if WEB_ROOT not in target.parents or not target.is_file():
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return _response(HTTPStatus.OK, target.read_bytes(), kind)

    # -- WebSocket -------------------------------------------------------------------------------

    async def handler(self, ws: ServerConnection) -> None:
        ip = self.address_of(ws, ws.request)
        if self._count_connection(ip, 1) > self.config.settings.connections_per_ip:
            # Let in by a check that many handshakes passed at once: one too many.
            self._count_connection(ip, -1)
            await ws.close(1013, "too many connections from one address")
            return
        settings = self.config.settings
        address_bucket = self.address_buckets.get(ip)
        if address_bucket is None:
            rate = settings.messages_per_second_per_address
            burst = settings.message_burst_per_address
            address_bucket = self.address_buckets[ip] = (
                TokenBucket(rate, burst) if self.cluster is None
                else SharedBucket(self.cluster.limits, ip, rate, burst))
        METRICS.connections.inc()
        conn = Connection(ws, self, next(self._ids), ip)
        self.clients[conn.id] = conn
        try:
            async for frame in ws:
                # Over the rate (this socket's, or its address's), the message waits its
                # turn: the server reads this socket more slowly, the client's own sends
                # back up, and a flood costs the room nothing, refused or not.
                address_wait = address_bucket.reserve()
                if address_wait is None:  # a cluster's: this node's credit is spent
                    assert isinstance(address_bucket, SharedBucket)
                    address_wait = await address_bucket.take()
                wait = max(conn.bucket.reserve(), address_wait)
                if wait > 0:
                    METRICS.messages_delayed.inc()
                    await asyncio.sleep(wait)
                message = None
                try:
                    message = parse_client_message(frame)
                    await self.dispatch(conn, message)
                except ProtocolError as exc:
                    conn.error(exc)
                except REDIS_AWAY:  # a cluster's Redis restarting: a pause, said plainly
                    conn.error(ProtocolError(
                        "unavailable", "the servers' shared state (Redis) is unreachable for "
                        "a moment; nothing changed: send it again",
                        getattr(message, "id", None), retry_after=1.0))
                except Exception:
                    log.exception("request failed")
                    conn.error(ProtocolError("internal", "the server failed on that request"))
        except ConnectionClosed:
            pass
        finally:
            if conn.tables:
                log.info("%s's connection closed (code %s %s) at table(s) %s",
                         conn.name or "?", ws.close_code, ws.close_reason or "",
                         ", ".join(sorted(conn.tables)))
            if self._count_connection(ip, -1) == 0:
                self.address_buckets.pop(ip, None)
                self.chat_buckets.pop(ip, None)
            METRICS.connections.dec()
            self.lobby.unsubscribe(conn)
            if self.cluster is not None and conn.name:  # out of any cluster queue it was in
                for room in self.lobby.rooms.values():
                    if room.rated:
                        with contextlib.suppress(Exception):
                            await self.cluster.queue_leave(conn, room.name, tell=False)
            self._logout(conn)
            elsewhere = []
            for table_id in list(conn.tables):
                table = self.lobby.tables.get(table_id)
                if table is not None:
                    await table.call(Disconnect(conn.id))
                else:
                    elsewhere.append(table_id)
            if self.cluster is not None:
                await self.cluster.disconnected(conn.id, elsewhere)
            del self.clients[conn.id]

    async def dispatch(self, conn: Connection, msg: ClientMessage) -> None:
        rid = msg.id
        if isinstance(msg, Ping):
            conn.reply(Pong(id=rid))
            return
        if isinstance(msg, (Register, Login, Guest, Resume)):
            try:
                await self.authenticate(conn, msg)
            except ProtocolError as exc:
                exc.request_id = rid
                raise
            return
        if isinstance(msg, ListRooms):
            counts = await self.cluster.room_counts() if self.cluster is not None else None
            conn.reply(Rooms(id=rid, rooms=self.lobby.rooms_info(counts)))
            return
        if not conn.name:
            raise ProtocolError("not_authorized", "log in, register or play as a guest first",
                                rid)
        try:
            if type(msg) is Chat:  # here, where the client is, before any forwarding
                self._may_chat(conn)
            table_id = getattr(msg, "table", None)
            if (self.cluster is not None and table_id and type(msg) in TABLE_REQUESTS
                    and table_id not in self.lobby.tables):
                if isinstance(msg, Unwatch):
                    conn.tables.discard(table_id)
                if await self.cluster.forward(conn, msg, table_id,
                                              joins=isinstance(msg, (Sit, Rejoin, Watch))):
                    return
            await REQUESTS[type(msg)](self, conn, msg)
        except ProtocolError as exc:
            exc.request_id = rid
            raise

    # -- the lobby's requests ----------------------------------------------------------------

    async def list_tables(self, conn: Connection, msg: ListTables) -> None:
        self.lobby.room(msg.room)
        self.lobby.subscribers[msg.room].add(conn)
        tables, total = (await self.cluster.room_tables(msg.room) if self.cluster is not None
                         else self.lobby.tables_info(msg.room))
        conn.reply(Tables(id=msg.id, room=msg.room, tables=tables, total=total))

    async def create_table(self, conn: Connection, msg: CreateTable) -> None:
        table = await self.lobby.new_table(msg.room, msg.rules, msg.seating, creator=conn)
        conn.reply(TableCreated(id=msg.id, table=table.machine.info()))

    async def queue(self, conn: Connection, msg: Queue) -> None:
        await self.lobby.queue_join(conn, msg.room, msg.id)

    async def unqueue(self, conn: Connection, msg: Unqueue) -> None:
        await self.lobby.queue_leave(conn, msg.room, msg.id)

    async def chat(self, conn: Connection, msg: Chat) -> None:
        text = msg.text.strip()
        if not text or not any(c.isprintable() and not c.isspace() for c in text):
            raise ProtocolError("invalid_field", "a chat message needs some visible text")
        if any(unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS for c in text):
            raise ProtocolError("invalid_field", "a chat message may not hold control "
                                "characters (line breaks, escapes, direction overrides)")
        if len(text) > self.config.settings.chat_max_chars:
            raise ProtocolError("too_long", f"chat messages are at most "
                                            f"{self.config.settings.chat_max_chars} characters")
        if msg.table:
            table = self.lobby.table(msg.table)
            await table.call(command.Chat(conn.who, msg.id, text,
                                         self.lobby.ignored_by(conn.name)))
        elif msg.room:
            self.lobby.room_chat(conn, msg.room, text)
            conn.reply(Ok(id=msg.id))
        else:
            raise ProtocolError("invalid_field", "chat needs a 'table' or a 'room'")

    def _may_chat(self, conn: Connection) -> None:
        """A chat line goes to every player or subscriber it is for: over the chat rate
        of the connection or of its address, it is refused, so that a flood is not every
        reader's to receive."""
        settings = self.config.settings
        by_address = self.chat_buckets.get(conn.address)
        if by_address is None:
            by_address = self.chat_buckets[conn.address] = TokenBucket(
                settings.chat_per_second_per_address, settings.chat_burst_per_address)
        wait = conn.chat_bucket.take()
        if not wait:
            wait = by_address.take()
            if wait:
                conn.chat_bucket.give_back()  # refused all the same: its credit stays
        if wait:
            raise ProtocolError("rate_limited", f"too many chat messages; wait {wait:.1f} s "
                                "before the next", retry_after=round(wait, 2))

    async def settings(self, conn: Connection, msg: SettingsRequest) -> None:
        if conn.guest:
            raise ProtocolError("not_authorized", "guests have no settings; register first")
        if not msg.rank_me and not msg.confirm:
            raise ProtocolError(
                "confirm_required",
                "turning \"rank me\" off bans you from ranked play for a week and resets "
                "your ratings to the start value: send again with \"confirm\": true")
        until = await self.ranked.set_rank_me(conn.name, msg.rank_me)
        conn.reply(SettingsSaved(id=msg.id, rank_me=msg.rank_me,
                                 banned_until=until or None))

    async def ignore(self, conn: Connection, msg: Ignore) -> None:
        if msg.on:
            self.lobby.ignores[conn.name].add(msg.name)
        else:
            self.lobby.ignores[conn.name].discard(msg.name)
        conn.reply(Ok(id=msg.id))

    # -- a table's requests: each becomes one command for its machine --------------------------

    async def sit(self, conn: Connection, msg: Sit) -> None:
        table = self.lobby.table(msg.table)
        refusal = None
        if table.machine.room.rated:
            refusal = await self.ranked.refusal(conn.name, conn.guest)
        await table.call(command.Sit(conn.who, msg.id, msg.seat, refusal))
        conn.joined(table.id)

    async def rejoin(self, conn: Connection, msg: Rejoin) -> None:
        table = self.lobby.table(msg.table)
        conn.joined(table.id)
        await table.call(command.Rejoin(conn.who, msg.id, msg.seat_token, msg.last_seq))

    async def watch(self, conn: Connection, msg: Watch) -> None:
        table = self.lobby.table(msg.table)
        conn.joined(table.id)
        await table.call(command.Watch(conn.who, msg.id))

    async def unwatch(self, conn: Connection, msg: Unwatch) -> None:
        table = self.lobby.table(msg.table)
        conn.tables.discard(table.id)
        await table.call(command.Unwatch(conn.who, msg.id))

    async def stand(self, conn: Connection, msg: Stand) -> None:
        await self.lobby.table(msg.table).call(command.Stand(conn.who, msg.id))

    async def fill_robots(self, conn: Connection, msg: FillRobots) -> None:
        await self.lobby.table(msg.table).call(command.Fill(conn.who, msg.id, msg.level))

    async def start_game(self, conn: Connection, msg: Start) -> None:
        await self.lobby.table(msg.table).call(command.Start(conn.who, msg.id))

    async def play_again(self, conn: Connection, msg: PlayAgain) -> None:
        await self.lobby.table(msg.table).call(command.PlayAgain(conn.who, msg.id))

    async def act(self, conn: Connection, msg: Act) -> None:
        await self.lobby.table(msg.table).call(command.Act(conn.who, msg.id, msg.action))

    async def vote(self, conn: Connection, msg: CastVote) -> None:
        await self.lobby.table(msg.table).call(
            command.CastVote(conn.who, msg.id, msg.vote, msg.choice))

    async def authenticate(self, conn: Connection,
                           msg: Register | Login | Guest | Resume) -> None:
        """Log a connection in. Passwords are checked off the loop (server/passwords.py),
        behind a back-off per account and per address (server/throttle.py)."""
        rid = msg.id
        settings = self.config.settings
        if any(self.lobby.tables[t].machine.seat_of(conn.id) for t in conn.tables
               if t in self.lobby.tables):
            raise ProtocolError("invalid_field", "you sit at a table as "
                                f"{conn.name}; stand up before logging in as someone else", rid)
        if conn.logins >= settings.logins_per_connection:
            raise ProtocolError("rate_limited", f"at most {settings.logins_per_connection} "
                                "logins on one connection; open a new one", rid)
        if isinstance(msg, Register):
            refusal = names.account_name_refusal(msg.name)
            if refusal:
                raise ProtocolError("invalid_field", refusal, rid)
            await self._throttled(conn, None)  # an address that is guessing may not register
            try:
                await self.store.create_user(msg.name, await self.passwords.hash(msg.password))
            except NameTaken:
                raise ProtocolError("name_taken", f"the name {msg.name!r} is taken", rid) from None
            name, guest = msg.name, False
        elif isinstance(msg, Login):
            name = await self._check_login(conn, msg)
            guest = False
        elif isinstance(msg, Guest):
            name = await self._new_guest(conn, msg.name)
            guest = True
        else:
            session = await self.store.session(auth.token_hash(msg.token))
            if session is None:
                raise ProtocolError("not_authorized", "that session token is not valid", rid)
            name, guest, made = session
            if guest and made < time.time() - settings.guest_session_seconds:
                raise ProtocolError("not_authorized", "that guest session has expired (guest "
                                    "names are kept for an hour after the last login); play "
                                    "as a new guest", rid)
            if guest:
                self.guests.attach(name, conn.address)
                if self.cluster is not None:
                    with contextlib.suppress(*REDIS_AWAY):  # the name is held already
                        await self.cluster.reserve_guest(name, settings.guest_session_seconds,
                                                         renew=True)
        token = auth.new_token()
        await self.store.create_session(auth.token_hash(token), name, guest)
        self._logout(conn)
        conn.name, conn.guest = name, guest
        conn.logins += 1
        conn.reply(Welcome(id=rid, name=name, guest=guest, session=token))

    async def _throttled(self, conn: Connection, account: str | None) -> None:
        """Refuse, without checking anything, while the account or address waits (in a
        cluster, by every node's count: a second node is no way around it)."""
        now = time.monotonic()
        waits = [self.address_backoff.wait(conn.address, now)]
        if account is not None:
            waits.append(self.account_backoff.wait(account.lower(), now))
        if self.cluster is not None:
            waits.append(await self.cluster.limits.backoff_wait("address", conn.address))
            if account is not None:
                waits.append(await self.cluster.limits.backoff_wait("account", account))
        wait = max(waits)
        if wait > 0:
            METRICS.logins_throttled.inc()
            raise ProtocolError("rate_limited", f"too many failed logins; try again in "
                                f"{wait:.0f} s", retry_after=round(wait, 1))

    async def _check_login(self, conn: Connection, msg: Login) -> str:
        await self._throttled(conn, msg.name)
        found = await self.store.user_hash(msg.name)
        stored = found[1] if found else None
        if not await self.passwords.verify(msg.password, stored) or found is None:
            now = time.monotonic()
            self.account_backoff.failed(msg.name.lower(), now)
            self.address_backoff.failed(conn.address, now)
            if self.cluster is not None:
                limits = self.cluster.limits
                await limits.backoff_failed("account", msg.name, self.account_backoff)
                await limits.backoff_failed("address", conn.address, self.address_backoff)
            raise ProtocolError("bad_credentials", "wrong name or password")
        self.account_backoff.succeeded(msg.name.lower())
        if self.cluster is not None:
            self.cluster.limits.backoff_succeeded("account", msg.name)
        if self.passwords.needs_rehash(found[1]):
            await self.store.set_password(found[0], await self.passwords.hash(msg.password))
        return found[0]

    async def _new_guest(self, conn: Connection, wanted: str | None) -> str:
        settings = self.config.settings
        cap = settings.guests_per_address
        refusal = ProtocolError("rate_limited", f"at most {cap} guests at once from one "
                                "address; register, or close a guest's connection first")
        if self.guests.per_address[conn.address] >= cap:
            raise refusal
        recent = time.time() - settings.guest_session_seconds
        for name in self.guests.candidates(wanted):
            if not self.guests.reclaim(name, self._seated):
                continue
            # Now, before any await: no one else gets the name, and the address's guests
            # being made at the same moment count this one.
            self.guests.take(name, conn.address)
            if self.cluster is not None and (
                    self.guests.per_address[conn.address]
                    + await self.cluster.limits.elsewhere("guests", conn.address) > cap):
                self.guests.release(name)
                raise refusal
            try:
                if (self.cluster is not None and not await self.cluster.reserve_guest(
                        name, settings.guest_session_seconds)):
                    self.guests.release(name)  # another node's guest has it
                    continue
            except REDIS_AWAY:  # the name cannot be held for the cluster: not given out
                self.guests.release(name)
                raise
            if (await self.store.guest_session_since(name, recent)
                    or await self.store.user_hash(name) is not None):
                self.guests.release(name)
                continue
            await self.store.end_guest_sessions(name)
            return name
        raise ProtocolError("name_taken", "no guest name is free; ask for another name")

    def _seated(self, name: str) -> bool:
        """Whether a seat at some table belongs to ``name`` (a player away keeps it)."""
        return name in self.lobby.seated

    def _logout(self, conn: Connection) -> None:
        """The connection stops being who it was (it closed, or logged in anew)."""
        if conn.name and conn.guest:
            self.guests.detach(conn.name, self._seated)
        conn.name, conn.guest = "", True


Handler = Callable[[App, Connection, Any], Awaitable[None]]
REQUESTS: dict[type, Handler] = {
    ListTables: App.list_tables,
    CreateTable: App.create_table,
    Sit: App.sit,
    Rejoin: App.rejoin,
    Watch: App.watch,
    Unwatch: App.unwatch,
    Stand: App.stand,
    FillRobots: App.fill_robots,
    Start: App.start_game,
    PlayAgain: App.play_again,
    Act: App.act,
    Chat: App.chat,
    Queue: App.queue,
    Unqueue: App.unqueue,
    CastVote: App.vote,
    SettingsRequest: App.settings,
    Ignore: App.ignore,
}
"""Every request after logging in, by its message type: one handler each."""

TABLE_REQUESTS = frozenset({Sit, Rejoin, Watch, Unwatch, Stand, FillRobots, Start, PlayAgain,
                            Act, CastVote, Chat})
"""The requests for one table: in a cluster, run by the node that owns the table."""


# Every response: the page runs only its own scripts and styles (no inline script, so
# an injected one does not run), talks only to this server, and is framed by no one.
SECURITY_HEADERS = (
    ("Content-Security-Policy",
     "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
     "frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
)


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-store"), *SECURITY_HEADERS])
    return Response(status.value, status.phrase, headers, body)


def _frame_of(text: str | Shared) -> bytes:
    """A message's frame; a shared message's is built once, by its first connection."""
    if isinstance(text, Shared):
        frame = text.frame
        if frame is None:
            frame = text.frame = text_frame(text.data)
        return frame
    return text_frame(text.encode())


def text_frame(data: bytes) -> bytes:
    """A whole unmasked text frame, as a server sends it (no extension: the server turns
    compression off, so every client's frame of a message is the same bytes)."""
    return Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])


def _json(data: Any, status: HTTPStatus = HTTPStatus.OK) -> Response:
    return _response(status, json.dumps(data).encode(), "application/json")

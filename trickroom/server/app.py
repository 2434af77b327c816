"""The server: one port for the web client, the read-only API, health, metrics and /ws.

:class:`App` only wires the parts, each a module named after its job:

* :mod:`.routes`: HTTP on the socket's port (the client, the API, health, metrics);
* :mod:`.readiness`: whether the node should be sent players now (``/readyz``);
* :mod:`.sessions`: each socket's life, its limits, and where its messages go;
* :mod:`.accounts`: registering, logging in, guests;
* :mod:`.requests`: what a logged-in client may ask, one handler each;
* :mod:`.lobby` and :mod:`.queues`: the rooms, their tables, the random queues;
* :mod:`.hub`: what the nodes of a server share, picked once here: a server of one
  process (the default) or a node of a cluster joined by Redis (``cluster``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path

from websockets.asyncio.server import Server, serve

from trickroom.server import logs
from trickroom.server.accounts import Accounts
from trickroom.server.analysis import Analyses
from trickroom.server.challenges import Challenges
from trickroom.server.collector import Collector
from trickroom.server.config import Config
from trickroom.server.friends import Follows
from trickroom.server.heap import HeapTrimmer
from trickroom.server.hub import open_hub
from trickroom.server.hub.port import Member
from trickroom.server.ignores import Ignores
from trickroom.server.lobby import Lobby
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import ClientMessage, TableInfo
from trickroom.server.proxies import Peers, networks
from trickroom.server.queues import Queues
from trickroom.server.ranked import Ranked
from trickroom.server.readiness import Readiness
from trickroom.server.requests import Requests
from trickroom.server.retention import Retention
from trickroom.server.routes import Routes, SecuredConnection
from trickroom.server.sessions import Sessions, log
from trickroom.server.store import StoredGame, open_store
from trickroom.server.tables.commands import ClientId, Disconnect
from trickroom.server.tables.log import Shared
from trickroom.server.tables.state import Phase


def default_db_path() -> Path:
    """The database under the user's data directory (XDG), created on first start."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "trickroom" / "trickroom.sqlite3"


class App:
    """One node: its store, its hub, its lobby, its sockets and its routes, wired."""

    def __init__(self, config: Config, db_path: str | Path,
                 wall_clock: Callable[[], float] = time.time, cluster: str | None = None,
                 cluster_prefix: str = "trickroom") -> None:
        settings = config.settings
        self.config = config
        self.store = open_store(db_path, durability=settings.durability,
                                commit_window=settings.postgres_commit_window_ms / 1000)
        self.hub = open_hub(cluster, cluster_prefix, self.store, settings)
        self.retention = Retention(self.store, settings.keep_moves_seconds, sessions=(
            settings.session_idle_seconds, settings.guest_session_seconds))
        self.collector = Collector(settings.gc_freeze_seconds, settings.gc_full_seconds,
                                   freeze_above_ms=settings.gc_freeze_above_ms,
                                   freeze_above_objects=settings.gc_freeze_above_objects)
        self.heap = HeapTrimmer(settings.heap_trim_seconds)
        self.ranked = Ranked(self.store, settings.min_games, wall_clock)
        self.clients: dict[ClientId, Member] = {}  # every connection, and other nodes' stand-ins
        self.lobby = Lobby(config, self.store, self.ranked, self.hub, self.clients,
                           wall_clock=wall_clock)
        self.queues = Queues(self.hub, self.lobby, self.ranked)
        self.ignores = Ignores(self.store, self.hub, settings.ignores_per_player)
        self.follows = Follows(self.store, self.hub, self.lobby, settings.follows_per_player)
        self.lobby.on_seats = self.follows.changed
        self.accounts = Accounts(settings, self.store, self.hub, self.ignores,
                                 seated=lambda name: name in self.lobby.seated,
                                 in_game=self._in_game, follows=self.follows)
        self.challenges = Challenges(settings, self.hub, self.lobby, self.follows)
        self.analyses = Analyses(settings, self.store, self.lobby.table_open)
        self.lobby.on_ranked_end = self.analyses.ranked_ended
        self.requests = Requests(settings, self.hub, self.lobby, self.queues, self.ranked,
                                 self.ignores, self.follows, self.challenges, self.analyses)
        peers = Peers(networks(settings.trusted_proxies), settings.ipv4_prefix,
                      settings.ipv6_prefix)
        self.sessions = Sessions(settings, self.hub, self.lobby, self.queues, self.accounts,
                                 self.requests, peers, self.clients)
        self.readiness = Readiness(self.store.ping, self.hub.unready)
        self.routes = Routes(config, self.store, self.lobby, self.sessions.admits, peers,
                             self.readiness.problems, self.analyses)
        self.passwords, self.guests = self.accounts.passwords, self.accounts.guests
        self.server: Server | None = None

    def _in_game(self, conn: Member) -> bool:
        """Whether a connection sits at a table of this node."""
        tables = self.lobby.tables
        return any(tables[t].machine.seat_of(conn.id) for t in conn.tables if t in tables)

    async def start(self, host: str = "127.0.0.1", port: int = 8765) -> None:
        await self.store.open()
        await self.hub.start(_Node(self))
        logs.NODE["id"] = self.hub.node_name()
        self.sessions.number_from(self.hub.first_client_id())
        resumed = await self.hub.resume_tables()
        METRICS.tables.set(len(self.lobby.tables))
        self.server = await serve(
            self.sessions.handler, host, port, process_request=self.routes.process_request,
            max_size=self.config.settings.max_frame_bytes, compression=None,
            ping_interval=20, ping_timeout=20, create_connection=SecuredConnection,
            open_timeout=None)  # each connection holds its own (routes.SecuredConnection)
        self.routes.origins.listening(host, self.port)
        self.collector.start()
        self.heap.start()
        self.retention.start()
        self.analyses.start()
        METRICS.logged_events.set_function(
            lambda: sum(len(t.machine.log) for t in self.lobby.tables.values()))
        log.info("serving on %s:%d, %d game(s) resumed", host, self.port, resumed)

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.sockets[0].getsockname()[1])

    async def drain(self) -> int:
        """Take no new players and no new table, and hand every table to the other nodes
        between two moves (a cluster's rolling deploy drops no one); at most
        ``drain_seconds``. How many tables went (0 on a server of one process: its tables
        stop with it, flushed, and resume at its next start)."""
        self.readiness.draining = self.lobby.draining = True
        METRICS.draining.set(1)
        bound = self.config.settings.drain_seconds
        tables, handed = len(self.lobby.tables), 0
        try:
            async with asyncio.timeout(bound):
                while True:
                    # A game in play goes at once (between two moves); a table between
                    # games goes once its next game starts: another node takes a table
                    # over from its game in the store.
                    playing = [t for t, runner in self.lobby.tables.items()
                               if runner.machine.state.phase is Phase.PLAYING]
                    if playing:
                        given = await self.hub.hand_over(playing)
                        if not given:
                            break  # no other node: the tables stop with this one
                        handed += given
                    if not any(seat.kind == "human"
                               for runner in self.lobby.tables.values()
                               for seat in runner.machine.state.seats):
                        break  # nobody waits at what is left
                    await asyncio.sleep(0.05)
        except TimeoutError:
            log.warning("drain: %d table(s) were not handed over within %g s (no game "
                        "started at them); they close here", len(self.lobby.tables), bound)
        if handed:
            log.info("drain: handed %d of %d table(s) to other nodes", handed, tables)
        return handed

    async def stop(self) -> None:
        """Stop the tables' timers and robots, close sockets, flush every pending write.

        Tables stop first: as sockets close, the robots that take over dropped seats
        would otherwise play on, and be cut off mid-action when the tables stopped.
        """
        await self.retention.stop()
        await self.analyses.close()
        await self.lobby.stop()
        self.routes.exports.stop()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
        await self.hub.stop()  # the tables are flushed: other nodes may take them
        await self.store.close()
        await self.collector.stop()
        await self.heap.stop()
        self.accounts.close()


class _Node:
    """The :class:`~trickroom.server.hub.port.Host` an app's hub serves."""

    def __init__(self, app: App) -> None:
        self.app = app

    @property
    def clients(self) -> MutableMapping[ClientId, Member]:
        return self.app.clients

    def has_table(self, table_id: str) -> bool:
        return table_id in self.app.lobby.tables

    def url(self) -> str | None:
        url = self.app.config.settings.node_url
        server = self.app.server
        if url is None or server is None or not server.sockets:  # not serving, or stopped
            return None
        return url.replace("{port}", str(self.app.port))

    def listed(self) -> Iterable[TableInfo]:
        return self.app.lobby.listed()

    def subscribers(self, room: str) -> Iterable[Member]:
        return self.app.lobby.subscribers.get(room, ())

    def presence_pushed(self, name: str) -> None:
        self.app.follows.pushed(name)

    def to_account(self, name: str, message: Shared) -> None:
        for conn in self.app.follows.connections(name):
            conn.send_text(message)

    async def resume(self, stored: StoredGame) -> None:
        await self.app.lobby.resume(stored)

    async def let_go(self, table_id: str) -> None:
        await self.app.lobby.let_go(table_id)

    async def hand_off(self, table_id: str) -> bool:
        return await self.app.lobby.hand_off(table_id)

    async def disconnect(self, table_id: str, client: ClientId) -> None:
        table = self.app.lobby.tables.get(table_id)
        if table is not None:
            await table.call(Disconnect(client))

    async def run(self, client: Member, message: ClientMessage) -> None:
        await self.app.requests.run(client, message)

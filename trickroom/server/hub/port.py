"""The hub port: everything the nodes of one server share, as one typed interface.

A trickroom server is one node or several (DESIGN section 11). What nodes share
goes through a :class:`Hub`: who owns which table and how a request reaches it,
the rooms' listings and their chat, the ignore lists, the ranked queues, the
guests' names, and the limits that a second node must be no way around. The
rest of the server asks the hub and never asks whether it is in a cluster:
:class:`~trickroom.server.hub.local.LocalHub` is a cluster of one (every
question answered from this process's memory, "elsewhere" always empty) and
:class:`~trickroom.server.hub.redis.RedisHub` shares the same answers through
Redis. One contract suite (``tests/server/hub``) runs on both.

The hub carries only what must cross between nodes: the node's own work (its
tables, its sockets, its subscribers) stays the node's. A hub learns what it
needs of the node through the small :class:`Host` it is started with, never
through the application object, so no import runs back up from the hub.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from trickroom.server.protocol import ClientMessage, ProtocolError, ServerMessage, TableInfo
from trickroom.server.store import Fence, StoredGame
from trickroom.server.tables.commands import ClientId, Who
from trickroom.server.tables.log import Shared

Batch = list[tuple[list[ClientId], "str | Shared"]]
"""What one command of a table sends to clients of other nodes: each message with its
clients, in order."""


class Member(Protocol):
    """A connection as the lobby, the tables and the hub know it: a socket of this node,
    or (in a cluster) a stand-in for another node's."""

    id: ClientId
    name: str
    guest: bool
    address: str  # the client's address group, the key of its limits (server/proxies.py)
    tables: set[str]  # the tables it sits at or watches
    remote: bool  # a client of another node of a cluster
    language: str  # the language of its texts (trickroom/i18n)

    @property
    def who(self) -> Who: ...

    def send_text(self, text: str | Shared) -> None: ...

    def send_many(self, messages: list[str | Shared]) -> None: ...

    def joined(self, table_id: str) -> None: ...

    def reply(self, message: ServerMessage) -> None: ...

    def error(self, exc: ProtocolError) -> None: ...

    def close(self, code: int, reason: str) -> None:
        """Close the connection (a stand-in for another node's has nothing to close)."""


class Host(Protocol):
    """What a hub needs of the node it runs in."""

    @property
    def clients(self) -> MutableMapping[ClientId, Member]:
        """Every connection this node's tables may send to, by id (a hub adds stand-ins
        for other nodes' clients)."""

    def has_table(self, table_id: str) -> bool:
        """Whether this node runs the table now."""

    def url(self) -> str | None:
        """Where players reach this node directly (its ``node_url``, with ``{port}`` the
        port it serves on), once it serves; None: they don't."""

    def listed(self) -> Iterable[TableInfo]:
        """This node's tables as the lobby lists them."""

    def subscribers(self, room: str) -> Iterable[Member]:
        """This node's connections subscribed to a room's list and chat."""

    def to_account(self, name: str, message: Shared) -> None:
        """Send ``message`` to every connection of this node logged in as ``name``."""

    def presence_pushed(self, name: str) -> None:
        """The account ``name``'s presence changed on some node: tell this node's
        connections that follow it (they ask :meth:`Hub.presence`)."""

    async def resume(self, stored: StoredGame) -> None:
        """Run a stored, unfinished game's table here (a take-over)."""

    async def let_go(self, table_id: str) -> None:
        """Stop running a table another node now owns; its players are the new owner's."""

    async def hand_off(self, table_id: str) -> bool:
        """Stop running a table to hand it to another node, once the command in hand is
        done, if its game is still in play (another node resumes a table from its game in
        the store); False, and the table runs on here, if the game just ended."""

    async def disconnect(self, table_id: str, client: ClientId) -> None:
        """Another node's client at a table here has closed."""

    async def run(self, client: Member, message: ClientMessage) -> None:
        """Run a request for a client as if it were this node's own (raises
        ``ProtocolError`` with the refusal)."""


class Budget(Protocol):
    """An address group's message budget (a token bucket, shared or not)."""

    def reserve(self) -> float | None:
        """Take one message's credit: the seconds its sender waits, or None when the
        credit must be fetched first (:meth:`more`)."""

    async def more(self) -> float:
        """Fetch credit for this message (and a few after it); the seconds it waits."""


@dataclass(frozen=True, slots=True)
class Presence:
    """Where a registered player is, as one node sees it: connected (``online``), and the
    table they sit at (its room and game; a private table's id is never told)."""

    online: bool = True
    table: str | None = None
    room: str | None = None
    game: str | None = None
    private: bool = False

    def merged(self, other: Presence) -> Presence:
        """Two nodes' views of one player: online on either, at a table of either."""
        return self if self.room is not None or other.room is None else other


OFFLINE = Presence(online=False)


@dataclass(frozen=True, slots=True)
class Queued:
    """A player in a room's random queue, on whichever node its connection is (the
    client's id says which)."""

    client: ClientId
    name: str
    guest: bool
    address: str
    at: float  # wall time it joined


class Hub(Protocol):
    """Everything nodes share; the application picks one at start (``open_hub``)."""

    away: tuple[type[Exception], ...]
    """What a call may raise while what is shared is out of reach for a moment (a
    restarting Redis): nothing changed, and the request may be sent again."""

    # -- life -------------------------------------------------------------------------------

    async def start(self, host: Host) -> None:
        """Join (a cluster): from now on the hub may call ``host``."""

    def first_client_id(self) -> int:
        """Where this node numbers its connections from (unique over the cluster)."""

    def description(self) -> str:
        """What this node is, as the host reads it at start (no secret in it)."""

    def node_name(self) -> str:
        """This node in every log line it writes (a cluster's logs are read together)."""

    async def resume_tables(self) -> int:
        """Run the unfinished games this node is to run (a restart's, or those no node
        holds); how many were resumed at once."""

    async def stop(self) -> None:
        """Leave: the tables (stopped and flushed before) are free for other nodes."""

    async def hand_over(self, tables: Sequence[str]) -> int:
        """Give these tables of this node to other nodes between two moves (a drain): each
        stops once its move in hand is stored, another node takes it over from the store
        at once, and its players here are told to rejoin. How many went (0: there is no
        other node; they stay, and stop with the node)."""

    async def unready(self) -> str | None:
        """Why this node cannot serve its share of the tables now (what is shared does
        not answer, or this node cannot prove its tables its own); None: it can."""

    # -- tables: ownership and routing ------------------------------------------------------

    async def claim(self, table_id: str) -> bool:
        """Become the owner of a new table; False if another node holds it."""

    async def fence(self, table_id: str) -> Fence | None:
        """The fencing token a write for the table carries (None: no fencing needed);
        waits while this node cannot tell that it still owns its tables, and raises
        ``StaleOwner`` if it does not own this one."""

    def lost(self, table_id: str, why: str) -> None:
        """The store refused a write of the table as no longer this node's: let it go."""

    def table_closed(self, table_id: str) -> None:
        """A table of this node closed."""

    def relay(self, table_id: str, batch: Batch) -> None:
        """Send what one command of a table says to other nodes' clients."""

    async def route(self, client: Member, message: ClientMessage, table_id: str) -> bool:
        """Where a request for a table runs: False, here (this node runs the table, its
        lease proved, or no node does: refused as no such table); True, it was run by
        the node that does, or its client was told to go there (``moved``, raised as
        :class:`~trickroom.server.protocol.TableMoved`)."""

    def watching(self, table_id: str) -> bool:
        """Whether this node relays a table of another node to its own connections."""

    async def disconnected(self, client: Member, tables: Sequence[str]) -> None:
        """A connection of this node closed while at ``tables`` of other nodes."""

    # -- rooms: listings, chat and ignores --------------------------------------------------

    def table_changed(self, info: TableInfo, removed: bool) -> None:
        """A table of this node changed (or closed): its room's listing follows at once."""

    def tables_pushed(self, updates: Sequence[tuple[str, Shared]]) -> None:
        """The lobby's beat pushed these ``table_update`` messages (each with its room) to
        this node's subscribers: other nodes push them to theirs."""

    async def room_tables(self, room: str, limit: int) -> tuple[list[TableInfo], int]:
        """At most ``limit`` of a room's open tables (every node's), waiting ones first,
        then playing, then over; and how many there are in all."""

    async def room_listings(self, room: str, tables: Iterable[str]) -> list[TableInfo]:
        """These tables' listings in a room, wherever they run (those not open in the
        room are left out): what a player is shown of its own tables however far down
        the room's list they are."""

    async def room_counts(self, rooms: Iterable[str]) -> dict[str, int]:
        """How many tables each room has open over every node."""

    def room_chat(self, room: str, message: Shared, ignored_by: frozenset[str]) -> None:
        """A chat line this node's subscribers of ``room`` got: other nodes' get it too,
        except those whose accounts are in ``ignored_by``."""

    async def ignore(self, name: str, other: str, on: bool, most: int) -> bool:
        """``name`` ignores (or stops ignoring) ``other``'s chat, on every node; False
        (and nothing changed) if ``name`` ignores ``most`` others already."""

    async def ignores_dropped(self, name: str) -> None:
        """Forget whom ``name`` ignores (a guest's list ends with its connection)."""

    async def ignores_restored(self, name: str, others: Iterable[str]) -> None:
        """``name`` ignores ``others`` and no one else, on every node (a registered
        player's list, as the store keeps it, at each login)."""

    async def ignored_by(self, name: str) -> frozenset[str]:
        """The accounts that ignore ``name`` (read from an index by the ignored name, in
        the time of that set, never of every list)."""

    # -- the ranked queues ------------------------------------------------------------------

    async def queue_add(self, room: str, entry: Queued) -> bool:
        """Queue a player; False if that account is queued in the room already."""

    async def queue_remove(self, room: str, name: str) -> None: ...

    async def queued(self, room: str) -> tuple[list[Queued], list[float]]:
        """A room's queue in the order it joined, and the times of its last joins."""

    def matcher(self, room: str) -> AbstractAsyncContextManager[bool]:
        """Held while a room's queue is matched: True for the one matcher at a time."""

    async def follow(self, entry: Queued, table_id: str) -> Member:
        """A queued player (on any node) about to be seated at a table of this node: the
        connection its table sends to, once its node relays the table to it."""

    def tell(self, entry: Queued, text: str) -> None:
        """Send a queued player a message, on whichever node it is connected."""

    # -- presence (issue 35, item 2) --------------------------------------------------------

    def presence_changed(self, name: str, here: Presence | None) -> None:
        """This node's view of a registered player's presence (None: not connected here,
        or hidden); every node's followers of ``name`` are told (``Host.presence_pushed``)."""

    async def presence(self, names: Sequence[str]) -> dict[str, Presence]:
        """Each player's presence over every node, by name as given (``OFFLINE`` if none)."""

    def to_account(self, name: str, message: Shared) -> None:
        """Send ``message`` to every connection of the account ``name``, on every node."""

    # -- challenges (issue 35, item 3) ------------------------------------------------------

    async def challenge_put(self, challenge_id: str, record: str, seconds: float) -> None:
        """Keep a challenge (its JSON) for ``seconds``, where every node can answer it."""

    async def challenge_answer(self, challenge_id: str, name: str,
                               answer: str) -> tuple[str, dict[str, str]] | None:
        """``name``'s answer to a challenge (its first one counts): the challenge's record
        and every answer so far, or None when it is gone (expired, or decided)."""

    async def challenge_claim(self, challenge_id: str) -> bool:
        """Whether this caller is the one to act on the challenge's outcome (the first to
        ask); the challenge is gone after."""

    # -- names and limits -------------------------------------------------------------------
    # A key of a per-address limit is the address's group (server/proxies.py ``group_of``),
    # made by the caller: the hubs count whatever key they are given, all alike.

    async def hold_guest(self, name: str, seconds: float, renew: bool = False) -> bool:
        """Hold a guest name for ``seconds`` over every node; False if another holds it."""

    def share_count(self, kind: str, key: str, count: int) -> None:
        """This node now counts ``count`` of something limited (``connections``,
        ``guests``, ``tables-account``, ``tables-address``) for ``key``."""

    async def count_elsewhere(self, kind: str, key: str) -> int:
        """What the other nodes count for ``key`` (0 while they cannot be asked)."""

    def budget(self, address: str, rate: float, burst: int) -> Budget:
        """An address's message budget, one for all its sockets on every node."""

    async def take(self, kind: str, key: str, rate: float, burst: int) -> float:
        """Take one credit of ``key``'s budget of ``kind`` (``rate`` a second, up to
        ``burst`` saved), one budget over every node (passwords checked for an address,
        chat lines of an address or an account): 0.0, or, taking nothing, the seconds
        until there is a credit. A rate of 0 or less limits nothing."""

    def give_back(self, kind: str, key: str) -> None:
        """Return the credit a :meth:`take` just took (what it was for was refused by
        another limit)."""

    def signed_out(self, name: str, ended: str | None, keep: str, client: ClientId) -> None:
        """Sessions of the account ``name`` ended: close its sockets on every node but the
        connection ``client`` that asked, those of the session ``ended`` if given, else of
        any session but ``keep`` (a token's hash). See :func:`close_signed_out`."""

    async def registration(self, address: str, limit: int, seconds: float) -> tuple[float, str]:
        """Count one more account made by ``address``, over every node, unless it made
        ``limit`` in the last ``seconds``: (0.0, a mark to give it back with), or (the
        seconds until it may, "")."""

    def registration_failed(self, address: str, mark: str) -> None:
        """Give back a registration counted (no account was made)."""

    guess_key: bytes
    """The key a password tried is hashed with for the spray count (``Logins``): the same
    on every node, so that they count one password together, and never stored."""

    async def login_wait(self, account: str | None, address: str | None,
                         guess: str | None = None) -> float:
        """Seconds until the account (or known device), the address and the password
        guessed (each if any; a guess also waits for everyone's failure budget) may try a
        password again (server/throttle.py ``Logins``)."""

    async def login_failed(self, account: str, address: str | None,
                           guess: str | None = None) -> None: ...

    async def login_succeeded(self, account: str) -> None: ...



SIGNED_OUT = "signed out: the account's sessions were ended"  # the sockets' close reason


def close_signed_out(clients: Iterable[Member], name: str, ended: str | None, keep: str,
                     client: ClientId) -> None:
    """Close this node's sockets of ``name`` whose sessions ended (:meth:`Hub.signed_out`)."""
    name = name.lower()
    for member in list(clients):
        session = getattr(member, "session", None)
        if (member.remote or member.guest or member.id == client or session is None
                or member.name.lower() != name):
            continue
        if session == ended if ended is not None else session != keep:
            member.close(1008, SIGNED_OUT)

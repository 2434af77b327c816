"""What one node tells another, as typed frames (DESIGN section 11).

Every message between nodes is one of the frames below, a frozen dataclass of its
own kind, as lila-ws types each message it sends to or reads from Redis. On the
wire a frame is ``kind \\n header \\n body``: its kind, its fields as JSON, and a
body that is never re-encoded (a client's request, or the bytes its clients will
read). A node hands each frame it receives to the handler its kind maps to in
one table (:data:`Handlers`), never to an if/elif on kind names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from trickroom.server.tables.commands import ClientId


class Frame:
    """Base of every frame; ``kind`` names it on the wire."""

    __slots__ = ()
    kind: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class Relay(Frame):
    """A table's messages for clients of other nodes: ``sizes`` cut the body into the
    messages, ``to`` names each one's clients; ``done``: the forwarded act this answers,
    as (asking node, correlation id); ``kept``: the messages (by index) whose texts for
    people are kept as template and values, for the receiving node to render for each
    reader (``Shared.of_kept``)."""

    kind = "relay"
    to: list[list[ClientId]]
    sizes: list[int]
    done: list[int] | None = None
    kept: list[int] | None = None


@dataclass(frozen=True, slots=True)
class Deliver(Frame):
    """One message (the body) for one client of the node the frame is sent to;
    ``kept``: its texts as template and values (as a :class:`Relay`'s)."""

    kind = "deliver"
    to: ClientId
    kept: bool = False


@dataclass(frozen=True, slots=True)
class Call(Frame):
    """A client's request (the body) for a table the receiving node owns."""

    kind = "call"
    corr: int
    sender: int  # the asking node
    client: ClientId
    name: str
    guest: bool
    address: str
    table: str
    language: str = "en"  # the client's language, for the texts of its answer


@dataclass(frozen=True, slots=True)
class Done(Frame):
    """A forwarded request or a follow has been run."""

    kind = "done"
    corr: int


@dataclass(frozen=True, slots=True)
class Elsewhere(Frame):
    """The node asked does not run that table (any more): look for its owner again."""

    kind = "elsewhere"
    corr: int


@dataclass(frozen=True, slots=True)
class Follow(Frame):
    """A client of the receiving node is about to be seated at the sender's table: relay
    that table's events to it from now on, then say ``Done``."""

    kind = "follow"
    corr: int
    sender: int
    client: ClientId
    table: str


@dataclass(frozen=True, slots=True)
class Gone(Frame):
    """A client of the sending node, at the receiving node's table, has closed."""

    kind = "gone"
    client: ClientId
    table: str


@dataclass(frozen=True, slots=True)
class Listed(Frame):
    """A room's ``table_update`` (the body) for every node's subscribers of the room."""

    kind = "table"
    room: str
    sender: int


@dataclass(frozen=True, slots=True)
class RoomChat(Frame):
    """A room's chat line (the body) for every node's subscribers of the room, but the
    accounts that ignore its sender."""

    kind = "chat"
    room: str
    sender: int
    ignored_by: list[str]


@dataclass(frozen=True, slots=True)
class Moved(Frame):
    """On a table's channel: the table now runs on ``node``."""

    kind = "moved"
    table: str
    node: int


@dataclass(frozen=True, slots=True)
class Closed(Frame):
    """On a table's channel: the table closed."""

    kind = "closed"
    table: str


@dataclass(frozen=True, slots=True)
class Take(Frame):
    """On a node's channel: take over ``table``, which node ``sender`` (draining, or
    holding more than its share) stopped between two moves and let go of."""

    kind = "take"
    table: str
    sender: int


@dataclass(frozen=True, slots=True)
class SignedOut(Frame):
    """On the lobby channel: sessions of the account ``name`` ended; every node closes
    its sockets of them (``Hub.signed_out``)."""

    kind = "signed_out"
    name: str
    ended: str | None
    keep: str
    client: ClientId


@dataclass(frozen=True, slots=True)
class PresenceChanged(Frame):
    """On the lobby channel: a player's presence changed on some node; every node with
    followers of ``name`` reads it again (``Hub.presence``) and tells them."""

    kind = "presence"
    name: str


@dataclass(frozen=True, slots=True)
class ToAccount(Frame):
    """On the lobby channel: a message (the body) for every connection of ``name``;
    ``kept``: its texts as template and values (as a :class:`Relay`'s)."""

    kind = "to_account"
    name: str
    kept: bool = False


FRAMES: dict[str, type[Frame]] = {cls.kind: cls for cls in (
    Relay, Deliver, Call, Done, Elsewhere, Follow, Gone, Listed, RoomChat, Moved, Closed,
    Take, SignedOut, PresenceChanged, ToAccount)}

Handlers = Mapping[type[Frame], Callable[[Any, bytes], None]]
"""What a node does with each kind of frame: the frame and its body."""


def encode(frame: Frame, body: bytes | str = b"") -> bytes:
    """A frame on the wire; a field at its default is left out (a node of the release
    before the field was added reads the frame as ever: a rolling deploy)."""
    data = body.encode() if isinstance(body, str) else body
    defaults = _DEFAULTS[type(frame)]
    if not defaults:
        header = orjson.dumps(frame)
    else:
        header = orjson.dumps({f: v for f in _ORDER[type(frame)]
                               if (v := getattr(frame, f)) != defaults.get(f, _NONE)})
    return b"%s\n%s\n%s" % (frame.kind.encode(), header, data)


def decode(data: bytes) -> tuple[Frame, bytes]:
    """A frame and its body; raises ``KeyError`` or ``TypeError`` for what no node sends."""
    kind, header, body = data.split(b"\n", 2)
    cls = FRAMES[kind.decode()]
    fields = orjson.loads(header)
    known = _FIELDS[cls]
    if not fields.keys() <= known:  # a newer node's field: read what this node knows
        fields = {k: v for k, v in fields.items() if k in known}
    return cls(**fields), body


_ORDER = {cls: tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
          for cls in FRAMES.values()}
_FIELDS = {cls: frozenset(names) for cls, names in _ORDER.items()}
_DEFAULTS = {cls: {f.name: f.default for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                   if f.default is not dataclasses.MISSING} for cls in FRAMES.values()}
_NONE = object()  # no default

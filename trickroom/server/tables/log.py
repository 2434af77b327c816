"""A table's event log: the one place its events are numbered, encoded and kept.

Every table event goes through :meth:`EventLog.publish`: it gets the next
``seq``, is encoded once as a ``TableEvent`` message (the same bytes for every
client that may see it), and is kept for clients that come back. Who may see
an event is the engine's own rule, :func:`game.events.visible_to`, applied to
the event's ``to`` tag; :meth:`since` answers a rejoin with the missed events a
seat may see, or ``None`` (send a snapshot) once the log no longer holds them.

Every connection at the table sees every ``seq`` exactly once, in order: the
event, or for an event it may not see (another seat's cards) a bare ``skip``
with the same number, so a client can tell a lost message from a private one.

The log is bounded: it keeps the last ``limit`` events, so a table that runs
for weeks holds as much as one that just opened.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, NamedTuple

import orjson

from trickroom.game.events import visible_to
from trickroom.i18n.catalogs import DEFAULT
from trickroom.server.languages import KEPT, holds_texts, localized, restored
from trickroom.server.protocol import ServerMessage, Skip, Snapshot, TableEvent, dumps


class Shared:
    """One message for a whole audience, encoded once: its UTF-8 text, and the
    connection's framing of it, which is the same bytes for every client and so is
    built by the first connection that sends it and reused by the rest."""

    __slots__ = ("data", "frame", "frames", "localize")

    def __init__(self, text: str | bytes,
                 localize: Callable[[str], bytes] | None = None) -> None:
        self.data = text if isinstance(text, bytes) else text.encode()
        self.frame: bytes | None = None
        # A message that holds texts for people: its bytes in another language than
        # English, and their frames once built (server/languages.py).
        self.localize = localize
        self.frames: dict[str, bytes] | None = None

    @property
    def text(self) -> str:
        return self.data.decode()

    @classmethod
    def of_bytes(cls, data: bytes) -> Shared:
        """A message that arrived already encoded (relayed from another node)."""
        shared = cls.__new__(cls)
        shared.data, shared.frame, shared.localize, shared.frames = data, None, None, None
        return shared

    @property
    def kept(self) -> bytes:
        """The message for another node: its texts as template and values (:data:`KEPT`),
        for :meth:`of_kept` to render for each reader there; one without texts as sent."""
        return self.data if self.localize is None else self.localize(KEPT)

    @classmethod
    def of_kept(cls, data: bytes) -> Shared:
        """A message that came from another node with its texts kept: English for readers
        of English, and in each other language once its first reader here needs it."""
        message = orjson.loads(data)

        def localize(language: str) -> bytes:
            return dumps(restored(message, language))
        return cls(localize(DEFAULT), localize)


def shared(message: ServerMessage) -> Shared:
    """A message as sent; a snapshot whose view says why cards may not be played is also
    encoded again, with those reasons, for a connection of another language."""
    localize = None
    if isinstance(message, Snapshot) and holds_texts((message.view, message.paused,
                                                      message.over)):
        view, paused, over = message.view, message.paused, message.over

        def localize(language: str) -> bytes:
            return message.model_copy(update={"view": localized(view, language),
                                              "paused": localized(paused, language),
                                              "over": localized(over, language)}
                                      ).encode().encode()
    return Shared(message.encode(), localize)


def with_texts(sent: ServerMessage, /, **texts: str) -> Shared:
    """A message whose fields ``texts`` are texts for people (a :class:`Msg` each): sent
    in English, and in another language to a connection of it."""
    data = sent.model_dump()
    data.update(texts)
    return Shared(dumps(localized(data, DEFAULT)),
                  lambda language: dumps(localized(data, language)))


class Entry(NamedTuple):
    """One logged event: its number, who may see it (a seat, or None: everyone), its bytes,
    and for a private event the skip marker everyone else gets in its place."""

    seq: int
    to: int | None
    message: Shared
    skip: Shared | None = None


class EventLog:
    """The numbered, encoded, bounded events of one table."""

    def __init__(self, table_id: str, limit: int, seq: int = 0) -> None:
        self.table_id = table_id
        self.seq = seq  # the last number issued
        self._entries: deque[Entry] = deque(maxlen=max(1, limit))

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Any:
        return iter(self._entries)

    def publish(self, event: dict[str, Any], to: int | None = None,
                turn: dict[str, Any] | None = None, texts: bool = False) -> Entry:
        """Number ``event``, encode it once and keep it; ``to``: the one seat it is for;
        ``turn``: a game event's turn (the same for every audience, so in the one encoding);
        ``texts``: the event may hold texts for people, encoded again in each language
        a connection reads."""
        self.seq += 1
        table_id, seq = self.table_id, self.seq
        text = TableEvent.wire(table_id, seq, event, turn)
        skip = None if to is None else Shared(Skip(table=table_id, seq=seq).encode())
        localize = None
        if texts and holds_texts(event):
            def localize(language: str) -> bytes:
                return TableEvent.wire(table_id, seq, localized(event, language), turn)
        entry = Entry(seq, to, Shared(text, localize), skip)
        self._entries.append(entry)
        return entry

    def since(self, seq: int, seat: int | None) -> list[Shared] | None:
        """What ``seat`` (None: a spectator) may see after ``seq``, or None when the log no
        longer holds every event after it (or ``seq`` was never issued): send a snapshot."""
        if seq > self.seq:
            return None
        first = self._entries[0].seq if self._entries else self.seq + 1
        if seq < first - 1:
            return None
        return [e.message if visible_to(e, seat) else e.skip or e.message
                for e in self._entries if e.seq > seq]

    def truncate(self, seq: int) -> None:
        """Forget every event after ``seq`` and number from it again (a write that failed
        undoes the events it would have caused; none of them was sent)."""
        while self._entries and self._entries[-1].seq > seq:
            self._entries.pop()
        self.seq = seq

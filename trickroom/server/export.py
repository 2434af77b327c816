"""A player's games as JSON Lines: ``GET /api/players/NAME/games.jsonl`` (issue 36, item 7).

One line a game the player (or bot) sat in, newest first, each line byte for byte the
review ``GET /api/games/<id>`` answers (:mod:`.reviews`): the public record, with every
hand's deal, actions and tricks, so a bot author can replay it without the engine. Only
ended games are indexed for a player (``game_players``, written with a game's end) and
only ended games have a review, so a game in play is never in an export: its hands are
not public yet.

The answer is streamed, one chunk a game (``Transfer-Encoding: chunked``: a client can
tell a whole export from one cut short, which lacks the last, empty chunk), and read from
the store a page of ids at a time, each game's record only as its line is made: a
player's thousands of games are never in memory at once. A review kept by the review
cache is served from it; any other is built as ``/api/games/<id>`` builds it (off the
loop, one replay at a time on a node) and not kept, so a bulk export does not push out
the reviews being read.

A game's line costs what a request for its review does: the address group's API budget
pays one request for the export and one for each game after the first, and the stream
waits for the budget to refill rather than failing (a long export goes at the group's
rate: 10 games a second after a burst of 60, by default).

websockets answers HTTP with one whole body, so the export writes the answer on the
socket's transport itself, from the handshake's ``process_request``; the connection is
then closed, and websockets, finding it closed, sends nothing of its own.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from urllib.parse import parse_qsl

from websockets.asyncio.server import ServerConnection

from trickroom.server.reviews import Reviews
from trickroom.server.store import Store
from trickroom.server.throttle import Buckets

PAGE = 50  # game ids read from the store at a time
STALL_SECONDS = 30.0  # a client that takes no byte for this long is cut off
CLOSE_SECONDS = 10.0  # the last bytes' time to leave before the socket is dropped
CONTENT_TYPE = "application/x-ndjson"


class BadParameter(ValueError):
    """A query parameter the export does not take, or a value it cannot use."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class ExportQuery:
    """What an export asks for: games ended at ``since`` (a Unix time) or later, at most
    ``most`` of them (None: every one)."""

    since: float | None = None
    most: int | None = None


def export_query(query: str) -> ExportQuery:
    """The export's parameters from a URL's query, or :class:`BadParameter` naming the one
    at fault: an unknown or repeated name (a typo would otherwise export everything), a
    ``since`` that is no finite number of seconds, a ``max`` that is no whole number from
    1 up."""
    seen: dict[str, str] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key not in ("since", "max"):
            raise BadParameter(key, f"unknown parameter {key!r}: an export takes since "
                                    "(a Unix time) and max (a number of games)")
        if key in seen:
            raise BadParameter(key, f"parameter {key!r} is given twice")
        seen[key] = value
    since = most = None
    if "since" in seen:
        try:
            since = float(seen["since"])
        except ValueError:
            since = math.nan
        if not math.isfinite(since) or since < 0:
            raise BadParameter("since", "since must be a Unix time in seconds (0 or more), "
                                        f"not {seen['since']!r}")
    if "max" in seen:
        text = seen["max"]
        if not text.isascii() or not text.isdigit() or int(text) < 1:
            raise BadParameter("max", f"max must be a whole number of games, 1 or more, "
                                      f"not {text!r}")
        most = int(text)
    return ExportQuery(since, most)


class Exports:
    """The exports a node is streaming, and how: paced by the address groups' budgets,
    ended at once when the node stops."""

    def __init__(self, store: Store, reviews: Reviews, budgets: Buckets) -> None:
        self.store = store
        self.reviews = reviews
        self.budgets = budgets
        self._streaming: set[ServerConnection] = set()
        self._stopping = asyncio.Event()

    async def games(self, player: str, query: ExportQuery) -> AsyncGenerator[str, None]:
        """The ids of the player's ended games the query picks, newest first, a page at a
        time from the store."""
        left = query.most
        after: tuple[float, str] | None = None
        while left is None or left > 0:
            page = await self.store.player_games(player, PAGE if left is None
                                                 else min(PAGE, left), query.since, after)
            for game_id, _ in page:
                yield game_id
            if len(page) < PAGE:
                return
            if left is not None:
                left -= len(page)
            after = (page[-1][1], page[-1][0])

    async def stream(self, connection: ServerConnection, key: str, player: str,
                     query: ExportQuery, head: bytes) -> None:
        """Write the whole answer on the connection's transport (``head``: the status line
        and headers), then close it. The first game is read before the head is written, so
        that a store out of reach is still a whole 503 answer (the caller's)."""
        games = self.games(player, query)
        first = await anext(games, None)
        transport = connection.transport
        # Nothing more is read from the client: what it sends waits in its own buffers,
        # not this node's memory, however long the export.
        transport.pause_reading()
        self._streaming.add(connection)
        try:
            transport.write(head)
            game_id = first
            while game_id is not None and not transport.is_closing():
                line = await self.reviews.body(game_id, keep=False)
                if line is not None:  # ended, and so public: never one in play
                    transport.write(b"%x\r\n%s\n\r\n" % (len(line) + 1, line))
                    async with asyncio.timeout(STALL_SECONDS):
                        await connection.drain()
                game_id = await anext(games, None)
                if game_id is not None and not await self._paid(key):
                    return
            if not transport.is_closing():
                transport.write(b"0\r\n\r\n")  # the last chunk: the export is whole
        except TimeoutError:
            pass  # a client that stopped reading: cut off, its export without its end
        finally:
            await games.aclose()
            self._streaming.discard(connection)
            await self._close(connection)

    async def _paid(self, key: str) -> bool:
        """Take one request of the address group's budget for the next game, waiting for
        it as long as it takes (False: the node is stopping)."""
        while wait := self.budgets.take(key):
            try:
                async with asyncio.timeout(wait):
                    await self._stopping.wait()
                return False
            except TimeoutError:
                pass
        return not self._stopping.is_set()

    @staticmethod
    async def _close(connection: ServerConnection) -> None:
        """Close the socket once its last bytes have left (dropped if they cannot): the
        connection is then closed for websockets too, which sends no answer of its own."""
        connection.transport.close()
        try:
            async with asyncio.timeout(CLOSE_SECONDS):
                await asyncio.shield(connection.connection_lost_waiter)
        except TimeoutError:
            connection.transport.abort()
            await asyncio.shield(connection.connection_lost_waiter)

    def stop(self) -> None:
        """End every export now (the node stops): each is cut where it is."""
        self._stopping.set()
        for connection in list(self._streaming):
            connection.transport.abort()

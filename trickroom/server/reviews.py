"""A finished game's review (``GET /api/games/<id>``), built once and kept.

A review replays the whole game (:func:`~trickroom.game.review.review`) and is encoded
to JSON: a long game's is hundreds of kilobytes and tens of milliseconds of CPU.
Anyone may ask for it, again and again; built for every request, a few clients asking
in a loop would hold the event loop and starve every table (issue 32, item B). But a
finished game never changes (the store serves only finished ones, and retention
repacks a record without changing what it holds), so:

* its review is built once, replayed *and encoded* in a worker thread, never on the
  event loop, and one at a time (each holds the GIL most of its time; two at once
  would only take twice the loop's share);
* requests for a review being built wait for that one build (no second replay);
* the encoded bytes are kept in :class:`Kept`, bounded in bytes (``review_cache_bytes``),
  the least lately read going first; a review larger than the whole cache is served
  and not kept;
* each is also kept gzipped (compressed once, in the worker thread: zlib lets go of the
  GIL), for the clients that accept it: every browser. A long game's review is a tenth
  of its size so, on a phone's connection and on the event loop that sends it.

What an address group may ask at all is the HTTP API's budget (:mod:`.routes`).
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from trickroom.game.review import review
from trickroom.i18n.catalogs import DEFAULT, render
from trickroom.i18n.message import from_data
from trickroom.server.metrics import METRICS
from trickroom.server.store import Store


class Kept:
    """Encoded reviews by game id, at most ``max_bytes`` of them, least lately read out
    first."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._bodies: OrderedDict[str, bytes] = OrderedDict()

    def get(self, game_id: str) -> bytes | None:
        body = self._bodies.get(game_id)
        if body is not None:
            self._bodies.move_to_end(game_id)
        return body

    def put(self, game_id: str, body: bytes) -> None:
        if len(body) > self.max_bytes or game_id in self._bodies:
            return
        self._bodies[game_id] = body
        self.bytes += len(body)
        while self.bytes > self.max_bytes:
            _, old = self._bodies.popitem(last=False)
            self.bytes -= len(old)

    def __len__(self) -> int:
        return len(self._bodies)


def encoded(record: dict[str, Any], language: str = DEFAULT) -> bytes:
    """A game's public record with its review, as the API sends it (in a worker thread),
    its rating breakdowns in ``language``."""
    for change in record["ratings"]:
        said = change.pop("said", None)
        if said is not None and language != DEFAULT:
            for line, text in zip(change["breakdown"], said, strict=True):
                line["text"] = render(from_data(text), language)
    whys = record["record"].pop("said", None)  # the robots' reasons for their bids
    if whys and language != DEFAULT:
        actions = record["record"]["actions"]
        for index, why in whys.items():
            actions[int(index)]["why"] = render(from_data(why), language)
    record["hands"] = review(record["record"])
    return json.dumps(record).encode()


class Reviews:
    """The reviews a node serves: each built once, off the loop, and kept."""

    def __init__(self, store: Store, max_bytes: int,
                 table_open: Callable[[str, str], Awaitable[bool]] | None = None) -> None:
        self.store = store
        # Whether a room's table is still open (on any node): a sandbox's games are not
        # shown while its table may deal the same cards again (issue 36, item 4).
        self.table_open = table_open
        self.kept = Kept(max_bytes)
        self._building: dict[str, asyncio.Future[tuple[bytes, bytes | None] | None]] = {}
        self._builder = asyncio.Semaphore(1)  # one replay at a time
        METRICS.review_cache_bytes.set_function(lambda: self.kept.bytes)

    async def body(self, game_id: str, keep: bool = True, language: str = DEFAULT,
                   gzipped: bool = False) -> bytes | None:
        """A finished game's review, encoded; None when there is no finished game by that
        id (not kept: the game may finish later). ``keep``: False for an export's line,
        which is served and not kept (a bulk export would push out the reviews being read).
        ``language``: of its texts for people (each language's review is kept apart).
        ``gzipped``: the same bytes gzipped (for a client that accepts them; kept too),
        with ``keep`` only.
        """
        key = game_id if language == DEFAULT else f"{game_id} {language}"
        body = self.kept.get(f"{key} gzip" if gzipped else key)
        if body is not None:
            return body
        building = self._building.get(key)
        if building is None:
            building = self._building[key] = asyncio.ensure_future(
                self._build(game_id, key, keep, language))
            building.add_done_callback(lambda _: self._building.pop(key, None))
        # A request that goes away (its client hung up) leaves the build to the others.
        built = await asyncio.shield(building)
        if built is None:
            return None
        plain, packed = built
        return packed if gzipped and packed is not None else plain

    async def _build(self, game_id: str, key: str, keep: bool, language: str
                     ) -> tuple[bytes, bytes | None] | None:
        """The review's bytes, and (when kept) gzipped."""
        record = await self.store.game(game_id, texts=True)
        if record is None:
            return None
        if record["sandbox"] and self.table_open is not None \
                and await self.table_open(record["room"], record["table"]):
            return None  # its deals are still being played: shown once the table closes
        if record["board"] is not None and not record["board"]["complete"]:
            return None  # a board set's deals, which another table has yet to play
        async with self._builder:
            body = await asyncio.to_thread(encoded, record, language)
            packed = await asyncio.to_thread(gzip.compress, body, 6, mtime=0) if keep \
                else None
        METRICS.reviews_built.inc()
        if packed is not None:
            self.kept.put(key, body)
            if self.kept.get(key) is not None:  # kept (not larger than the whole cache)
                self.kept.put(f"{key} gzip", packed)
        return body, packed

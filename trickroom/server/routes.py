"""HTTP on the socket's port: the web client, the read-only API, health and metrics.

Every path is answered in the WebSocket server's ``process_request`` hook, so
everything shares one port and one event loop. ``/ws`` passes on to the
socket's handshake once its origin (:mod:`.origins`) and its address's count
allow it. The API (``/api/...``) is open to anyone, so each address group (the
client behind a trusted proxy, grouped as the socket's limits group it) has a budget
of requests, past
which it is answered 429 with ``Retry-After``; static files, ``/healthz``,
``/readyz`` and ``/metrics`` are not counted (a monitor behind one address is
never starved).

One answer is a stream: a player's games export (:mod:`.export`) is written on the
socket itself, for as long as it takes, where every other answer is one body.

Every answer of the port carries the security headers, websockets' own refusals of a
handshake too (:class:`SecuredConnection`), and no request is answered 500 for what
it holds: a control character in the path, a path no file system takes, or two
``Origin`` headers are the client's error (400 or 404).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from trickroom.game.engine import rules_catalogue
from trickroom.i18n.catalogs import DEFAULT, negotiate, pick
from trickroom.ratings import DUPLICATE_SYSTEMS, SYSTEMS, Rating
from trickroom.server import names
from trickroom.server.analysis import Analyses
from trickroom.server.assets import IMMUTABLE, REVALIDATE, Assets
from trickroom.server.config import Config
from trickroom.server.export import CONTENT_TYPE, BadParameter, Exports, export_query
from trickroom.server.languages import localized
from trickroom.server.lobby import Lobby
from trickroom.server.metrics import METRICS
from trickroom.server.origins import Origins
from trickroom.server.protocol import TableInfo
from trickroom.server.proxies import Peers
from trickroom.server.reviews import Reviews
from trickroom.server.store import Store, StoreUnavailable
from trickroom.server.throttle import Buckets

log = logging.getLogger("trickroom.server")
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"
# A game's id as the server makes them (a table's id, "-", eight hex digits): anything
# else names no game, and never reaches the store (PostgreSQL's text holds no NUL).
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
# A player's export: its name is any text up to the suffix (names.py judges it).
EXPORT = re.compile(r"/api/players/(.+)/games\.jsonl")
# How long a connection may take to send its request and be answered (websockets'
# ``open_timeout``, held by the connection itself: an export lifts it for its stream).
OPEN_SECONDS = 10.0
# A control character (a NUL, an escape) in a path: no browser's request, and no file's.
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

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


class Routes:
    """The answers to every HTTP request of the port."""

    def __init__(self, config: Config, store: Store, lobby: Lobby,
                 admits: Callable[[str], Awaitable[bool]],
                 peers: Peers,
                 unready: Callable[[], Awaitable[list[str]]] | None = None,
                 analyses: Analyses | None = None) -> None:
        self.config = config
        self.unready = unready  # why the node should not be sent players now
        self.analyses = analyses
        self.store = store
        self.lobby = lobby
        self.admits = admits  # whether an address group may open one more socket
        self.peers = peers
        settings = config.settings
        self.origins = Origins(settings.allowed_origins)
        self.api_budgets = Buckets(settings.http_per_second_per_address,
                                   settings.http_burst_per_address)
        self.reviews = Reviews(store, settings.review_cache_bytes, lobby.table_open)
        self.exports = Exports(store, self.reviews, self.api_budgets)
        self.assets = Assets(WEB_ROOT)
        # Each room's list as last sent, kept with the listings it was made of (so none of
        # them is another's while kept): the same listings again are the same bytes.
        self._listed: dict[str, tuple[list[TableInfo], int, bytes]] = {}
        self._holding = 0  # refused API requests being held back (_held_back)

    async def _held_back(self, wait: float) -> float:
        """An API request over its address's budget is answered 429 only after a pause
        (``HOLD_SECONDS``, or the wait if longer, up to a second), and the wait left is
        returned. A client that asks again as soon as it is answered (16 loops from one
        address reviewing a long game) then costs the event loop a few requests a second,
        not thousands of refusals; one that heeds ``Retry-After`` never notices. At most
        ``HOLD_MAX`` requests are held at once over all addresses (a held one is an open
        socket); past that, refusals go out at once."""
        if self._holding >= HOLD_MAX:
            return wait
        pause = min(1.0, max(HOLD_SECONDS, wait))
        self._holding += 1
        try:
            await asyncio.sleep(pause)
        finally:
            self._holding -= 1
        return max(0.0, wait - pause)

    async def process_request(self, connection: ServerConnection,
                              request: Request) -> Response | None:
        path, _, query = request.path.partition("?")
        if CONTROL.search(request.path):
            return _response(HTTPStatus.BAD_REQUEST, b"the path holds a control character\n",
                             "text/plain")
        if path == "/ws":
            return await self._socket(connection, request)
        if path == "/healthz":
            return _response(HTTPStatus.OK, b"ok\n", "text/plain")
        if path == "/readyz":
            return await self._readyz()
        if path == "/metrics":
            return _response(HTTPStatus.OK, METRICS.render(), "text/plain; version=0.0.4")
        if path.startswith("/api/"):
            key = self.peers.key(connection, request)
            wait = self.api_budgets.take(key)
            if wait:
                return _rate_limited(await self._held_back(wait))
            try:
                exported = EXPORT.fullmatch(path)
                if exported is not None:
                    return await self._export(connection, key, unquote(exported[1]), query)
                response = await self.api(path, query, request.headers.get("Accept-Language"),
                                          "gzip" in request.headers.get("Accept-Encoding", ""))
                # A large answer costs more of the budget: one request's credit, and
                # one more for each further BYTES_PER_CREDIT sent (16 loops reviewing a
                # 150-hand game's 620 kB get a review a second between them, not ten).
                self.api_budgets.charge(key, len(response.body) // BYTES_PER_CREDIT)
                return response
            except StoreUnavailable as exc:
                log.warning("GET %s: the database is unavailable: %s", path, exc)
                response = _json({"code": "unavailable", "message": "the database is "
                                  "unreachable for a moment: ask again"},
                                 HTTPStatus.SERVICE_UNAVAILABLE)
                response.headers["Retry-After"] = "1"
                return response
        return self.static(path, request.headers)

    async def _readyz(self) -> Response:
        """200 while this node should be sent players; 503 with the reasons when not."""
        problems = await self.unready() if self.unready is not None else []
        body = json.dumps({"ready": not problems, "problems": problems}).encode() + b"\n"
        return _response(HTTPStatus.SERVICE_UNAVAILABLE if problems else HTTPStatus.OK,
                         body, "application/json")

    async def _socket(self, connection: ServerConnection, request: Request) -> Response | None:
        """A socket's handshake goes on (None) from an allowed origin, within its
        address's count of sockets."""
        origins = request.headers.get_all("Origin")
        if len(origins) > 1:
            return _response(HTTPStatus.BAD_REQUEST, b"one Origin header, not several\n",
                             "text/plain")
        reached = connection.transport.get_extra_info("sockname")
        if origins and not self.origins.allow(origins[0], reached and reached[:2]):
            log.warning("refused a socket from origin %r", origins[0])
            return _response(HTTPStatus.FORBIDDEN, f"origin {origins[0]} may not open this "
                             "server's socket\n".encode(), "text/plain")
        if not await self.admits(self.peers.key(connection, request)):
            return _response(HTTPStatus.TOO_MANY_REQUESTS, b"too many connections\n",
                             "text/plain")
        return None

    def shown(self, game: str, system: str, value: float, sigma: float | None) -> float:
        """A rating as players read it, by the system as this server's rooms use it (with
        the constants they adopted: Weng-Lin's scale depends on its beta)."""
        rater = DUPLICATE_SYSTEMS.get(system) or self.config.rating_system(game, system)
        return round(rater.shown(Rating(value, sigma or 0.0)), 1)

    async def api(self, path: str, query: str, accept_language: str | None = None,
                  gzipped: bool = False) -> Response:
        """The answer to an API path; ``gzipped``: the client accepts gzip (a review is
        sent so)."""
        params = {k: unquote(v) for k, v in (p.split("=", 1) for p in query.split("&")
                                             if "=" in p)}
        # The texts for people a reply holds: in ``?lang=``, else the Accept-Language's.
        language = pick(params.get("lang")) or negotiate(accept_language) or DEFAULT
        if path == "/api/rooms":
            return _json({"rooms": [r.model_dump() for r in await self.lobby.rooms_info()]})
        if path == "/api/rules":
            response = _json({"rules": localized(rules_catalogue(), language)})
            response.headers["Content-Language"] = language
            response.headers["Vary"] = "Accept-Language"
            return response
        if path == "/api/tables":
            return await self._tables(params.get("room", ""))
        if path.startswith("/api/games/") and path.endswith("/analysis"):
            return await self._analysis(unquote(path.removeprefix("/api/games/")
                                                .removesuffix("/analysis")))
        if path.startswith("/api/games/"):
            return await self._game(unquote(path.removeprefix("/api/games/")), language,
                                    gzipped)
        if path == "/api/leaderboard":
            return await self._leaderboard(params.get("game", ""), params.get("system", ""),
                                           params.get("ladder", "people"))
        if path.startswith("/api/players/"):
            return await self._player(unquote(path.removeprefix("/api/players/")))
        return _json({"error": f"no API path {path}"}, HTTPStatus.NOT_FOUND)

    async def _tables(self, room: str) -> Response:
        if room not in self.lobby.rooms:
            return _json({"error": f"give room=NAME, one of: "
                                   f"{', '.join(sorted(self.lobby.rooms))}"},
                         HTTPStatus.NOT_FOUND)
        tables, total = await self.lobby.tables_info(room)
        listed = self._listed.get(room)
        # A table's listing is never changed in place (a change is a new TableInfo).
        if listed is None or listed[1] != total or len(listed[0]) != len(tables) \
                or any(a is not b for a, b in zip(listed[0], tables, strict=True)):
            body = b'{"tables": [%s], "total": %d}' % (
                b", ".join(t.model_dump_json().encode() for t in tables), total)
            listed = self._listed[room] = (tables, total, body)
        return _response(HTTPStatus.OK, listed[2], "application/json")

    async def _game(self, game_id: str, language: str, gzipped: bool) -> Response:
        # Built once, off the loop, and kept (reviews.py): no table waits for a review.
        body = (await self.reviews.body(game_id, language=language, gzipped=gzipped)
                if GAME_ID.fullmatch(game_id) else None)
        if body is None:
            return _json({"error": "no finished game with that id"}, HTTPStatus.NOT_FOUND)
        response = _response(HTTPStatus.OK, body, "application/json")
        if gzipped:
            response.headers["Content-Encoding"] = "gzip"
        response.headers["Vary"] = "Accept-Encoding"
        return response

    async def _analysis(self, game_id: str) -> Response:
        """A game's analysis: 200 with it when done; 202 with the progress while it is
        queued or running; 404 when never asked (``analyse`` asks) or no such game."""
        found = None
        if self.analyses is not None and GAME_ID.fullmatch(game_id):
            found = await self.analyses.status(game_id)
        if found is None:
            return _json({"code": "not_found", "error": "no analysis of that game: ask for "
                          "one with the socket's analyse request"}, HTTPStatus.NOT_FOUND)
        body = {"game_id": game_id, "state": found["state"], "done": found["done"],
                "total": found["total"]}
        if found["state"] == "done":  # the stored text as it is: never decoded here
            head = json.dumps(body)[:-1].encode()
            return _response(HTTPStatus.OK, b"%s, \"analysis\": %s}" % (
                head, found["result"].encode()), "application/json")
        return _json(body, HTTPStatus.ACCEPTED if found["state"] != "failed"
                     else HTTPStatus.OK)

    async def _leaderboard(self, game: str, system: str, ladder: str) -> Response:
        """A leaderboard of people, or (``ladder=bots``) the bot ladder's: BOT accounts
        are rated on their own, never among people."""
        if game not in ("spades", "hearts") or system not in (*SYSTEMS, *DUPLICATE_SYSTEMS) \
                or ladder not in ("people", "bots"):
            return _json({"error": "give game=spades|hearts, system="
                                   + "|".join(sorted((*SYSTEMS, *DUPLICATE_SYSTEMS)))
                                   + " and (optionally) ladder=people|bots"},
                         HTTPStatus.BAD_REQUEST)
        board = await self.store.leaderboard(game, system,
                                             self.config.settings.leaderboard_min_games,
                                             bots=ladder == "bots")
        for entry in board:
            entry["shown"] = self.shown(game, system, entry["rating"], entry["sigma"])
        # Ranked by the number players read (Weng-Lin's conservative skill, not its mean).
        board.sort(key=lambda entry: -entry["shown"])
        return _json({"game": game, "system": system, "ladder": ladder, "players": board})

    async def _export(self, connection: ServerConnection, key: str, name: str,
                      query: str) -> Response:
        """A player's games as JSON Lines (:mod:`.export`), streamed on the connection
        itself; a bad parameter (400) or an unknown player (404) is a typed JSON answer."""
        try:
            asked = export_query(query)
        except BadParameter as exc:
            return _json({"code": "invalid_field", "field": exc.field,
                          "message": str(exc)}, HTTPStatus.BAD_REQUEST)
        name = names.normal(name)
        account = await self.store.account(name) if names.valid_name(name) else None
        if account is None:
            return _json({"code": "not_found", "message": "no registered player by that "
                          "name"}, HTTPStatus.NOT_FOUND)
        if isinstance(connection, SecuredConnection):
            connection.answer_at_length()
        head = b"".join([b"HTTP/1.1 200 OK\r\n", *(
            b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in (
                ("Content-Type", CONTENT_TYPE), ("Transfer-Encoding", "chunked"),
                *SECURITY_HEADERS, ("Cache-Control", "no-store"), ("Connection", "close"))),
            b"\r\n"])
        await self.exports.stream(connection, key, account["name"], asked, head)
        # Never sent: the stream closed the connection, and websockets sends nothing on a
        # closed one.
        return _response(HTTPStatus.OK, b"", CONTENT_TYPE)

    async def _player(self, name: str) -> Response:
        name = names.normal(name)  # as the name was kept (NFC), however the link spelt it
        player = await self.store.player(name) if names.valid_name(name) else None
        if player is None:
            return _json({"error": "no registered player by that name"}, HTTPStatus.NOT_FOUND)
        player["casual_games_needed"] = self.config.settings.min_games
        for entry in player["ratings"]:
            game, system = entry["game"], entry["system"]
            entry["shown"] = self.shown(game, system, entry["rating"], entry["sigma"])
            for point in entry["history"]:  # a point stored before sigma was kept: none
                if point["sigma"] is not None:
                    point["shown"] = self.shown(game, system, point["value"], point["sigma"])
        return _json(player)

    def static(self, path: str, headers: Headers) -> Response:
        """A file of the web client (server/assets.py): a versioned one cached for good, any
        other revalidated by its tag; gzipped for a browser that takes it."""
        found = self.assets.find(unquote(path))
        if found is None:
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        asset, versioned = found
        cache = IMMUTABLE if versioned else REVALIDATE
        if asset.etag in headers.get("If-None-Match", ""):
            response = _response(HTTPStatus.NOT_MODIFIED, b"", asset.kind, cache)
            del response.headers["Content-Length"]
        else:
            gzipped = asset.gzipped is not None and "gzip" in headers.get("Accept-Encoding", "")
            body = asset.gzipped if gzipped and asset.gzipped is not None else asset.body
            response = _response(HTTPStatus.OK, body, asset.kind, cache)
            if gzipped:
                response.headers["Content-Encoding"] = "gzip"
        response.headers["ETag"] = asset.etag
        if asset.gzipped is not None:
            response.headers["Vary"] = "Accept-Encoding"
        return response


def _response(status: HTTPStatus, body: bytes, content_type: str,
              cache: str = "no-store") -> Response:
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       *SECURITY_HEADERS, ("Cache-Control", cache)])
    return Response(status.value, status.phrase, headers, body)


def _json(data: Any, status: HTTPStatus = HTTPStatus.OK) -> Response:
    return _response(status, json.dumps(data).encode(), "application/json")


HOLD_SECONDS = 0.5  # a refused API request's least pause before its 429 (_held_back)
HOLD_MAX = 512  # API requests held back at once, over every address
BYTES_PER_CREDIT = 64 * 1024  # an API answer's size paid from its address's budget


def _rate_limited(wait: float) -> Response:
    """Too many API requests from one address: when to ask again, in whole seconds."""
    seconds = max(1, math.ceil(wait))
    response = _json({"code": "rate_limited",
                      "message": f"too many requests from your address; try again in "
                                 f"{seconds} s"}, HTTPStatus.TOO_MANY_REQUESTS)
    response.headers["Retry-After"] = str(seconds)
    return response


class SecuredConnection(ServerConnection):
    """A socket whose handshake's refusals carry the security headers.

    websockets answers some requests itself, without the hooks: a GET of ``/ws`` that is
    no upgrade (426), a malformed handshake (400), a request line or headers too long
    (414, 431), a failed hook (500), a server shutting down (503). Each is made by its
    protocol's ``reject``, which websockets builds itself: so each connection's is
    wrapped here (``serve(create_connection=...)``).
    """

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        reject = protocol.reject

        def secured(status: Any, text: str) -> Response:
            response = reject(status, text)
            for name, value in (*SECURITY_HEADERS, ("Cache-Control", "no-store")):
                response.headers[name] = value
            return response

        protocol.reject = secured  # type: ignore[method-assign]
        super().__init__(protocol, *args, **kwargs)
        self.opening: asyncio.Timeout | None = None

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        """The handshake within ``OPEN_SECONDS`` (websockets' ``open_timeout``, which the
        server is started without), unless its answer is a stream (an export) that paces
        itself: see :meth:`answer_at_length`."""
        try:
            async with asyncio.timeout(OPEN_SECONDS) as self.opening:
                await super().handshake(*args, **kwargs)
        finally:
            # Only a handshake refuses. The wrapper and the protocol hold each other: left
            # in place, a closed socket's protocol, parser and buffers would wait for a
            # full collection, which comes only once the heap has grown by a quarter.
            vars(self.protocol).pop("reject", None)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # websockets' parser of a closed connection waits at its last step for good, and
        # the parser and the protocol hold each other; nothing steps it after the end of
        # the stream, so it is closed here, and the protocol goes as the socket does.
        self.protocol.parser.close()

    def answer_at_length(self) -> None:
        """This request's answer is written for as long as it takes (an export's stream):
        the handshake's time limit no longer holds. A slow reader is cut off by the stream
        itself."""
        if self.opening is not None:
            self.opening.reschedule(None)

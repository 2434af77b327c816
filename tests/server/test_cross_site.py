"""Another site's pages get nothing (issue 13): a socket from another origin is refused, and
every page carries the security headers."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import http_get, url
from trickroom.server.config import ConfigError, load_config


async def test_a_socket_from_another_site_s_page_is_refused(make_app):
    app = await make_app(allowed_origins=["https://cards.example"])
    with pytest.raises(InvalidStatus) as err:
        async with connect(url(app), origin="https://evil.example"):
            pass
    assert err.value.response.status_code == 403
    own = f"http://127.0.0.1:{app.port}"
    for origin in (own, "https://cards.example", None):
        async with connect(url(app), origin=origin) as ws:
            await ws.send(json.dumps({"type": "ping", "id": 1}))
            assert json.loads(await ws.recv())["type"] == "pong"


async def test_pages_carry_the_security_headers(app):
    for path in ("/", "/js/app.js", "/api/rooms"):
        _, headers, _ = await http_get(app, path)
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "same-origin"


async def raw_http(app, head: str) -> tuple[int, dict[str, str], bytes]:
    """Send a request's head as written (duplicate headers, odd paths) and read the answer:
    its status, its headers and, unless it switched to the socket, its body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(head.encode("latin-1"))
    await writer.drain()
    raw = await reader.readuntil(b"\r\n\r\n")
    status = int(raw.split(b" ", 2)[1])
    body = b"" if status == 101 else await reader.read()
    writer.close()
    lines = raw.decode("latin-1").rstrip("\r\n").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, headers, body


def upgrade(host: str, *extra: str, path: str = "/ws") -> str:
    """A browser's WebSocket handshake for ``path``, naming ``host``, with ``extra`` headers."""
    return "".join((f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n", *(f"{h}\r\n" for h in extra), "\r\n"))


async def test_a_rebound_name_s_page_is_refused_though_the_host_header_names_it(app):
    """DNS rebinding: a page of evil.example whose name now points at this server sends
    Origin and Host both evil.example. The Host header proves nothing: only the server's
    own addresses (and the host's public origins) may open the socket."""
    port = app.port
    status, _, _ = await raw_http(app, upgrade(f"evil.example:{port}",
                                               f"Origin: http://evil.example:{port}"))
    assert status == 403
    for origin in (f"http://127.0.0.1:{port}", f"http://localhost:{port}",
                   f"http://LOCALHOST:{port}"):
        status, _, _ = await raw_http(app, upgrade(f"127.0.0.1:{port}", f"Origin: {origin}"))
        assert status == 101, origin
    for origin in (f"http://localhost:{port + 1}", "null", f"file://localhost:{port}",
                   f"http://localhost.evil.example:{port}"):
        status, _, _ = await raw_http(app, upgrade(f"localhost:{port}", f"Origin: {origin}"))
        assert status == 403, origin


async def test_the_host_s_public_origin_opens_the_socket_and_no_other(make_app):
    """Behind a proxy the page's origin is the host's public one, which the host lists."""
    app = await make_app(allowed_origins=["https://Cards.example", "http://cards.example:8080"])
    for origin in ("https://cards.example", "https://cards.example:443",
                   "http://cards.example:8080"):
        status, _, _ = await raw_http(app, upgrade("cards.example", f"Origin: {origin}"))
        assert status == 101, origin
    for origin in ("http://cards.example", "https://cards.example:8443"):
        status, _, _ = await raw_http(app, upgrade("cards.example", f"Origin: {origin}"))
        assert status == 403, origin


async def test_malformed_requests_are_refused_4xx_never_500(app, caplog):
    """Two Origin headers, a NUL or a control character in the path, a file name too long
    for any file system: the client's error, answered 4xx with the security headers, and
    no traceback in the log."""
    port = app.port
    own = f"Origin: http://127.0.0.1:{port}"
    heads = [upgrade(f"127.0.0.1:{port}", own, "Origin: http://evil.example"),
             upgrade(f"127.0.0.1:{port}", own, own),
             upgrade(f"127.0.0.1:{port}", path="/ws\x00"),
             f"GET /\x00 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
             f"GET /js/app.js\x00.png HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
             f"GET /api/players/a\x00b HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
             f"GET /\x1b[2J HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
             f"GET /{'a' * 300} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"]
    with caplog.at_level(logging.WARNING):
        for head in heads:
            status, headers, _ = await raw_http(app, head)
            assert 400 <= status < 500, (head, status)
            assert headers["X-Content-Type-Options"] == "nosniff", head
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_every_answer_carries_the_security_headers_errors_included(make_app):
    """The web client's pages, the API's answers and refusals, health, and the refusals
    websockets makes itself: a GET of /ws that is no WebSocket upgrade (426), a handshake
    of an unknown version (400), a request line or headers too long (414, 431)."""
    app = await make_app(http_per_second_per_address=0.01, http_burst_per_address=1)
    port = app.port
    plain = f"GET {{}} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    answers = {}
    for path in ("/ws", "/", "/no-such-page", "/healthz", "/readyz", "/metrics",
                 "/api/rooms", "/api/rooms"):
        status, headers, _ = await raw_http(app, plain.format(path))
        answers[status] = headers
    status, headers, _ = await raw_http(app, upgrade("x", "Origin: http://evil.example"))
    answers[status] = headers
    status, headers, _ = await raw_http(
        app, upgrade(f"127.0.0.1:{port}").replace("Sec-WebSocket-Version: 13",
                                                  "Sec-WebSocket-Version: 99"))
    answers[status] = headers
    status, headers, _ = await raw_http(app, plain.format("/" + "a" * 9000))  # too long a line
    answers[status] = headers
    status, headers, _ = await raw_http(
        app, upgrade("x", *(f"X-Filler-{i}: 1" for i in range(200))))  # too many headers
    answers[status] = headers
    assert {200, 400, 403, 404, 414, 426, 429, 431} <= set(answers), sorted(answers)
    for status, headers in answers.items():
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], status
        assert headers["X-Content-Type-Options"] == "nosniff", status
        assert headers["X-Frame-Options"] == "DENY", status
        assert headers["Cache-Control"] == "no-store", status


def test_a_public_origin_that_is_no_origin_is_refused_at_start():
    """A path or a name without its scheme would never match a browser's Origin: said at
    once rather than found by players."""
    for wrong in ("cards.example", "https://cards.example/play", "ftp://cards.example"):
        with pytest.raises(ConfigError, match="is not an origin"):
            load_config(allowed_origins=["https://ok.example", wrong])

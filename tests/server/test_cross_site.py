"""Another site's pages get nothing (issue 13): a socket from another origin is refused, and
every page carries the security headers."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import http_get, url


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

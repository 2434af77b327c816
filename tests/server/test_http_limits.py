"""The HTTP API's budget per address (issue 31): the API is open to anyone, so one address
past its burst is answered 429 with when to come back, while every other address (told
apart behind a trusted proxy by X-Forwarded-For, as the socket's limits are) is served;
health, metrics and the web client's files are never refused. The table of budgets stays
bounded however many addresses come."""

from __future__ import annotations

import asyncio
import json

from trickroom.server.app import App
from trickroom.server.throttle import Buckets


async def get(app: App, path: str, forwarded_for: str | None = None
              ) -> tuple[int, dict[str, str], bytes]:
    """One GET over a fresh connection from 127.0.0.1, as a proxy forwarding a client."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    extra = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{extra}"
                 "Connection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


async def test_an_address_past_its_burst_is_told_to_wait_while_another_is_served(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], http_per_second_per_address=0.01,
                         http_burst_per_address=3)
    for path in ("/api/rooms", "/api/tables?room=spades", "/api/rules"):
        status, _, _ = await get(app, path, forwarded_for="203.0.113.7")
        assert status == 200
    status, headers, body = await get(app, "/api/rooms", forwarded_for="203.0.113.7")
    assert status == 429
    assert int(headers["Retry-After"]) >= 1
    refusal = json.loads(body)
    assert refusal["code"] == "rate_limited" and refusal["message"]
    assert headers["Content-Type"] == "application/json"
    # Another client behind the same proxy has its own budget.
    status, _, body = await get(app, "/api/tables?room=spades", forwarded_for="198.51.100.2")
    assert status == 200 and json.loads(body)["total"] == 0
    # Health, metrics and the web client are not counted: the refused address still gets them.
    for path in ("/healthz", "/metrics", "/", "/js/app.js"):
        status, _, _ = await get(app, path, forwarded_for="203.0.113.7")
        assert status == 200, path


async def test_an_untrusted_peer_cannot_escape_its_budget_by_naming_another_address(make_app):
    """Without trusted proxies the header is not read: the peer is the client."""
    app = await make_app(http_per_second_per_address=0.01, http_burst_per_address=2)
    for i in range(2):
        status, _, _ = await get(app, "/api/rooms", forwarded_for=f"192.0.2.{i}")
        assert status == 200
    status, headers, _ = await get(app, "/api/rooms", forwarded_for="192.0.2.99")
    assert status == 429 and "Retry-After" in headers


async def test_the_default_budget_serves_what_a_browser_s_pages_ask(app):
    """A page of the web client asks a few API paths; many pages in a row stay served."""
    for _ in range(10):
        for path in ("/api/rooms", "/api/rules", "/api/tables?room=spades",
                     "/api/leaderboard?game=spades&system=zone"):
            status, _, _ = await get(app, path)
            assert status == 200, path


def test_a_refused_request_takes_no_credit_and_an_address_s_burst_is_its_own():
    buckets = Buckets(rate=0.001, burst=2)
    assert buckets.take("a") == 0 and buckets.take("a") == 0
    assert buckets.take("a") > 0 and buckets.take("a") > 0  # refused, still refused
    assert buckets.take("b") == 0


def test_a_flood_of_addresses_keeps_the_table_of_budgets_bounded():
    buckets = Buckets(rate=0.001, burst=5, max_keys=100)
    for i in range(10_000):
        buckets.take(f"10.0.{i // 256}.{i % 256}")
    assert len(buckets) == 100
    assert "10.0.39.15" in buckets._buckets  # the latest addresses are kept,
    assert "10.0.0.0" not in buckets._buckets  # the least lately used gone


def test_a_budget_full_again_is_forgotten():
    """A bucket that has filled up again is the same as a new one: it need not be kept."""
    buckets = Buckets(rate=10.0, burst=5)
    buckets.take("idle")
    buckets._buckets["idle"].stamp -= 1.0  # half a second fills it: it has been idle 1 s
    buckets.take("busy")
    assert len(buckets) == 1 and "busy" in buckets._buckets
    assert Buckets(rate=0, burst=1).take("any") == 0  # a rate of 0: no limit


async def test_an_address_that_asks_again_at_once_when_refused_is_held_back(make_app):
    """Issue 32, B: loops asking for a review as fast as answers come got thousands of
    refusals a second, each one the event loop's work. A refusal now waits half a second
    or more, so four loops from one address get a handful in a second (a slow machine
    gets fewer, never more)."""
    app = await make_app(http_per_second_per_address=0.01, http_burst_per_address=1)
    assert (await get(app, "/api/rooms"))[0] == 200
    loop = asyncio.get_running_loop()
    until = loop.time() + 1.0
    refused = 0

    async def asker() -> None:
        nonlocal refused
        while loop.time() < until:
            status, headers, _ = await get(app, "/api/rooms")
            assert status == 429 and int(headers["Retry-After"]) >= 1
            refused += 1

    await asyncio.gather(*(asker() for _ in range(4)))
    assert 4 <= refused <= 4 * 3  # at most ceil(1.0 / 0.5) + 1 answers a loop

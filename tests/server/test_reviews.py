"""A finished game's review (``GET /api/games/<id>``) is built once and kept (issue 32,
item B): a long game's replay and its encoding cost tens of milliseconds, so a client
asking for it in a loop must not make every table wait. A finished game never changes,
so its encoded review is kept, in a cache bounded in bytes (the least lately read go
first); the review is built off the event loop, one at a time, however many ask at
once. The API's budget per address group still answers a flood 429."""

from __future__ import annotations

import asyncio
import gzip
import json
import random

from tests.server.conftest import http_get, play_until_over, url, wait_for
from tests.server.test_http_limits import get
from tests.server.test_seats import solo_table
from trickroom.server import routes
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.reviews import Kept
from trickroom.server.store import StoreUnavailable


async def finished_game(app: App, seed: int = 3) -> str:
    """A short game played to its end by one guest and three robots: its id."""
    async with TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client, rules={"target": 100, "mercy": 50})
        await asyncio.wait_for(play_until_over(client, table_id, random.Random(seed)), 120)
    table = app.lobby.tables[table_id].machine
    await wait_for(lambda: table.state.phase == "over")
    return table.state.game_id


async def metric(app: App, name: str) -> float:
    """A metric's value as ``/metrics`` shows it."""
    _, _, body = await http_get(app, "/metrics")
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name}")


async def test_a_review_is_built_once_and_served_again_from_the_cache(app):
    game_id = await finished_game(app)
    built = await metric(app, "trickroom_reviews_built_total")
    bodies = [await http_get(app, f"/api/games/{game_id}") for _ in range(4)]
    assert {status for status, _, _ in bodies} == {200}
    assert len({body for _, _, body in bodies}) == 1
    review = json.loads(bodies[0][2])
    assert review["id"] == game_id and review["hands"] and review["result"]["finished"]
    assert await metric(app, "trickroom_reviews_built_total") == built + 1
    assert await metric(app, "trickroom_review_cache_bytes") >= len(bodies[0][2])


async def test_many_asking_at_once_for_a_review_not_yet_built_build_it_once(make_app):
    app = await make_app(http_burst_per_address=100)
    game_id = await finished_game(app)
    built = await metric(app, "trickroom_reviews_built_total")
    answers = await asyncio.gather(*(http_get(app, f"/api/games/{game_id}")
                                     for _ in range(12)))
    assert {status for status, _, _ in answers} == {200}
    assert len({body for _, _, body in answers}) == 1
    assert await metric(app, "trickroom_reviews_built_total") == built + 1


async def test_a_review_larger_than_the_cache_is_served_and_not_kept(make_app):
    app = await make_app(review_cache_bytes=1000)
    game_id = await finished_game(app)
    built = await metric(app, "trickroom_reviews_built_total")
    for _ in range(2):
        status, _, body = await http_get(app, f"/api/games/{game_id}")
        assert status == 200 and json.loads(body)["id"] == game_id
    assert await metric(app, "trickroom_reviews_built_total") == built + 2
    assert await metric(app, "trickroom_review_cache_bytes") == 0


async def test_a_flood_of_review_requests_from_one_address_group_is_told_to_wait(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], http_per_second_per_address=0.01,
                         http_burst_per_address=3)
    game_id = await finished_game(app)
    for i in range(3):
        status, _, _ = await get(app, f"/api/games/{game_id}", forwarded_for=f"2001:db8::{i}")
        assert status == 200
    status, headers, body = await get(app, f"/api/games/{game_id}",
                                      forwarded_for="2001:db8::ff")
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert json.loads(body)["code"] == "rate_limited"
    status, _, _ = await get(app, f"/api/games/{game_id}", forwarded_for="2001:db8:1::1")
    assert status == 200  # another /64 is served


async def test_a_review_the_store_cannot_read_now_is_503_and_is_built_when_it_can(app):
    game_id = await finished_game(app)
    read = app.store.game

    async def away(game_id: str, texts: bool = False) -> None:
        raise StoreUnavailable("the database does not answer")

    app.store.game = away
    status, headers, body = await http_get(app, f"/api/games/{game_id}")
    assert status == 503 and headers["Retry-After"] == "1"
    assert json.loads(body)["code"] == "unavailable"
    app.store.game = read
    status, _, body = await http_get(app, f"/api/games/{game_id}")
    assert status == 200 and json.loads(body)["id"] == game_id


def test_the_cache_keeps_the_lately_read_within_its_bytes():
    kept = Kept(max_bytes=10)
    kept.put("a", b"1234")
    kept.put("b", b"1234")
    assert kept.get("a") == b"1234"  # read: now the latest
    kept.put("c", b"1234")  # 12 bytes: the least lately read (b) goes
    assert kept.get("b") is None and kept.get("a") and kept.get("c")
    assert kept.bytes == 8
    kept.put("big", b"x" * 11)  # larger than the whole cache: not kept, nothing evicted
    assert kept.get("big") is None and kept.bytes == 8


async def get_as_browser(app: App, path: str) -> tuple[int, dict[str, str], bytes]:
    """One GET as a browser asks: gzip accepted."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip, "
                 "deflate, br\r\nConnection: close\r\n\r\n".encode())
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    return int(lines[0].split()[1]), dict(line.split(": ", 1) for line in lines[1:]), body


async def test_a_browser_is_sent_the_review_gzipped_the_same_review(app):
    """A long game's review is hundreds of kilobytes; gzipped, a tenth of that on a
    phone's connection. It is compressed once, with the review, and kept."""
    game_id = await finished_game(app)
    _, _, plain = await http_get(app, f"/api/games/{game_id}")
    built = await metric(app, "trickroom_reviews_built_total")
    for _ in range(2):
        status, headers, body = await get_as_browser(app, f"/api/games/{game_id}")
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert headers["Vary"] == "Accept-Encoding" and headers["Content-Length"] == \
            str(len(body))
        assert gzip.decompress(body) == plain
        assert len(body) < len(plain) / 3
    assert await metric(app, "trickroom_reviews_built_total") == built  # kept, not rebuilt
    status, headers, body = await get(app, f"/api/games/{game_id}")  # no gzip: plain
    assert status == 200 and "Content-Encoding" not in headers and body == plain


async def test_a_large_answer_costs_its_address_more_of_the_api_budget(make_app, monkeypatch):
    """Issue 32, B: 16 loops asking for a 620 kB review were served ten reviews a second,
    each one the event loop's sending. An answer now costs a credit, and one more for
    each further 64 KiB sent (here 1 KiB, for a short game's review): a review costs its
    address as many credits as its size, a gzipped one far fewer, and the small answers
    of a page one each."""
    monkeypatch.setattr(routes, "BYTES_PER_CREDIT", 1024)
    app = await make_app(trusted_proxies=["127.0.0.1"], http_per_second_per_address=0.01,
                         http_burst_per_address=40)
    game_id = await finished_game(app)
    _, _, plain = await get(app, f"/api/games/{game_id}", forwarded_for="203.0.113.1")
    packed = gzip.compress(plain)
    credits = len(plain) // 1024
    assert credits > len(packed) // 1024 + 2 and credits < 40

    async def served(address: str, review: bool, browser: bool = False) -> int:
        """Requests answered 200 from a fresh address until the first 429."""
        count = 0
        while True:
            path = f"/api/games/{game_id}" if review else "/api/tables?room=spades"
            if browser:
                status = (await get_as_browser_from(app, path, address))[0]
            else:
                status = (await get(app, path, forwarded_for=address))[0]
            if status == 429:
                return count
            assert status == 200
            count += 1

    assert await served("198.51.100.1", review=False) == 40
    reviews = await served("198.51.100.2", review=True)
    assert reviews == -(-40 // (1 + credits))  # the last one goes into debt
    assert await served("198.51.100.3", review=True, browser=True) > reviews


async def get_as_browser_from(app: App, path: str, address: str
                              ) -> tuple[int, dict[str, str], bytes]:
    """A browser's GET through the trusted proxy, for ``address``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: {address}"
                 "\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n".encode())
    raw = await reader.read()
    writer.close()
    return int(raw.split(b" ", 2)[1]), {}, raw

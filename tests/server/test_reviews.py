"""A finished game's review (``GET /api/games/<id>``) is built once and kept (issue 32,
item B): a long game's replay and its encoding cost tens of milliseconds, so a client
asking for it in a loop must not make every table wait. A finished game never changes,
so its encoded review is kept, in a cache bounded in bytes (the least lately read go
first); the review is built off the event loop, one at a time, however many ask at
once. The API's budget per address group still answers a flood 429."""

from __future__ import annotations

import asyncio
import json
import random

from tests.server.conftest import http_get, play_until_over, url, wait_for
from tests.server.test_http_limits import get
from tests.server.test_seats import solo_table
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

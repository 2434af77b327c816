"""A player's games as JSON Lines (``GET /api/players/NAME/games.jsonl``, issue 36, item 7):
a bot author downloads every game of theirs to replay, one line a game, newest first,
each line the review ``/api/games/<id>`` gives. Only ended games: a game in play has
hands no one may see yet. Streamed in chunks, read from the store a page at a time, paid
for from the address group's API budget one game at a time, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from tests.server.conftest import FAST, http_get, play_until_over, url
from tests.server.test_http_limits import get
from trickroom.server import export, routes
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.throttle import Buckets


def dechunked(body: bytes) -> tuple[bytes, bool]:
    """A chunked body's bytes, and whether it ended with its last, empty chunk (whole)."""
    out = b""
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return out, body == b"\r\n"
        out, body = out + body[:size], body[size + 2:]
    return out, False


def lines(body: bytes) -> list[dict]:
    data, whole = dechunked(body)
    assert whole, "the export ended without its last chunk"
    assert data == b"" or data.endswith(b"\n")
    return [json.loads(line) for line in data.splitlines()]


async def games_of(app: App, name: str, games: int) -> list[str]:
    """A registered player plays ``games`` short Spades games to their end with three
    robots: their ids."""
    ids = []
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": name, "password": f"{name}-pw-pw"})
        for i in range(games):
            table = await robots_table(client)
            await asyncio.wait_for(play_until_over(client, table, random.Random(i)), 120)
            ids.append(app.lobby.tables[table].machine.state.game_id)
            await client.request({"type": "stand", "table": table})
    return ids


async def robots_table(client: TrickroomClient) -> str:
    """A short Spades game at a new table: the client at seat 0, robots at the others."""
    reply = await client.request({"type": "create_table", "room": "spades",
                                  "rules": {"target": 100, "mercy": 50}})
    table = reply["table"]["id"]
    await client.request({"type": "sit", "table": table, "seat": 0})
    await client.request({"type": "fill_robots", "table": table, "level": "random"})
    return table


@pytest.fixture
async def served(db):
    """An app on each store engine in turn."""
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    yield app
    await app.stop()


async def test_a_player_s_ended_games_come_newest_first_each_as_its_review(served):
    app = served
    ended = await games_of(app, "ann", 3)
    async with TrickroomClient.connect(url(app)) as client:  # a fourth game, in play
        await client.request({"type": "login", "name": "ann", "password": "ann-pw-pw"})
        table = await robots_table(client)
        await play_until_over(client, table, random.Random(9), stop_after=1)
        playing = app.lobby.tables[table].machine.state.game_id
        status, headers, body = await http_get(app, "/api/players/ANN/games.jsonl")
        _, _, profile = await http_get(app, "/api/players/ann")
        assert app.lobby.tables[table].machine.state.phase == "playing"
    assert status == 200
    assert headers["Content-Type"] == "application/x-ndjson"
    assert headers["Transfer-Encoding"] == "chunked"
    assert headers["X-Frame-Options"] == "DENY"
    exported = lines(body)
    assert [g["id"] for g in exported] == ended[::-1]  # newest first; none in play
    assert playing not in body.decode()
    finished = [g["finished"] for g in exported]
    assert finished == sorted(finished, reverse=True)
    for game in exported:  # each line is the review, byte for byte
        _, _, review = await http_get(app, f"/api/games/{game['id']}")
        assert json.loads(review) == game
        assert game["hands"] and game["record"]["actions"]
        assert all("token_hash" not in s and "group" not in s for s in game["seats"])
    assert [g["game_id"] for g in json.loads(profile)["recent_games"]] == ended[::-1]


async def test_since_and_max_pick_the_newest_games_and_an_empty_export_is_whole(app):
    ended = await games_of(app, "bea", 3)
    _, _, body = await http_get(app, "/api/players/bea/games.jsonl?max=2")
    assert [g["id"] for g in lines(body)] == ended[:0:-1]
    _, _, body = await http_get(app, "/api/players/bea/games.jsonl")
    second = lines(body)[1]["finished"]
    _, _, body = await http_get(app, f"/api/players/bea/games.jsonl?since={second}")
    assert [g["id"] for g in lines(body)] == ended[:0:-1]
    _, _, body = await http_get(app, f"/api/players/bea/games.jsonl?since={second}&max=1")
    assert [g["id"] for g in lines(body)] == [ended[-1]]
    status, _, body = await http_get(app, "/api/players/bea/games.jsonl?since=4102444800")
    assert status == 200 and lines(body) == []


@pytest.mark.parametrize(("query", "field"), [
    ("max=0", "max"), ("max=ten", "max"), ("max=-3", "max"), ("max=1.5", "max"),
    ("since=yesterday", "since"), ("since=nan", "since"), ("since=-1", "since"),
    ("limit=5", "limit"), ("max=1&max=2", "max"),
])
async def test_a_bad_parameter_is_a_typed_error_naming_it(app, query, field):
    await games_of(app, "cal", 1)
    status, headers, body = await http_get(app, f"/api/players/cal/games.jsonl?{query}")
    assert status == 400 and headers["Content-Type"] == "application/json"
    error = json.loads(body)
    assert error["code"] == "invalid_field" and error["field"] == field and error["message"]


@pytest.mark.parametrize("name", ["nobody", "Bot%20Hazel", "guest-solo", "a%2Fb"])
async def test_no_registered_player_by_that_name_is_a_typed_404(app, name):
    status, _, body = await http_get(app, f"/api/players/{name}/games.jsonl")
    assert status == 404 and json.loads(body)["code"] == "not_found"


async def test_the_export_reads_the_store_a_page_at_a_time(app, monkeypatch):
    ended = await games_of(app, "dot", 5)
    monkeypatch.setattr(export, "PAGE", 2)
    pages = []
    read = app.store.player_games

    async def paged(name, limit, since=None, before=None):
        page = await read(name, limit, since, before)
        pages.append(len(page))
        return page

    app.store.player_games = paged
    _, _, body = await http_get(app, "/api/players/dot/games.jsonl")
    assert [g["id"] for g in lines(body)] == ended[::-1]
    assert pages == [2, 2, 1]
    pages.clear()
    _, _, body = await http_get(app, "/api/players/dot/games.jsonl?max=3")
    assert len(lines(body)) == 3 and pages == [2, 1]


async def test_exported_reviews_are_served_and_not_kept(app):
    await games_of(app, "eve", 2)
    _, _, body = await http_get(app, "/api/players/eve/games.jsonl")
    assert len(lines(body)) == 2
    assert len(app.routes.reviews.kept) == 0


async def test_each_game_exported_is_paid_from_the_address_group_s_budget(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], http_per_second_per_address=0.01,
                         http_burst_per_address=3)
    await games_of(app, "fay", 3)
    status, _, body = await get(app, "/api/players/fay/games.jsonl", "203.0.113.7")
    assert status == 200 and len(lines(body)) == 3  # the request and two more games: 3
    status, headers, body = await get(app, "/api/players/fay/games.jsonl", "203.0.113.7")
    assert status == 429 and json.loads(body)["code"] == "rate_limited"
    assert int(headers["Retry-After"]) >= 1
    status, _, body = await get(app, "/api/players/fay/games.jsonl?max=1", "198.51.100.2")
    assert status == 200 and len(lines(body)) == 1  # another group has its own budget


async def test_an_export_past_its_budget_waits_for_it_beyond_the_handshake_s_time(
        make_app, monkeypatch):
    monkeypatch.setattr(routes, "OPEN_SECONDS", 0.3)
    app = await make_app(http_per_second_per_address=4.0, http_burst_per_address=1)
    ended = await games_of(app, "gus", 4)
    status, _, body = await http_get(app, "/api/players/gus/games.jsonl")
    assert status == 200 and [g["id"] for g in lines(body)] == ended[::-1]  # 0.75 s paced


async def test_a_connection_that_asks_nothing_is_still_closed_after_the_handshake_s_time(
        app, monkeypatch):
    monkeypatch.setattr(routes, "OPEN_SECONDS", 0.2)
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    try:
        assert await asyncio.wait_for(reader.read(), 10) == b""
    finally:
        writer.close()


async def test_a_node_that_stops_cuts_its_exports_short(tmp_path):
    app = App(load_config(**FAST, http_per_second_per_address=0.01, http_burst_per_address=1),
              tmp_path / "db.sqlite3")
    await app.start("127.0.0.1", 0)
    try:
        await games_of(app, "hal", 2)
    except BaseException:
        await app.stop()
        raise
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(b"GET /api/players/hal/games.jsonl HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    first = await reader.readuntil(b"}\n\r\n")  # one game, then it waits for credit
    await asyncio.wait_for(app.stop(), 10)
    rest = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = (first + rest).partition(b"\r\n\r\n")
    data, whole = dechunked(body)
    assert head.startswith(b"HTTP/1.1 200") and not whole
    assert len(data.splitlines()) == 1


class StalledClient:
    """A connection whose client takes no byte: what is written stays in the buffer."""

    def __init__(self) -> None:
        self.written = b""
        self.closed = self.aborted = False
        self.connection_lost_waiter = asyncio.get_running_loop().create_future()
        self.transport = self

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def pause_reading(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True  # the buffer never empties: the socket never closes by itself

    def abort(self) -> None:
        self.aborted = True
        if not self.connection_lost_waiter.done():
            self.connection_lost_waiter.set_result(None)

    async def drain(self) -> None:
        await asyncio.Event().wait()


class TwoGames:
    async def player_games(self, name, limit, since=None, before=None):
        return [("g2", 2.0), ("g1", 1.0)] if before is None else []


class Reviewed:
    async def body(self, game_id, keep=True):
        return b'{"id": "%s"}' % game_id.encode()


async def test_a_client_that_takes_nothing_is_cut_off_and_its_socket_dropped(monkeypatch):
    monkeypatch.setattr(export, "STALL_SECONDS", 0.05)
    monkeypatch.setattr(export, "CLOSE_SECONDS", 0.05)
    exports = export.Exports(TwoGames(), Reviewed(), Buckets(0, 0))
    client = StalledClient()
    await asyncio.wait_for(exports.stream(client, "k", "ann", export.ExportQuery(),
                                          b"HEAD\r\n\r\n"), 10)
    assert client.aborted
    assert client.written == b'HEAD\r\n\r\n%x\r\n{"id": "g2"}\n\r\n' % len(b'{"id": "g2"}\n')

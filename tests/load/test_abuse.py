"""Floods, slow readers, half-open connections and oversized frames, at the default limits."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import wait_for
from tests.server.refusals import answers
from trickroom.server.app import App


@pytest.fixture
async def app(make_app):
    """A server at the default limits, but for a small outbox: a slow reader is cut off
    after 64 KiB unread."""
    return await make_app(outbox_bytes=65536)


async def alive(app: App) -> None:
    async with connect(f"ws://127.0.0.1:{app.port}/ws") as ws:
        await ws.send('{"type": "ping", "id": "alive"}')
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "pong"


async def test_a_flood_is_read_slowly_answered_in_order_and_the_server_stays_up(app):
    """Over its message rate a socket is read more slowly: it is neither refused nor
    closed, and another socket meanwhile is answered at once."""
    url = f"ws://127.0.0.1:{app.port}/ws"
    count = app.config.settings.message_burst + 50  # about a second over the rate
    async with connect(url) as ws:
        for i in range(count):
            await ws.send(json.dumps({"type": "ping", "id": i}))
        await alive(app)  # while the flood is still being read
        ids = [m["id"] for m in (await answers(ws, count))[0]]
        assert ids == list(range(count))
    await alive(app)


async def slow_reader(app: App, table: str) -> tuple[ClientConnection, int]:
    """A watcher of ``table`` that never reads, over small kernel buffers at both ends (as
    over a slow link: its backlog reaches the server's outbox after a few events, not
    megabytes later); and its id on the server."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", app.port))
    known = set(app.clients)
    ws = await connect(f"ws://127.0.0.1:{app.port}/ws", max_queue=1, sock=sock)
    await wait_for(lambda: len(set(app.clients) - known) == 1)
    (client_id,) = set(app.clients) - known
    server_side = app.clients[client_id].ws.transport.get_extra_info("socket")
    server_side.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    await ws.send(json.dumps({"type": "guest", "id": 1}))
    await ws.send(json.dumps({"type": "watch", "table": table, "id": 2}))
    return ws, client_id


async def test_slow_readers_are_cut_off_and_half_open_sockets_cost_nothing(app):
    url = f"ws://127.0.0.1:{app.port}/ws"
    # Half-open: a TCP connection that never finishes its handshake, and sockets dropped
    # without a close frame.
    raw = [socket.create_connection(("127.0.0.1", app.port)) for _ in range(5)]
    for s in raw:
        s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\n")
    dropped = [await connect(url) for _ in range(5)]
    for ws in dropped:
        ws.transport.abort()
    # Slow readers: watchers of a table of robots, never reading.
    async with connect(url) as owner:
        await owner.send('{"type": "guest", "id": 1}')
        await owner.recv()
        await owner.send(json.dumps({"type": "create_table", "room": "spades", "id": 2,
                                     "rules": {"target": 1000, "mercy": None,
                                               "hand_limit": 200}}))
        # Long: random robots' failed bids take a side to -1000 in a few hands (mercy
        # there ended the game on a busy machine before the last watcher was cut off).
        table = json.loads(await owner.recv())["table"]["id"]
        slow = [await slow_reader(app, table) for _ in range(4)]
        await owner.send(json.dumps({"type": "fill_robots", "table": table, "level": "random",
                                     "id": 4}))
        # The robots play on; past its outbox each watcher is cut off (its close then waits
        # for a reader that never comes), and the server does not hoard for it.
        await wait_for(lambda: all(app.clients[i].closing for _, i in slow if i in app.clients))
        await alive(app)
        for ws, _ in slow:
            ws.transport.abort()
    for s in raw:
        s.close()
    await wait_for(lambda: app.sessions.per_ip["127.0.0.1"] == 0)


async def test_an_oversized_frame_is_closed_with_1009(app):
    async with connect(f"ws://127.0.0.1:{app.port}/ws", max_size=None) as ws:
        await ws.send("{" + " " * 100_000 + "}")
        with pytest.raises(ConnectionClosed) as err:
            await asyncio.wait_for(ws.recv(), 5)
        assert err.value.rcvd.code == 1009
    await alive(app)

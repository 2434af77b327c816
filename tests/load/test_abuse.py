"""Floods, slow readers, half-open connections and oversized frames, at the default limits."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from trickroom.server.app import App
from trickroom.server.config import load_config

FAST = dict(robot_delay=0.0, hand_pause=0.0, turn_seconds=30.0, reconnect_seconds=60.0,
            outbox_bytes=65536)


@pytest.fixture
async def app(tmp_path):
    server = App(load_config(**FAST), tmp_path / "abuse.sqlite3")
    await server.start("127.0.0.1", 0)
    yield server
    await server.stop()


async def alive(app: App) -> None:
    async with connect(f"ws://127.0.0.1:{app.port}/ws") as ws:
        await ws.send('{"type": "ping", "id": "alive"}')
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "pong"


async def test_a_flood_is_read_slowly_answered_in_order_and_the_server_stays_up(app):
    """Over its message rate a socket is read more slowly: it is neither refused nor
    closed, and another socket meanwhile is answered at once."""
    url = f"ws://127.0.0.1:{app.port}/ws"
    count = app.config.settings.message_burst + 150  # about three seconds over the rate
    async with connect(url) as ws:
        for i in range(count):
            await ws.send(json.dumps({"type": "ping", "id": i}))
        await alive(app)  # while the flood is still being read
        ids = [json.loads(await asyncio.wait_for(ws.recv(), 10))["id"] for _ in range(count)]
        assert ids == list(range(count))
    await alive(app)


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
    # Slow readers: watchers of a table that produces events, never reading.
    async with connect(url, max_queue=1) as owner:
        await owner.send('{"type": "guest", "id": 1}')
        await owner.recv()
        await owner.send('{"type": "create_table", "room": "spades", "id": 2}')
        table = json.loads(await owner.recv())["table"]["id"]
        slow = []
        for _ in range(4):
            ws = await connect(url, max_queue=1)
            await ws.send(json.dumps({"type": "guest", "id": 1}))
            await ws.send(json.dumps({"type": "watch", "table": table, "id": 2}))
            slow.append(ws)
        await owner.send(json.dumps({"type": "sit", "table": table, "id": 3}))
        await owner.send(json.dumps({"type": "fill_robots", "table": table, "level": "random",
                                     "id": 4}))
        # The owner reads nothing either: the robots play on; the server must not hoard.
        for _ in range(200):
            await asyncio.sleep(0.05)
            if app.sessions.per_ip["127.0.0.1"] <= 1 + 5:
                break
        await alive(app)
        for ws in slow:
            ws.transport.abort()
    for s in raw:
        s.close()
    for _ in range(100):
        if app.sessions.per_ip["127.0.0.1"] == 0:
            break
        await asyncio.sleep(0.05)
    assert app.sessions.per_ip["127.0.0.1"] == 0


async def test_an_oversized_frame_is_closed_with_1009(app):
    async with connect(f"ws://127.0.0.1:{app.port}/ws", max_size=None) as ws:
        await ws.send("{" + " " * 100_000 + "}")
        with pytest.raises(ConnectionClosed) as err:
            await asyncio.wait_for(ws.recv(), 5)
        assert err.value.rcvd.code == 1009
    await alive(app)

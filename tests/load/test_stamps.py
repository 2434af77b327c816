"""The benches' clock: a frame counts as received between its send and its read."""

from __future__ import annotations

import time

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from bench import stamps


@pytest.mark.parametrize("source", ["loop", "kernel"])
async def test_an_echo_is_stamped_after_its_send_and_before_its_read(source, monkeypatch):
    monkeypatch.setitem(stamps.STAMP, "source", source)

    async def echo(ws):
        async for message in ws:
            await ws.send(message)

    async with serve(echo, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}/", compression=None,
                           create_connection=stamps.StampedConnection) as ws:
            assert (ws._kernel is not None) == (source == "kernel")
            for n in range(20):
                sent = time.perf_counter()
                await ws.send(f"frame {n}")
                assert await ws.recv() == f"frame {n}"
                arrived = ws.arrival()
                assert sent < arrived < time.perf_counter()

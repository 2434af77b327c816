"""``bench.load``'s report: per level the server's figures beside the bare relay's, the floor,
the memory an idle socket costs, and the last line; and the floor server itself."""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3

from websockets.asyncio.client import connect

from bench import baselines
from bench.harness import free_port, wait_port
from tests.load.conftest import run_bench

LAST = {"tables", "p99_ms", "ratio_p50_vs_echo", "actions_per_s", "kib_per_conn", "errors",
        "cpu_us_per_action", "relay_cpu_us_per_action", "floor_cpu_us_per_action"}


def test_load_reports_every_level_the_floor_and_idle_memory_on_its_last_line():
    out, figures = run_bench("load", "--tables", "1", "--duration", "0.3", "--idle", "2",
                             "--no-pin")
    assert set(figures) == LAST, figures
    assert figures["tables"] == 1 and figures["errors"] == 0
    assert all(math.isfinite(v) and v >= 0 for v in figures.values()), figures
    assert "us/act" in out and "rly us" in out and "floor:" in out and "idle: 2 " in out


async def test_the_floor_stores_each_frame_before_sending_it_with_an_answer_and_a_prompt(
        tmp_path):
    """The floor: what any server of this protocol must do for one action."""
    port, db = free_port(), tmp_path / "floor.sqlite3"
    server = baselines.start(port, str(db))
    try:
        wait_port(port, server)
        members = [await connect(f"ws://127.0.0.1:{port}/floor") for _ in range(4)]
        for ws in members:
            await ws.send("table-1")
            assert await ws.recv() == "joined"
        await members[1].send('{"type":"event","seq":1}')
        got = [[await asyncio.wait_for(ws.recv(), 5)] for ws in members]
        for ws, frames in zip(members, got, strict=True):
            if ws in (members[1], members[2]):  # the mover's answer; the next seat's prompt
                frames.append(await asyncio.wait_for(ws.recv(), 5))
        assert all(frames[0] == '{"type":"event","seq":1}' for frames in got)
        assert json.loads(got[1][1])["type"] == "ok"
        assert json.loads(got[2][1])["type"] == "prompt"
        rows = sqlite3.connect(db).execute("SELECT game_id, seat, action FROM actions").fetchall()
        assert rows == [("table-1", 1, '{"type":"event","seq":1}')]
        for ws in members:
            await ws.close()
    finally:
        server.terminate()
        server.wait()

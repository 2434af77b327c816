"""bench/load.py's report: the server's CPU per action beside the bare relay's and the
floor's, per level and on the last line (the busiest level without think time)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from websockets.asyncio.client import connect

from tests.load.conftest import bench_module, run_bench

ROOT = Path(__file__).resolve().parents[2]


def test_load_reports_cpu_per_action_beside_the_relays():
    out, figures = run_bench("load", "--tables", "1,2@50", "--duration", "1.5", "--idle", "5")
    # The busiest level without think time is the 1-table one here; every figure measured.
    assert float(figures["cpu_us_per_action"]) > 0, figures
    assert float(figures["relay_cpu_us_per_action"]) > 0, figures
    assert float(figures["floor_cpu_us_per_action"]) > 0, figures
    assert "us/act" in out and "rly us" in out and "floor:" in out


async def test_the_floor_stores_each_frame_before_sending_it_with_an_answer_and_a_prompt(
        tmp_path):
    """bench/load.py's floor: what any server of this protocol must do for one action."""
    load = bench_module("load")
    port, db = load.free_port(), tmp_path / "floor.sqlite3"
    server = subprocess.Popen([sys.executable, str(ROOT / "bench" / "load.py"), "--echo-server",
                               str(port), "--echo-db", str(db)], cwd=ROOT)
    try:
        load.wait_port(port, server)
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

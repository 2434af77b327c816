"""A short ``bench/crash.py``: SIGKILL the server under load a few times; nothing acked is lost."""

from __future__ import annotations

from tests.load.conftest import bench_module


async def test_sigkills_under_load_lose_no_acknowledged_action_and_every_game_resumes(tmp_path):
    crash = bench_module("crash")
    out = await crash.crash_run(tables=4, kills=4, seed=7, workdir=tmp_path, quiet=True)
    assert out["kills"] == 4
    assert out["acked"] > 100  # the bots did play between the kills
    assert out["acked_lost"] == 0, out
    assert out["interrupted"] > 0 and out["resumed"] == out["interrupted"], out
    assert out["unfinished"] == 0, out

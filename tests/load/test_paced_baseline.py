"""bench/cluster.py's equal-load baseline: one process whose bots are paced to a cluster's
rate does that many actions a second, not as many as the process can."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.load.conftest import bench_module


async def test_a_paced_level_plays_at_the_rate_it_is_given_and_no_faster(tmp_path):
    cluster = bench_module("cluster")
    load = bench_module("load")
    config = Path(tmp_path) / "load.toml"
    config.write_text(load.LOAD_CONFIG)
    free = await cluster.load_level("free", [load.Server(tmp_path / "a.sqlite3", config)],
                                    tables=4, duration=1.5, seed=1)
    paced = await cluster.load_level("paced", [load.Server(tmp_path / "b.sqlite3", config)],
                                     tables=4, duration=1.5, seed=1, rate=150)
    assert free.actions_per_s > 600, free  # instant bots: far past the pace below
    assert 100 < paced.actions_per_s <= 150 * 1.1, paced
    assert paced.cpu_us > 0 and not paced.errors, paced


async def test_the_pacer_spaces_actions_evenly_over_every_caller():
    pacer = bench_module("cluster").Pacer(rate=200)
    start = time.perf_counter()
    await asyncio.gather(*(pacer.take() for _ in range(41)))
    assert time.perf_counter() - start >= 40 / 200 * 0.95  # 40 gaps of 5 ms, one after another

"""``bench.cluster``'s equal-load baseline: bots paced by one shared :class:`Pacer`, which
spaces every caller's actions evenly at its rate."""

from __future__ import annotations

import asyncio
import math

import pytest

from bench import cluster
from bench.harness import Server, room_file
from bench.players import Pacer


async def test_a_paced_level_reports_its_figures(tmp_path):
    config = room_file(tmp_path, "load")
    paced = await cluster.load_level("paced", [Server(tmp_path / "b.sqlite3", config)],
                                     tables=2, duration=0.3, seed=1, rate=200)
    assert paced.nodes == 1 and not paced.errors, paced
    assert math.isfinite(paced.p50), paced  # actions were timed
    assert paced.cpu_us >= 0 and math.isnan(paced.remote_ok_p50), paced  # no other node
    assert paced.wakes_per_action > 0, paced  # its loop slept between actions, and woke
    assert paced.preempted_per_action >= 0, paced


async def test_the_pacer_gives_every_caller_the_next_slot_one_gap_after_the_last():
    now = [10.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    pacer = Pacer(rate=200, clock=lambda: now[0], sleep=sleep)
    await asyncio.gather(*(pacer.take() for _ in range(41)))
    # 40 gaps of 5 ms, one after another
    assert slept == pytest.approx([0.005 * k for k in range(1, 41)])
    now[0] = 11.0  # later than every slot given: the next caller goes at once
    await pacer.take()
    assert len(slept) == 40 and pacer.next == pytest.approx(11.005)

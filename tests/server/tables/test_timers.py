"""A table's timers: each posts its command at its deadline, never before, and a replaced or
cancelled one never; a clock reset on every action keeps one loop handle."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from trickroom.server.loops import LOOPS, run
from trickroom.server.tables.timers import Timers

Scenario = Callable[[], Coroutine[Any, Any, None]]
SCENARIOS: list[Scenario] = []


def on_both_loops(scenario: Scenario) -> Scenario:
    """A scenario the server's timers must pass on uvloop and on asyncio's own loop (their
    handles differ: uvloop's of a timer due now is a plain ``Handle``)."""
    SCENARIOS.append(scenario)
    return scenario


class Fired:
    """What the timers posted, with the loop's time it came at."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.seen: list[tuple[str, float]] = []
        self.came = asyncio.Event()
        self.timers: Timers[str] = Timers(lambda: self.loop, self.post)

    def post(self, command: str) -> None:
        self.seen.append((command, self.loop.time()))
        self.came.set()

    async def next(self) -> None:
        await asyncio.wait_for(self.came.wait(), 10)
        self.came.clear()

    async def settle(self, seconds: float) -> None:
        """Past every deadline set (so a timer that should not ring had its chance)."""
        await asyncio.sleep(seconds)


@on_both_loops
async def a_timer_reset_later_posts_only_the_new_command_and_not_before_its_deadline():
    fired = Fired()
    fired.timers.set("turn", 0.02, "first")
    due = fired.loop.time() + 0.08
    fired.timers.set("turn", 0.08, "second")
    await fired.next()
    await fired.settle(0.05)
    assert [command for command, _ in fired.seen] == ["second"]
    # uvloop's clock counts whole milliseconds: a timer ringing at its deadline reads
    # 980.959 for a deadline computed as 980.879 + 0.08 = 980.9590000000001.
    assert fired.seen[0][1] >= due - 1e-9


@on_both_loops
async def a_timer_reset_sooner_posts_at_the_sooner_deadline_once():
    fired = Fired()
    fired.timers.set("turn", 5.0, "slow")
    fired.timers.set("turn", 0.01, "soon")
    await fired.next()
    assert fired.seen[0][0] == "soon"
    assert "turn" not in fired.timers
    fired.timers.cancel_all()  # the slow handle is gone: nothing is left on the loop


@on_both_loops
async def a_cancelled_timer_posts_nothing_and_can_be_set_again():
    fired = Fired()
    fired.timers.set("turn", 0.02, "cancelled")
    fired.timers.cancel("turn")
    assert "turn" not in fired.timers
    await fired.settle(0.05)
    assert fired.seen == []
    fired.timers.set("turn", 0.01, "again")
    await fired.next()
    assert [command for command, _ in fired.seen] == ["again"]


@on_both_loops
async def a_timer_that_rang_is_set_anew():
    fired = Fired()
    for command in ("one", "two"):
        fired.timers.set("deal", 0.0, command)
        await fired.next()
    assert [command for command, _ in fired.seen] == ["one", "two"]


@on_both_loops
async def timers_of_other_keys_ring_on_their_own():
    fired = Fired()
    fired.timers.set("turn", 0.03, "turn")
    fired.timers.set("robot-1", 0.0, "robot")
    fired.timers.cancel("turn")
    await fired.next()
    await fired.settle(0.05)
    assert [command for command, _ in fired.seen] == ["robot"]


@on_both_loops
async def cancel_all_leaves_nothing_to_ring():
    fired = Fired()
    fired.timers.set("turn", 0.01, "turn")
    fired.timers.set("deal", 0.01, "deal")
    fired.timers.cancel_all()
    await fired.settle(0.05)
    assert fired.seen == []


@on_both_loops
async def closed_timers_let_go_of_their_owner():
    """A closed table's runner is freed by reference counting as it closes, not at the
    next full collection: its timers, one pending and one that rang, hold it no more."""
    fired = Fired()
    fired.timers.set("turn", 30.0, "turn")
    fired.timers.set("deal", 0.0, "deal")
    await fired.next()
    owner = weakref.ref(fired)
    gc.disable()
    try:
        fired.timers.close()
        fired.timers.set("turn", 0.0, "after the close")
        del fired
        assert owner() is None
    finally:
        gc.enable()


@on_both_loops
async def a_clock_reset_on_every_action_takes_one_loop_handle():
    """The turn clock pushed later on each of 200 actions: one handle made, not 200."""
    fired = Fired()
    made = 0
    call_at = fired.loop.call_at

    def counting(*args):  # type: ignore[no-untyped-def]
        nonlocal made
        made += 1
        return call_at(*args)

    fired.loop.call_at = counting  # type: ignore[method-assign]
    try:
        for action in range(200):
            fired.timers.set("turn", 30.0, f"turn after action {action}")
        assert made == 1 and "turn" in fired.timers
    finally:
        fired.timers.cancel_all()
        del fired.loop.call_at  # type: ignore[method-assign]


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.__name__)
def test_timers(scenario: Scenario, loop: str) -> None:
    run(scenario(), loop)

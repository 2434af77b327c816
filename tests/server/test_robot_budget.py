"""Nothing a client starts may cost the server more than its share (issue 32, A).

Searching robots think only while a player sits at their table (test_robot_explain.py);
what they think then is charged to the address groups of the players seated there, each
group with a budget of processor seconds, the groups taking turns for a few thinkers
(server/thinking.py). A group past its budget gets the rule of thumb's moves, while
another group's robots still search. And no game lasts for ever: the rules bound the
target, the mercy and the hands a game may last.
"""

from __future__ import annotations

import asyncio
import random
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from tests.server.conftest import play_until_over, url
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.game.actions import Bid
from trickroom.game.robots import SearchRobot
from trickroom.game.spades import SpadesGame
from trickroom.server.client import TrickroomClient
from trickroom.server.thinking import Thinking

LONG = {"target": 1000, "mercy": 1000}


async def play_seat(client: TrickroomClient, table: str, robot_bids: list[dict[str, Any]],
                    bid_seen: asyncio.Event) -> None:
    """Play the client's seat at once at every prompt, game after game, keeping the
    robots' bids (a searched one is told with a reason; the rule of thumb's with none)."""
    rng, answered = random.Random(3), -1
    async for message in client.messages():
        if message.get("table") != table:
            continue
        if message["type"] == "prompt" and message["seq"] > answered:
            answered = message["seq"]
            legal = message["legal"]
            action = ({"type": "pass", "cards": rng.sample(message["hand"], 3)}
                      if message["phase"] == "pass" else rng.choice(legal))
            await client.act(table, action)
        elif message["type"] == "event":
            event = message["event"]
            if event["type"] == "bid" and event["seat"] != 0:
                robot_bids.append(event)
                bid_seen.set()
            elif event["type"] == "game_over":
                await client.request({"type": "play_again", "table": table})


async def bids_until(bids: list[dict[str, Any]], seen: asyncio.Event, done) -> None:
    while not done(bids):
        seen.clear()
        await seen.wait()


async def test_a_group_past_its_thinking_budget_gets_the_heuristic_while_another_s_robots_search(
        make_app):
    """One address sits at two tables of searching robots and plays its seats as fast as
    it can: once its robots have thought for its budget (one second of a core here, not
    refilled), they play by rule of thumb; a player of another address then sits down at
    a table of searching robots, and its robots search."""
    app = await make_app(robot_thinking_burst_per_address=1.0,
                         robot_thinking_per_second_per_address=0.0)
    one = {"local_addr": ("127.0.0.2", 0)}
    async with TrickroomClient.connect(url(app), **one) as first, \
            TrickroomClient.connect(url(app), **one) as second, \
            TrickroomClient.connect(url(app), local_addr=("127.0.0.3", 0)) as other:
        tasks, heavy_bids, seen = [], [], asyncio.Event()
        for n, client in enumerate((first, second)):
            table, _ = await solo_table(client, rules=LONG, level="search", name=f"heavy{n}")
            tasks.append(asyncio.create_task(play_seat(client, table, heavy_bids, seen)))
        try:
            # The heavy address's robots search at first, then play by rule of thumb.
            await asyncio.wait_for(bids_until(heavy_bids, seen, lambda bids: any(
                not bid.get("why") for bid in bids)), 90)
            assert any(bid.get("why") for bid in heavy_bids), heavy_bids  # searched first
            # Another address, meanwhile: its robots' first bids are all searched.
            other_bids, other_seen = [], asyncio.Event()
            table, _ = await solo_table(other, rules=LONG, level="search", name="light")
            tasks.append(asyncio.create_task(play_seat(other, table, other_bids, other_seen)))
            await asyncio.wait_for(bids_until(other_bids, other_seen,
                                              lambda bids: len(bids) >= 3), 90)
            assert all(bid.get("why") for bid in other_bids[:3]), other_bids
            # And the heavy address's robots still play by rule of thumb.
            count = len(heavy_bids)
            await asyncio.wait_for(bids_until(heavy_bids, seen,
                                              lambda bids: len(bids) >= count + 3), 90)
            assert not any(bid.get("why") for bid in heavy_bids[count:]), heavy_bids[count:]
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


class Waiting:
    """A robot that thinks until it is let go, saying which it is."""

    def __init__(self, name: str, order: list[str], go: threading.Event) -> None:
        self.name, self.order, self.go = name, order, go

    def choose(self, view: Any) -> Bid:
        self.go.wait(10)
        self.order.append(self.name)
        return Bid(1)


async def test_the_groups_take_turns_and_a_full_queue_plays_the_rule_of_thumb_at_once():
    """One thinker: while it thinks for group a, a's two more searches and b's one wait;
    b's goes between a's. A third search of a (its queue holds two) is not queued."""
    thinking = Thinking(thinkers=1, worker="thread", queue_per_group=2)
    order: list[str] = []
    go = threading.Event()
    first = asyncio.create_task(thinking.think(Waiting("a1", order, go), None, ["a"]))
    await asyncio.sleep(0)
    assert thinking.running == 1
    queued = [asyncio.create_task(thinking.think(Waiting(name, order, go), None, [group]))
              for name, group in (("a2", "a"), ("a3", "a"), ("b1", "b"))]
    await asyncio.sleep(0)
    assert await thinking.think(Waiting("a4", order, go), None, ["a"]) is None  # a's queue full
    go.set()
    thoughts = await asyncio.gather(first, *queued)
    assert order == ["a1", "a2", "b1", "a3"]
    assert all(t is not None and t.action == Bid(1) for t in thoughts)
    thinking.close()


@pytest.mark.parametrize("room, rules, field, bounds", [
    ("spades", {"target": 5000, "mercy": None}, "target", "1..1000"),
    ("spades", {"target": 500, "mercy": 5000}, "mercy", "1..1000"),
    ("spades", {"hand_limit": 201}, "hand_limit", "1..200"),
    ("hearts", {"hand_limit": 500}, "hand_limit", "1..200")])
async def test_rules_that_would_let_a_game_last_for_hours_are_refused_by_name(app, room, rules,
                                                                               field, bounds):
    """Spades to 5000 with no mercy made robots' games last for hours: the target and the
    mercy go to 1000 at most, and a game to 200 hands."""
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "long"})
        error = await refused(client, {"type": "create_table", "room": room, "rules": rules})
    assert error["code"] == "invalid_field"
    assert f"{field} must be {bounds}" in error["message"], error


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_a_game_ends_at_its_hand_limit_on_the_score_as_it_stands(app, room):
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, room=room, rules={
            "target": 1000, **({"mercy": 1000} if room == "spades" else {}), "hand_limit": 2})
        over = await asyncio.wait_for(play_until_over(client, table, random.Random(5)), 60)
        hands = [m["event"] for m in client.received if m.get("type") == "event"
                 and m["event"]["type"] == "hand_scored"]
    assert len(hands) == 2
    scores = over["event"]["scores"]
    assert max(scores) < 1000 and scores == hands[-1]["scores"]


async def test_a_robot_thinking_in_a_worker_process_chooses_as_it_would_here_and_keeps_its_state():
    """A robot's state (its random generators) goes to the worker process with the view
    and comes back with the move: a robot thinking there, move after move, bids and
    explains exactly as one of the same seed thinking in this process."""
    thinking = Thinking(thinkers=1, worker="process")
    try:
        game = SpadesGame(seed=11)
        away, here = SearchRobot(5), SearchRobot(5)
        for _ in range(4):  # the four bids of the first hand, the robots bidding for each seat
            view = game.view(game.to_act)
            thought = await thinking.think(away, view, ["g"])
            assert thought is not None
            away = thought.robot  # what came back is the robot now
            assert thought.action == here.choose(view)
            assert (thought.why, thought.told) == (here.explain(), here.tell())
            game.apply(thought.action)
        assert game.phase == "play"
    finally:
        thinking.close()


async def test_a_worker_process_that_dies_costs_one_move_at_the_heuristic():
    thinking = Thinking(thinkers=1, worker="process")
    try:
        game = SpadesGame(seed=12)
        view = game.view(game.to_act)
        assert await thinking.think(SearchRobot(1), view, ["g"]) is not None
        pool = thinking._pool
        assert isinstance(pool, ProcessPoolExecutor)
        for process in list(pool._processes.values()):
            process.kill()
            process.join()
        assert await thinking.think(SearchRobot(1), view, ["g"]) is None  # the heuristic
        assert await thinking.think(SearchRobot(1), view, ["g"]) is not None  # a new worker
    finally:
        thinking.close()


def test_a_group_s_budget_refills_at_its_rate_and_is_forgotten_once_full():
    now = [0.0]
    thinking = Thinking(burst=2.0, rate=0.5, clock=lambda: now[0])
    thinking._charge("a", 3.0)
    assert thinking.credit("a") == -1.0
    assert thinking.payer(["a"]) is None  # owes: the heuristic
    assert thinking.payer(["a", "b"]) == "b"  # a table with a player of another group
    now[0] = 4.0
    assert thinking.credit("a") == 1.0 and thinking.payer(["a"]) == "a"
    now[0] = 100.0
    assert thinking.credit("a") == 2.0 and "a" not in thinking._credits

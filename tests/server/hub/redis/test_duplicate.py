"""Duplicate rooms on a cluster (issue 39, item 5): the tables of one board set run on
different nodes and meet through the store (PostgreSQL): the set, its tables' claims and
their results per deal are there, and each node's table hears of the field from it."""

from __future__ import annotations

import random
from contextlib import AsyncExitStack

from tests.server.conftest import http_get, next_pushed, play_until_over, url
from tests.server.test_duplicate_rooms import board_of, duplicate_table
from trickroom.server.client import TrickroomClient


async def test_a_board_sets_tables_on_two_nodes_meet_through_the_store(cluster):
    first_node, second_node = await cluster.node(), await cluster.node()
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(TrickroomClient.connect(url(first_node)))
        bob = await stack.enter_async_context(TrickroomClient.connect(url(second_node)))
        await ann.request({"type": "guest", "name": "ann"})
        await bob.request({"type": "guest", "name": "bob"})
        first = await duplicate_table(ann, "spades-duplicate")
        await play_until_over(ann, first, random.Random(1))
        assert first in first_node.lobby.tables
        second = await duplicate_table(bob, "spades-duplicate")
        assert second in second_node.lobby.tables  # each table runs on its own node
        await play_until_over(bob, second, random.Random(2))
        told = [await next_pushed(c, "event", lambda m: m["event"]["type"] == "board_result",
                                  timeout=20) for c in (ann, bob)]
        set_id = board_of(ann, first)["board_set"]
        assert board_of(bob, second)["board_set"] == set_id
    assert {t["event"]["board_set"] for t in told} == {set_id}
    stored = await second_node.store.board(set_id)
    assert stored is not None and stored["slots"] == 2
    assert {t["table"] for t in stored["tables"].values()} == {first, second}
    assert all(t["finished"] for t in stored["tables"].values())
    assert sorted(stored["deals"][0]) == sorted(stored["deals"][1]) == [0, 1]
    game_id = stored["tables"][0]["game_id"]
    status, _, _ = await http_get(second_node, f"/api/games/{game_id}")
    assert status == 200  # the set is complete: either node shows its games

"""A player's games export on a cluster (issue 36, item 7): every node answers it from the
shared store, whichever node ran the games."""

from __future__ import annotations

from tests.server.conftest import http_get
from tests.server.test_export import games_of, lines


async def test_any_node_exports_the_games_another_node_ran(cluster):
    ran, other = await cluster.node(), await cluster.node()
    ended = await games_of(ran, "ivy", 2)
    _, _, here = await http_get(ran, "/api/players/ivy/games.jsonl")
    _, _, there = await http_get(other, "/api/players/ivy/games.jsonl")
    assert [g["id"] for g in lines(there)] == ended[::-1]
    assert lines(there) == lines(here)

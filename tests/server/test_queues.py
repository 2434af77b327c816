"""The random queue's draw (server/queues.py): four players apart, as a pure function of
the queue, the players' last ranked games and the draw's randomness."""

from __future__ import annotations

import random

from trickroom.server.hub.port import Queued
from trickroom.server.queues import four_apart


def queued(*entries: tuple[str, str]) -> list[Queued]:
    return [Queued(i, name, False, group, float(i)) for i, (name, group) in enumerate(entries)]


def test_four_who_just_played_only_each_other_wait_for_a_fifth():
    four = queued(("ann", "a"), ("bob", "b"), ("cat", "c"), ("dan", "d"))
    last = {name: "g1" for name in ("ann", "bob", "cat", "dan")}
    for seed in range(20):
        assert four_apart(four, random.Random(seed), last) is None
    with_eve = [*four, *queued(("eve", "e"))]
    for seed in range(20):
        drawn = four_apart(with_eve, random.Random(seed), last)
        assert drawn is not None and "eve" in {p.name for p in drawn}
        assert len({p.address for p in drawn}) == 4


def test_the_fifth_replaces_the_one_of_its_own_group():
    """eve shares ann's address group: the four drawn are eve, bob, cat and dan."""
    players = queued(("ann", "a"), ("bob", "b"), ("cat", "c"), ("dan", "d"), ("eve", "a"))
    last = {name: "g1" for name in ("ann", "bob", "cat", "dan")}
    for seed in range(20):
        drawn = four_apart(players, random.Random(seed), last)
        assert drawn is not None and {p.name for p in drawn} == {"eve", "bob", "cat", "dan"}


def test_players_who_met_last_time_but_not_all_four_may_meet_again():
    players = queued(("ann", "a"), ("bob", "b"), ("cat", "c"), ("dan", "d"))
    last = {"ann": "g1", "bob": "g1", "cat": "g1", "dan": "g2"}
    drawn = four_apart(players, random.Random(1), last)
    assert drawn is not None and len(drawn) == 4

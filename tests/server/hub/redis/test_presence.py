"""Presence on a cluster (issue 35): a node keeps its players' presence in a hash that
lives as long as it renews its leases, so a renewal that comes late (its ``alive`` key
lapsed a moment) does not make its players look offline to other nodes' followers, and a
node that dies takes its players' presence with it."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack

import redis.asyncio as aioredis

from tests.server.conftest import next_pushed, url
from tests.services import REDIS
from trickroom.server.client import TrickroomClient


async def test_a_node_s_late_renewal_does_not_make_its_players_look_offline(cluster):
    a = await cluster.node(password_profile="cheapest")
    b = await cluster.node(password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(TrickroomClient.connect(url(a)))
        bob = await stack.enter_async_context(TrickroomClient.connect(url(b)))
        await ann.request({"type": "register", "name": "ann", "password": "ann-secret"})
        await bob.request({"type": "register", "name": "bob", "password": "bob-secret"})
        await ann.request({"type": "follow", "name": "bob"})
        # Bob's presence reaches a's reads through Redis: given a lease to get there (one
        # full run in nine saw him offline at the first look, on a slow moment).
        assert await _online(ann, a.hub.node.lease_seconds)
        client = aioredis.from_url(REDIS)
        try:  # b's lease lapses for a moment (a pause), as a loaded machine's may
            await client.delete(f"{cluster.prefix}:alive:{b.hub.node.number}")
        finally:
            await client.aclose()
        table = (await bob.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await bob.request({"type": "sit", "table": table})
        seen = await next_pushed(ann, "presence", lambda m: m["name"] == "bob")
        assert seen["online"] is True and seen["at"]["table"] == table


async def _online(client: TrickroomClient, within: float) -> bool:
    """Whether the first player ``client`` follows looks online within ``within`` s."""
    deadline = time.monotonic() + within
    while True:
        if (await client.request({"type": "friends"}))["players"][0]["online"] is True:
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)

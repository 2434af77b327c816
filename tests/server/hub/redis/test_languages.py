"""Languages across nodes (issue 37): a table's texts for people reach another node's
clients each in their own language, and a refusal forwarded to the table's node comes
back in the asker's."""

from __future__ import annotations

import asyncio
import re
from contextlib import AsyncExitStack

from tests.server.conftest import url
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.server.client import TrickroomClient

GREEK = re.compile(r"[α-ωά-ώ]")


async def test_another_nodes_watchers_read_the_robots_reasons_each_in_their_language(cluster):
    nodes = [await cluster.node() for _ in range(2)]
    async with AsyncExitStack() as stack:
        player = await stack.enter_async_context(TrickroomClient.connect(url(nodes[0])))
        greek = await stack.enter_async_context(TrickroomClient.connect(
            url(nodes[1]), additional_headers={"Accept-Language": "el"}))
        english = await stack.enter_async_context(TrickroomClient.connect(url(nodes[1])))
        table, _ = await solo_table(player, "spades", {"target": 1, "mercy": 1000},
                                    level="search", name="host")
        assert table in nodes[0].lobby.tables and table not in nodes[1].lobby.tables
        for name, client in (("eleni", greek), ("ed", english)):
            await client.request({"type": "guest", "name": name})
            await client.request({"type": "watch", "table": table})
        # A refusal the table's node makes, in the asker's language, on the asker's node.
        error = await refused(greek, {"type": "stand", "table": table})
        assert error["code"] == "not_seated" and GREEK.search(error["message"])

        def whys(client: TrickroomClient) -> dict[int, str]:
            return {m["seq"]: m["event"]["why"] for m in client.received
                    if m.get("type") == "event" and m["event"]["type"] == "bid"
                    and m["event"].get("why")}

        async def bids_told() -> None:
            answered = -1
            async for message in player.messages():
                if message["type"] == "prompt" and message["seq"] > answered:
                    answered = message["seq"]
                    legal = [a for a in message["legal"] if a.get("value")] or message["legal"]
                    await player.act(table, legal[0])
                if len(set(whys(greek)) & set(whys(english))) >= 2:
                    return

        await asyncio.wait_for(bids_told(), 120)
    both = sorted(set(whys(greek)) & set(whys(english)))
    assert len(both) >= 2
    for seq in both:
        assert GREEK.search(whys(greek)[seq]) and not GREEK.search(whys(english)[seq])

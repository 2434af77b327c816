"""Languages across nodes (issue 37): a table's texts for people reach another node's
client in its language, and a refusal forwarded to the table's node comes back in the
asker's."""

from __future__ import annotations

import asyncio
import random
import re
from contextlib import AsyncExitStack

from tests.server.conftest import choose, url
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient

GREEK = re.compile(r"[α-ωά-ώ]")


async def test_a_player_on_another_node_reads_the_tables_texts_in_its_language(cluster):
    nodes = [await cluster.node() for _ in range(2)]
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(TrickroomClient.connect(url(nodes[0])))
        player = await stack.enter_async_context(TrickroomClient.connect(
            url(nodes[1]), additional_headers={"Accept-Language": "el"}))
        await host.request({"type": "guest", "name": "host"})
        await player.request({"type": "guest", "name": "eleni"})
        created = await host.request({"type": "create_table", "room": "spades",
                                      "rules": {"target": 100, "mercy": 100}})
        table = created["table"]["id"]
        assert table in nodes[0].lobby.tables and table not in nodes[1].lobby.tables
        # A refusal the table's node makes, in the asker's language, on the asker's node.
        error = await refused(player, {"type": "stand", "table": table})
        assert error["code"] == "not_seated" and GREEK.search(error["message"])
        await player.request({"type": "sit", "table": table, "seat": 0})
        await player.request({"type": "fill_robots", "table": table, "level": "random"})
        rng = random.Random(4)

        async def reasons() -> list[str]:
            answered = -1
            async for message in player.messages():
                if message["type"] != "prompt" or message["seq"] <= answered:
                    continue
                answered = message["seq"]
                if message["illegal"]:
                    return [i["reason"] for i in message["illegal"]]
                await player.act(table, choose(message, rng))
            raise AssertionError("the connection closed")

        said = await asyncio.wait_for(reasons(), 120)
    assert said and all(GREEK.search(reason) for reason in said), said


async def next_event(client: TrickroomClient, kind: str) -> dict:
    async for message in client.messages():
        if message["type"] == "event" and message["event"]["type"] == kind:
            return message["event"]
    raise AssertionError("the connection closed")


async def test_a_tables_texts_reach_each_spectator_of_another_node_in_its_language(cluster):
    """A table's texts cross to another node as template and values, and that node renders
    them for each of its readers: a spectator who chose Greek after it began watching (no
    request of it went to the table's node since) reads Greek, one beside it English."""
    nodes = [await cluster.node(table_idle_seconds=0.5) for _ in range(2)]
    async with AsyncExitStack() as stack:
        host = await stack.enter_async_context(TrickroomClient.connect(url(nodes[0])))
        eleni = await stack.enter_async_context(TrickroomClient.connect(url(nodes[1])))
        john = await stack.enter_async_context(TrickroomClient.connect(url(nodes[1])))
        await host.request({"type": "guest", "name": "host"})
        await eleni.request({"type": "register", "name": "eleni", "password": "eleni-pw"})
        await john.request({"type": "guest", "name": "john"})
        created = await host.request({"type": "create_table", "room": "spades"})
        table = created["table"]["id"]
        assert table in nodes[0].lobby.tables and table not in nodes[1].lobby.tables
        await host.request({"type": "sit", "table": table, "seat": 0})
        for spectator in (eleni, john):
            await spectator.request({"type": "watch", "table": table})
        # Chosen on her own node: the table's node is not asked.
        assert (await eleni.request({"type": "settings", "language": "el"}))["language"] == "el"
        await host.request({"type": "stand", "table": table})  # empty: it closes, idle
        said = await asyncio.wait_for(asyncio.gather(
            next_event(eleni, "closed"), next_event(john, "closed")), 30)
    assert said[1]["reason"] == "nobody sat at the table"
    assert GREEK.search(said[0]["reason"]), said

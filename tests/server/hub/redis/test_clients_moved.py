"""The client packages play on their table's own node (issue 36, item 5): a bot that sits
at a table of another node is told ``moved``, follows it (a socket there, its session
resumed) and plays the whole game there, in Python and in JavaScript alike."""

from __future__ import annotations

import asyncio
import json

from tests.clients.js import checkout
from tests.server.conftest import url
from tests.server.hub.redis.test_moved import NODE_URL, known_to, open_table
from trickroom_client import TrickroomClient, play_games, random_action, sign_in, take_a_seat

__all__ = ["checkout"]

# The JavaScript bot: its steps as the Python test's, and where its socket ended.
JS_BOT = """
import { TrickroomClient, playGames, randomAction, signIn, takeASeat } from "trickroom-client";
const [where, table] = process.argv.slice(1);
const client = await TrickroomClient.connect(where);
await signIn(client, { name: "js-traveller" });
await takeASeat(client, { table, fillRobots: "random" });
const [result] = await playGames(client, table, randomAction);
console.log(JSON.stringify({ url: client.url, result }));
await client.close();
"""


async def test_the_python_client_follows_moved_and_plays_the_game_there(cluster):
    owner, other = await cluster.node(**NODE_URL), await cluster.node(**NODE_URL)
    await known_to(other, owner)
    async with TrickroomClient.connect(url(owner)) as host, \
            TrickroomClient.connect(url(other)) as bot:
        table = await open_table(host)
        await sign_in(bot, "traveller")
        await take_a_seat(bot, table=table, fill_robots="random")
        assert bot.url == url(owner) and bot.home == url(other)
        [result] = await asyncio.wait_for(play_games(bot, table, random_action), 60)
        assert result["type"] == "game_over"
        assert any(m.get("type") == "moved" for m in bot.received)


async def test_the_js_client_follows_moved_and_plays_the_game_there(cluster, checkout):
    owner, other = await cluster.node(**NODE_URL), await cluster.node(**NODE_URL)
    await known_to(other, owner)
    async with TrickroomClient.connect(url(owner)) as host:
        table = await open_table(host)
        proc = await asyncio.create_subprocess_exec(
            "node", "--input-type=module", "-e", JS_BOT, url(other), table, cwd=checkout,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    played = json.loads(out.decode())
    assert played["url"] == url(owner) and played["result"]["type"] == "game_over"

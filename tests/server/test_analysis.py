"""A finished game's analysis on request (issue 38), over the socket and HTTP: queued,
run off the event loop in a worker process, its progress and result readable by anyone,
kept and reused; bounded per address and per server, every refusal typed."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from tests.server.conftest import FAST, http_get, play_until_over, url
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


@pytest.fixture
async def analysing_app(tmp_path):
    app = App(load_config(**FAST, analysis_samples=6, analysis_queue=2), tmp_path / "t.sqlite3")
    await app.start("127.0.0.1", 0)
    yield app
    await app.stop()


async def finished_game(client: TrickroomClient, app: App, room: str = "spades",
                        seed: int = 1, hands: int = 1) -> str:
    """A game of ``hands`` hands the client played (North) against heuristic robots."""
    made = await client.request({"type": "create_table", "room": room,
                                 "rules": {"hand_limit": hands}})
    table = made["table"]["id"]
    await client.request({"type": "sit", "table": table, "seat": 0})
    await client.request({"type": "fill_robots", "table": table, "level": "heuristic"})
    await play_until_over(client, table, random.Random(seed))
    game_id = app.lobby.tables[table].machine.state.game_id
    await client.request({"type": "stand", "table": table})
    return game_id


async def result_of(app: App, game_id: str, timeout: float = 60.0) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            status, _, body = await http_get(app, f"/api/games/{game_id}/analysis")
            answer = json.loads(body)
            if status == 200:
                return answer
            assert status == 202 and answer["state"] in ("queued", "running"), answer
            assert 0 <= answer["done"] <= answer["total"]
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_a_player_asks_for_a_game_s_analysis_and_reads_each_decision(analysing_app,
                                                                         room):
    app = analysing_app
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        game_id = await finished_game(client, app, room)
        status, _, _ = await http_get(app, f"/api/games/{game_id}/analysis")
        assert status == 404  # never asked
        asked = await client.request({"type": "analyse", "game_id": game_id})
        assert asked["type"] == "analysis" and asked["state"] in ("queued", "running", "done")
        assert asked["total"] == 1
        answer = await result_of(app, game_id)
        analysis = answer["analysis"]
        assert answer["state"] == "done" and analysis["samples"] == 6
        assert [s["seat"] for s in analysis["seats"]] == [0]  # the person's seat alone
        decisions = analysis["decisions"]
        assert decisions and {d["seat"] for d in decisions} == {0}
        for d in decisions:
            assert d["chosen"] in [o["action"] for o in d["options"]]
            assert d["loss"] >= 0 and d["loss_se"] >= 0
            # (never within twice the error: the wire's figures are rounded to 0.01)
            assert d["label"] is None or d["loss"] >= 2 * d["loss_se"] - 0.01
        assert analysis["seats"][0]["decisions"] == len(decisions)
        again = await client.request({"type": "analyse", "game_id": game_id})
        assert again["state"] == "done"  # kept and reused: no second run


async def test_an_address_asks_one_at_a_time_and_bad_games_are_refused(analysing_app):
    app = analysing_app
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        first = await finished_game(client, app, seed=1)
        second = await finished_game(client, app, seed=2)
        await client.request({"type": "analyse", "game_id": first})
        error = await refused(client, {"type": "analyse", "game_id": second})
        assert error["code"] == "rate_limited" and error["retry_after"] > 0
        assert (await app.store.analysis(second)) is None  # nothing queued
        error = await refused(client, {"type": "analyse", "game_id": "nope-00000000"})
        assert error["code"] == "not_found"
        await result_of(app, first)
        await client.request({"type": "analyse", "game_id": second})  # its turn now
        await result_of(app, second)


async def test_the_analysis_runs_in_a_worker_process_not_on_the_event_loop(analysing_app):
    app = analysing_app
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        game_id = await finished_game(client, app)
        await client.request({"type": "analyse", "game_id": game_id})
        await result_of(app, game_id)
    pool = app.analyses._pool
    assert pool is not None and pool._processes  # a process of its own did the work
    assert all(pid != __import__("os").getpid() for pid in pool._processes)

"""A finished game's analysis on request (issue 38), over the socket and HTTP: queued,
run off the event loop in a worker process, its progress and result readable by anyone,
kept and reused; bounded per address and per server, every refusal typed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from dataclasses import replace

import pytest

from tests.server.conftest import FAST, http_get, play_until_over, url
from tests.server.refusals import refused
from tests.server.test_ranked import autoplay, game_id_of, players, ranked_config, seat
from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.store import open_store


@pytest.fixture
async def analysing_app(tmp_path):
    app = App(load_config(**FAST, analysis_samples=6, analysis_queue=2,
                          analysis_queue_per_player=1), tmp_path / "t.sqlite3")
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
            if status == 429:  # the API's budget (10 a second): a slow machine's long wait
                await asyncio.sleep(1.0)
                continue
            assert status == 202 and answer["state"] in ("queued", "running"), answer
            assert 0 <= answer["done"] <= answer["total"]
            await asyncio.sleep(0.2)


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
        assert error["code"] == "too_many_analyses" and error["retry_after"] > 0
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


async def test_an_account_has_at_most_its_bound_of_analyses_waiting_from_any_address(tmp_path):
    """``analysis_queue_per_player``: an account's jobs counted wherever it asks from (a
    typed refusal, in the asker's language), an address group's too (guests are cheap)."""
    app = App(load_config(**FAST, analysis_samples=6, analysis_workers=1,
                          analysis_queue_per_player=2), tmp_path / "t.sqlite3")
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app), local_addr=("127.0.0.21", 0)) as home, \
                TrickroomClient.connect(url(app), local_addr=("127.0.0.22", 0)) as away, \
                TrickroomClient.connect(url(app), local_addr=("127.0.0.22", 0)) as other:
            await home.request({"type": "register", "name": "ann", "password": "secret-ann"})
            games = [await finished_game(home, app, seed=s) for s in (1, 2, 3, 4)]
            await away.request({"type": "login", "name": "ann", "password": "secret-ann",
                                "language": "el"})
            await other.request({"type": "guest", "name": "bob"})
            app.analyses.jobs.add("held")  # the one worker busy: the jobs wait meanwhile
            await home.request({"type": "analyse", "game_id": games[0]})
            await away.request({"type": "analyse", "game_id": games[1]})  # ann's 2nd
            error = await refused(away, {"type": "analyse", "game_id": games[2]})
            assert error["code"] == "too_many_analyses" and error["retry_after"] > 0
            assert "αναλύσεις" in error["message"]  # the asker's language
            assert (await app.store.analysis(games[2])) is None
            # bob at away's address: one of the address's two is ann's; he may ask one
            await other.request({"type": "analyse", "game_id": games[2]})
            error = await refused(other, {"type": "analyse", "game_id": games[3]})
            assert error["code"] == "too_many_analyses"  # the address group's two
            app.analyses.jobs.discard("held")
            app.analyses._wake.set()
            for game_id in games[:3]:
                await result_of(app, game_id)
            await away.request({"type": "analyse", "game_id": games[3]})  # room again
            await result_of(app, games[3])
    finally:
        await app.stop()


@pytest.mark.parametrize("auto", [True, False])
async def test_a_finished_ranked_game_is_analysed_unasked_when_the_host_says_so(tmp_path,
                                                                               auto):
    """``analysis_auto_ranked``: on, each finished ranked game's analysis is made without
    anyone asking, behind the asked ones (a player's request is not refused for it), and
    the players' profiles show their accuracy; off, nothing is analysed unasked."""
    config = ranked_config()
    config = replace(config, settings=replace(
        config.settings, analysis_samples=4, analysis_auto_ranked=auto, analysis_queue=1,
        analysis_queue_per_player=1))
    app = App(config, tmp_path / "ranked.sqlite3")
    await app.start("127.0.0.1", 0)
    names = ["ann", "bob", "cat", "dan"]
    try:
        async with contextlib.AsyncExitStack() as stack:
            clients = await players(app, stack, names)
            table = await seat(clients, "spades-zone")
            await asyncio.wait_for(asyncio.gather(
                *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
            ranked = game_id_of(clients[0])
            for client in clients:
                await client.request({"type": "stand", "table": table})
            # ann asks for a casual game's analysis: taken first, never refused for the
            # automatic one (the host's bound and hers are 1 each)
            casual = await finished_game(clients[0], app)
            await clients[0].request({"type": "analyse", "game_id": casual})
            await result_of(app, casual)
            if auto:
                analysis = (await result_of(app, ranked))["analysis"]
                assert [s["seat"] for s in analysis["seats"]] == [0, 1, 2, 3]
                stored = await app.store.analysis(ranked)
                assert stored is not None and stored["asker"] == "auto"
            else:
                assert await app.store.analysis(ranked) is None  # (queued at once if at all)
            profile = json.loads((await http_get(app, "/api/players/bob"))[2])
            if auto:
                seat_of_bob = analysis["seats"][1]
                assert profile["accuracy"] == [{
                    "game": "spades", "accuracy": pytest.approx(seat_of_bob["accuracy"], abs=0.06),
                    "games": 1, "decisions": seat_of_bob["decisions"]}]
            else:
                assert profile["accuracy"] == []
            ann = json.loads((await http_get(app, "/api/players/ann"))[2])["accuracy"]
            assert [(a["game"], a["games"]) for a in ann] == [("spades", 1 + auto)]
    finally:
        await app.stop()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
async def test_the_workers_take_every_asked_job_before_an_automatic_one(tmp_path, engine):
    schema = None
    if engine == "sqlite":
        target = str(tmp_path / "db.sqlite3")
    else:
        need("postgresql")
        schema = fresh_name("t_analysis")
        target = f"{POSTGRES}?schema={schema}"
    store = open_store(target)
    await store.open()
    try:
        await store.analysis_queued("auto-00000001", 1, 1.0, "auto")
        await store.analysis_queued("asked-0000001", 1, 2.0, "127.0.0.1/32|ann")
        await store.analysis_queued("auto-00000002", 1, 3.0, "auto")
        await store.analysis_queued("asked-0000002", 1, 4.0, "127.0.0.2/32|bob")
        taken = [await store.analysis_claim("n1", 10.0 + i, 0.0) for i in range(5)]
        assert taken == ["asked-0000001", "asked-0000002", "auto-00000001", "auto-00000002",
                         None]
    finally:
        await store.close()
        if schema is not None:
            await drop_schema(schema)

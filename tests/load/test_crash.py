"""A short ``bench/crash.py``: SIGKILL the server under load a few times; nothing acked is lost."""

from __future__ import annotations

import random
from collections import Counter

from server.app import App
from server.client import TrickroomClient
from server.config import load_config
from tests.load.conftest import bench_module
from tests.server.conftest import FAST, play_until_over, url, wait_for
from tests.server.test_seats import solo_table


async def test_sigkills_under_load_lose_no_acknowledged_action_and_every_game_resumes(tmp_path):
    crash = bench_module("crash")
    out = await crash.crash_run(tables=4, kills=4, seed=7, workdir=tmp_path, quiet=True)
    assert out["kills"] == 4
    assert out["acked"] > 100  # the bots did play between the kills
    assert out["acked_lost"] == 0, out
    assert out["interrupted"] > 0 and out["resumed"] == out["interrupted"], out
    assert out["unfinished"] == 0, out


async def test_a_resumed_table_numbers_events_past_every_earlier_game(tmp_path):
    """A table's second game, resumed after a restart, must not reuse the first's seqs."""
    db = tmp_path / "seq.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client, rules={"target": 100, "mercy": 100})
        await play_until_over(client, table_id, random.Random(3))
        app.lobby.tables[table_id].seq += 5000  # as after a few more games at this table
        await client.request({"type": "play_again", "table": table_id})
        await wait_for(lambda: app.lobby.tables[table_id].state == "playing")
        issued = app.lobby.tables[table_id].seq
    await app.stop()
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        assert again.lobby.tables[table_id].seq > issued
    finally:
        await again.stop()


async def test_a_rejoin_snapshot_names_the_game_that_what_follows_counts_under():
    """A kill between a game's creation and its game_started event: after the restart the
    seat still holds the previous game's id, and the snapshot names the resumed one."""
    crash = bench_module("crash")
    run = crash.Run()
    seat = crash.Seat(run, 1, random.Random(0))
    seat.ws, seat.table, seat.game_id = object(), "T", "T-old"  # no prompt: nothing sent
    await seat.handle({"type": "snapshot", "id": None, "table": "T", "seq": 900,
                       "info": {"state": "playing", "game_id": "T-new"}})
    await seat.handle({"type": "event", "table": "T", "seq": 901,
                       "event": {"type": "played", "seat": 3, "card": "3H"}})
    # An event of a table the seat has left counts under no game of this one.
    await seat.handle({"type": "event", "table": "U", "seq": 77,
                       "event": {"type": "played", "seat": 2, "card": "4H"}})
    seat.fold()
    assert seat.game_id == "T-new" and "T-new" in run.games
    assert dict(run.acked) == {"T-new": {(3, "play", "3H"): 1}}


def test_the_count_reports_an_acknowledged_action_the_database_lacks():
    crash = bench_module("crash")
    acked = {"T-a": Counter({(0, "play", "5H"): 2, (1, "bid", (3, False)): 1}),
             "T-b": Counter({(2, "play", "QS"): 1})}
    held = {"T-a": Counter({(0, "play", "5H"): 1, (1, "bid", (3, False)): 1})}
    assert crash.losses(acked, held) == [("T-a", (0, "play", "5H"), 2, 1),
                                         ("T-b", (2, "play", "QS"), 1, 0)]
    assert crash.losses(held, acked) == []

"""A short ``bench.crash``: SIGKILL the server under load a few times; nothing acked is lost.
And the accounting of ``bench.acked`` that the bench's verdict rests on."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

from bench import acked, crash
from tests.server.conftest import FAST, play_until_over, seq_after_restart, url, wait_for
from tests.server.test_seats import solo_table
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


async def test_sigkills_under_load_lose_no_acknowledged_action_and_every_game_resumes(tmp_path):
    out = await crash.crash_run(tables=3, kills=2, seed=7, workdir=tmp_path, quiet=True,
                                gap=(0.2, 0.5), settle=0.3)
    assert out["kills"] == 2
    assert out["acked"] > 100  # the bots did play between the kills
    assert out["acked_lost"] == 0, out
    assert out["interrupted"] > 0 and out["resumed"] == out["interrupted"], out
    assert out["unfinished"] == 0, out


@contextlib.asynccontextmanager
async def serving(db: Path) -> AsyncIterator[App]:
    """A server on ``db`` until the block ends (then restarted by the test, on the same)."""
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        yield app
    finally:
        await app.stop()


async def test_a_resumed_table_numbers_events_past_every_earlier_game(tmp_path):
    """A table's second game, resumed after a restart, must not reuse the first's seqs: the
    bench's bots would count a rejoin answered past them as a stale replay."""
    db = tmp_path / "seq.sqlite3"
    async with serving(db) as app, TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client, rules={"target": 100, "mercy": 100})
        await play_until_over(client, table_id, random.Random(3))
        table = app.lobby.tables[table_id].machine
        table.log.seq += 5000  # as after a few more games here
        await client.request({"type": "play_again", "table": table_id})
        await wait_for(lambda: table.state.phase == "playing")
        issued = table.log.seq
    assert await seq_after_restart(db, table_id) > issued


async def test_a_rejoin_snapshot_names_the_game_that_what_follows_counts_under():
    """A kill between a game's creation and its game_started event: after the restart the
    seat still holds the previous game's id; the snapshot names the resumed game and says
    where it stands (hand 1, two tricks done, seat 2 has led the third)."""
    run = acked.Run()
    seat = acked.Seat(run, 1, random.Random(0))
    seat.ws, seat.table, seat.game_id = object(), "T", "T-old"  # no prompt: nothing sent

    async def event(seq, table="T", **event):
        await seat.handle({"type": "event", "table": table, "seq": seq, "event": event})

    await seat.handle({"type": "snapshot", "id": None, "table": "T", "seq": 900,
                       "info": {"state": "playing", "game_id": "T-new"},
                       "view": {"hand_no": 1, "tricks": [{}, {}],
                                "trick": [{"seat": 2, "card": "4H"}]}})
    await event(901, type="played", seat=3, card="3H")
    await event(77, table="U", type="played", seat=2, card="9C")  # a table the seat left
    await event(902, type="played", seat=0, card="5H")
    await event(903, type="played", seat=1, card="6H")
    await event(904, type="trick_won", seat=1, trick=2, leader=2,
                cards=["4H", "3H", "5H", "6H"])
    await event(905, type="played", seat=1, card="AS")  # the kill comes mid-trick
    seat.fold()
    assert seat.game_id == "T-new" and "T-new" in run.games and run.gaps == 0
    assert set(run.acked) == {"T-new"}
    assert set(run.acked["T-new"]) == {(2, "play", "4H", 15), (3, "play", "3H", 15),
                                       (0, "play", "5H", 15), (1, "play", "6H", 15),
                                       (1, "play", "AS", 16)}


async def test_events_that_skip_some_are_a_gap_and_count_nowhere_until_a_snapshot():
    """Skipped events may hide a game's end and the next one's start: a later hand_started
    does not say which game it is in. Nothing counts until a snapshot (or game_started)."""
    run = acked.Run()
    seat = acked.Seat(run, 0, random.Random(0))
    seat.ws, seat.table, seat.game_id = object(), "T", "T-a"
    seat.at(0, 3, [])
    for seq, event in enumerate([
            {"type": "trick_won", "seat": 1, "trick": 7, "leader": 0,  # tricks 3 to 6 missed
             "cards": ["2C", "3C", "4C", "5C"]},
            {"type": "bid", "seat": 2, "value": 4},
            {"type": "hand_started", "hand": 4},  # of this game, or of a later one?
            {"type": "bid", "seat": 1, "value": 6}]):
        await seat.handle({"type": "event", "table": "T", "seq": seq, "event": event})
    await seat.handle({"type": "snapshot", "id": None, "table": "T", "seq": 50,
                       "info": {"state": "playing", "game_id": "T-b"},
                       "view": {"hand_no": 4, "tricks": [], "trick": []}})
    await seat.handle({"type": "event", "table": "T", "seq": 51,
                       "event": {"type": "bid", "seat": 3, "value": 2}})
    seat.fold()
    assert run.gaps == 1 and dict(run.acked) == {"T-b": {(3, "bid", (2, False), 4): 1}}


def test_the_count_reports_an_acknowledged_action_the_database_lacks():
    seen = {"T-a": Counter({(0, "play", "5H", 0): 2, (1, "bid", (3, False), 0): 1}),
             "T-b": Counter({(2, "play", "QS", 3): 1})}
    held = {"T-a": Counter({(0, "play", "5H", 0): 1, (1, "bid", (3, False), 0): 1})}
    assert acked.losses(seen, held) == [("T-a", (0, "play", "5H", 0), 2, 1),
                                        ("T-b", (2, "play", "QS", 3), 1, 0)]
    assert acked.losses(held, seen) == []


def test_a_lost_play_redone_later_in_the_hand_is_still_a_loss(tmp_path):
    """Every dealt card is played in its hand: a play lost in a kill comes back in a later
    trick. Keyed by trick, the acknowledged play is missing from the database all the same."""
    import sqlite3

    db = tmp_path / "t.sqlite3"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE games (id TEXT, finished REAL)")
    con.execute("CREATE TABLE actions (game_id TEXT, idx INTEGER, seat INTEGER, action TEXT)")
    bids = [(i, i, '{"type": "bid", "value": 3}') for i in range(4)]
    # Acknowledged: seat 0 led 5H in trick 0. Stored after the restart: it led 9C, and
    # played 5H in trick 1.
    plays = ["9C", "2C", "3C", "4C", "5H", "6H", "7H", "8H"]
    rows = bids + [(4 + i, i % 4, f'{{"type": "play", "card": "{c}"}}')
                   for i, c in enumerate(plays)]
    con.executemany("INSERT INTO actions VALUES ('T-a', ?, ?, ?)", rows)
    con.execute("INSERT INTO games VALUES ('T-a', NULL)")
    con.commit()
    con.close()
    held, _, _ = crash.stored(db)
    assert held["T-a"][(0, "play", "5H", 1)] == 1 and held["T-a"][(0, "bid", (3, False), 0)]
    seen = {"T-a": Counter({(0, "play", "5H", 0): 1})}
    assert acked.losses(seen, held) == [("T-a", (0, "play", "5H", 0), 1, 0)]

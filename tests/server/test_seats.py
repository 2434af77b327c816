"""Drops and reconnects, restarts, chat and ignore, over a real socket."""

from __future__ import annotations

import asyncio
import random
from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST, play_until_over, seat_four, seq_after_restart, url, wait_for
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config


async def solo_table(client: TrickroomClient, room: str = "spades", rules=None,
                     level: str = "random", name: str = "solo"):
    """One guest sits at seat 0 and robots fill the rest: the game starts at once."""
    await client.request({"type": "guest", "name": name})
    reply = await client.request({"type": "create_table", "room": room,
                                  "rules": rules or {"target": 200, "mercy": 100}})
    table = reply["table"]["id"]
    seated = await client.request({"type": "sit", "table": table, "seat": 0})
    await client.request({"type": "fill_robots", "table": table, "level": level})
    return table, seated["seat_token"]


async def test_a_dropped_seat_is_played_by_a_robot_and_reclaimed_with_missed_events(app):
    async with TrickroomClient.connect(url(app)) as first:
        table_id, token = await solo_table(first)
        await play_until_over(first, table_id, random.Random(1), stop_after=3)
        last_seq = max(m["seq"] for m in first.received if "seq" in m)
    table = app.lobby.tables[table_id].machine
    await wait_for(lambda: table.state.seats[0].client is None)
    before = len(table.state.game.actions)
    await wait_for(lambda: len(table.state.game.actions) > before + 8
                   or table.state.phase == "over")
    assert table.info().seats[0].away or table.state.phase == "over"
    async with TrickroomClient.connect(url(app)) as back:
        await back.request({"type": "resume", "token": first.session})
        mine = {e.seq for e in table.log if e.seq > last_seq and e.to in (None, 0)}
        upto = table.log.seq
        await back.request({"type": "rejoin", "table": table_id, "seat_token": token,
                            "last_seq": last_seq})
        numbered = lambda: [m for m in back.received if m.get("type") in ("event", "skip")]  # noqa: E731
        await wait_for(lambda: len(numbered()) >= upto - last_seq)
        got = numbered()[:upto - last_seq]
        # Every number after last_seq, in order and none missing: the seat's own and public
        # events in full, another seat's private ones as a bare skip.
        assert [m["seq"] for m in got] == list(range(last_seq + 1, upto + 1))
        assert {m["seq"] for m in got if m["type"] == "event"} == mine
        assert all(set(m) == {"type", "table", "seq"} for m in got if m["type"] == "skip")
        assert table.state.seats[0].client is not None and not table.info().seats[0].away


async def test_after_the_window_the_seat_stays_the_robots(tmp_path):
    slow_robots = {**FAST, "reconnect_seconds": 0.2, "robot_delay": 0.05}
    app = App(load_config(**slow_robots), tmp_path / "db.sqlite3")
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as first:
            table_id, token = await solo_table(first, rules={"target": 500})
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.seats[0].kind == "robot")
        assert table.state.phase == "playing" and table.state.seats[0].name == "guest-solo (robot)"
        async with TrickroomClient.connect(url(app)) as back:
            await back.request({"type": "resume", "token": first.session})
            with pytest.raises(ServerError) as err:
                await back.request({"type": "rejoin", "table": table_id, "seat_token": token})
            assert err.value.code == "not_authorized"
    finally:
        await app.stop()


async def test_a_stolen_or_wrong_seat_token_takes_nothing(app):
    async with TrickroomClient.connect(url(app)) as owner, \
            TrickroomClient.connect(url(app)) as thief:
        table_id, token = await solo_table(owner)
        await thief.request({"type": "guest", "name": "thief"})
        with pytest.raises(ServerError) as err:
            await thief.request({"type": "rejoin", "table": table_id,
                                 "seat_token": token[:-2] + "xx"})
        assert err.value.code == "not_authorized"
        assert app.lobby.tables[table_id].machine.state.seats[0].client is not None


async def test_a_restarted_server_resumes_the_game_and_loses_no_acknowledged_action(tmp_path):
    db = tmp_path / "restart.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    rules = {"target": 300, "mercy": 300}  # several hands: still playing at the restart
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        table_id, tokens = await seat_four(app, "spades", rules, clients)
        players = [asyncio.create_task(play_until_over(c, table_id, random.Random(i)))
                   for i, c in enumerate(clients)]
        await wait_for(lambda: len(app.lobby.tables[table_id].machine.state.game.actions) >= 20)
        for task in players:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        acked = sum(1 for c in clients for m in c.received if m.get("type") == "ok")
        state = app.lobby.tables[table_id].machine.state.game.view(None)
        sessions = [c.session for c in clients]
        await app.stop()
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        table = app.lobby.tables[table_id].machine
        assert len(table.state.game.actions) >= acked
        # Before anyone is back, the room knows whose the resumed seats are (a guest name
        # a seat waits for is not handed to a newcomer meanwhile).
        assert set(app.lobby.seated) == {s.account for s in table.state.seats}
        assert len(app.lobby.seated) == 4
        if len(table.state.game.actions) == acked:
            assert table.state.game.view(None) == state
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                       for _ in range(4)]
            for i, client in enumerate(clients):
                await client.request({"type": "resume", "token": sessions[i]})
                await client.request({"type": "rejoin", "table": table_id,
                                      "seat_token": tokens[i], "last_seq": 0})
            ends = await asyncio.wait_for(asyncio.gather(
                *(play_until_over(c, table_id, random.Random(i)) for i, c in enumerate(clients))),
                120)
        assert ends[0]["event"]["type"] == "game_over"
        await wait_for(lambda: table.state.phase == "over")
        record = await app.store.game(table.state.game_id)
        assert (record is not None
                and len(record["record"]["actions"]) == len(table.state.game.actions))
    finally:
        await app.stop()


async def test_table_chat_reaches_everyone_but_those_who_ignore_the_speaker(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(3)]
        names = [(await c.request({"type": "guest", "name": f"c{i}"}))["name"]
                 for i, c in enumerate(clients)]
        assert names == ["guest-c0", "guest-c1", "guest-c2"]
        reply = await clients[0].request({"type": "create_table", "room": "hearts"})
        table = reply["table"]["id"]
        for client in clients:
            await client.request({"type": "sit", "table": table})
        await clients[1].request({"type": "ignore", "name": "guest-c0"})
        await clients[0].request({"type": "chat", "table": table, "text": "hello <b>all</b>"})
        await clients[2].request({"type": "chat", "table": table, "text": "hi"})
        await asyncio.sleep(0.1)

        def chats(c):
            return [(m["name"], m["text"]) for m in c.received if m.get("type") == "chat"]

        assert chats(clients[2]) == [("guest-c0", "hello <b>all</b>"), ("guest-c2", "hi")]
        assert chats(clients[1]) == [("guest-c2", "hi")]
        with pytest.raises(ServerError) as err:
            await clients[0].request({"type": "chat", "table": table, "text": "x" * 301})
        assert err.value.code == "too_long"


async def test_a_watcher_who_unwatches_gets_no_more_events(app):
    async with TrickroomClient.connect(url(app)) as player, \
            TrickroomClient.connect(url(app)) as watcher:
        table_id, _ = await solo_table(player, rules={"target": 500})
        await watcher.request({"type": "guest"})
        snapshot = await watcher.request({"type": "watch", "table": table_id})
        assert snapshot["info"]["game_id"] and snapshot["paused"] is None
        await watcher.request({"type": "unwatch", "table": table_id})
        table = app.lobby.tables[table_id].machine
        assert table.state.watchers == {}
        seen = len(watcher.received)
        await play_until_over(player, table_id, random.Random(4), stop_after=3)
        await asyncio.sleep(0.1)
        assert len(watcher.received) == seen


@pytest.mark.parametrize("last_seq", [0, 10**9], ids=["nothing_seen", "a_seq_never_issued"])
async def test_a_rejoin_the_log_cannot_answer_gets_a_snapshot_of_the_seat(app, last_seq):
    """Nothing seen yet (``last_seq`` 0) is a snapshot, not the whole log; a seq the table
    never issued (stale, from another game) is a snapshot too."""
    async with TrickroomClient.connect(url(app)) as first:
        table_id, token = await solo_table(first)
        await play_until_over(first, table_id, random.Random(2), stop_after=2)
    async with TrickroomClient.connect(url(app)) as back:
        await back.request({"type": "resume", "token": first.session})
        reply = await back.request({"type": "rejoin", "table": table_id, "seat_token": token,
                                    "last_seq": last_seq})
        assert reply["type"] == "snapshot" and reply["view"]["seat"] == 0
        view = reply["view"]
        assert len(view["hand"]) == view["hand_sizes"][0]  # the seat's own cards, every one


async def test_a_turn_is_prompted_once_whatever_happens_around_it(app):
    """Another seat's drop and a rejoin send events mid-turn; the turn is still prompted once
    (a client that answered a second prompt for the same turn would be refused)."""
    async with AsyncExitStack() as stack:
        ann, bob = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                    for _ in range(2)]
        await ann.request({"type": "guest", "name": "ann"})
        await bob.request({"type": "guest", "name": "bob"})
        created = await ann.request({"type": "create_table", "room": "spades",
                                     "rules": {"target": 200, "mercy": 100}})
        table_id = created["table"]["id"]
        token = (await ann.request({"type": "sit", "table": table_id, "seat": 0}))["seat_token"]
        await bob.request({"type": "sit", "table": table_id, "seat": 1})
        bob_plays = asyncio.create_task(play_until_over(bob, table_id, random.Random(2)))
        await ann.request({"type": "fill_robots", "table": table_id, "level": "random"})
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: any(m["type"] == "prompt" for m in ann.received))
        bob_plays.cancel()
        await bob.ws.close()  # mid-turn: a "table" event, and bob's robot takes over
        await wait_for(lambda: table.state.seats[1].client is None)
        await ann.request({"type": "ping"})  # everything sent before this has arrived
        assert [m["type"] for m in ann.received].count("prompt") == 1
        assert table.state.game.awaiting == (0,)

        back = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await back.request({"type": "resume", "token": ann.session})
        await back.request({"type": "rejoin", "table": table_id, "seat_token": token,
                            "last_seq": 0})
        await back.request({"type": "ping"})
        kinds = [m["type"] for m in back.received]
        assert kinds.count("prompt") == 1 and kinds.index("snapshot") < kinds.index("prompt")


async def test_a_game_whose_last_action_was_stored_but_not_its_end_ends_on_restart(tmp_path):
    """A kill between the game-ending action's commit and the game's end: on restart the
    replayed game is over with no one to act; the table must store the end, not hang."""
    import sqlite3

    db = tmp_path / "ended.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(app)) as client:
        table_id, token = await solo_table(client, rules={"target": 100, "mercy": 100})
        await play_until_over(client, table_id, random.Random(5))
        game_id = app.lobby.tables[table_id].machine.state.game_id
        actions = len(app.lobby.tables[table_id].machine.state.game.actions)
        session = client.session
    await app.stop()
    con = sqlite3.connect(db)  # as if the process died before finish_game committed
    con.execute("UPDATE games SET finished = NULL, result = NULL, record = NULL WHERE id = ?",
                (game_id,))
    con.commit()
    con.close()
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        table = again.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        record = await again.store.game(game_id)
        assert record is not None and len(record["record"]["actions"]) == actions
        async with TrickroomClient.connect(url(again)) as client:
            await client.request({"type": "resume", "token": session})
            snap = await client.request({"type": "rejoin", "table": table_id,
                                         "seat_token": token, "last_seq": 0})
            assert snap["info"]["state"] == "over"
    finally:
        await again.stop()


async def test_a_restart_numbers_past_a_table_whose_events_outran_the_clock(tmp_path):
    """Robots in four away seats, no delay: a table can issue thousands of events a second,
    more than the wall clock in milliseconds. A restart must still number past them."""
    import time

    db = tmp_path / "fast.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(app)) as client:
        table_id, _ = await solo_table(client)
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "playing")
        table.log.seq = max(table.log.seq, int(time.time() * 1000)) + 5000  # 5,000 events ahead
        issued = table.log.seq
    await app.stop()
    assert await seq_after_restart(db, table_id) > issued

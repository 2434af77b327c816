"""Ranked rooms end to end: eligibility, the queue, each drop policy, and the ratings hand-off.

A real server, real socket clients, and a wall clock the test moves, so bans
do not take real hours; windows and votes use short settings.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from contextlib import AsyncExitStack
from dataclasses import replace
from typing import Any

import pytest

from tests.server.conftest import FAST, choose, http_get, url, wait_for
from tests.server.refusals import refused
from trickroom.game.outcome import NilStats, Outcome
from trickroom.ratings import Rating, rate, system_named
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.tables.rating import game_result, when

RANKED = {**FAST, "vote_seconds": 5.0, "reconnect_seconds": 5.0, "min_games": 5}
SHORT_SPADES = {"target": 100, "mercy": 100}
LONG_SPADES = {"target": 500, "mercy": 500}


class Clock:
    """Wall time the test controls (bans are an hour or a week)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


def ranked_config():
    """The default rooms with short games (a ranked room's rules are its host's: a client
    may not change them), plus long-game rooms for games that must still be going."""
    config = load_config(**RANKED)
    rooms = {}
    for name, room in config.rooms.items():
        if room.rated:
            short = SHORT_SPADES if room.game == "spades" else {"target": 30}
            rooms[name] = replace(room, rules={**room.rules, **short})
            if room.game == "spades":
                rooms[f"{name}-long"] = replace(room, name=f"{name}-long",
                                                rules={**room.rules, **LONG_SPADES})
        else:
            rooms[name] = room
    rooms["spades-margin"] = replace(rooms["spades-openskill"], name="spades-margin",
                                     system="margin")
    return replace(config, rooms=rooms)


@pytest.fixture
async def ranked_app(tmp_path, clock):
    server = App(ranked_config(), tmp_path / "ranked.sqlite3", wall_clock=clock)
    await server.start("127.0.0.1", 0)
    yield server
    await server.stop()


async def players(app: App, stack: AsyncExitStack, names: list[str],
                  experienced: bool = True, first: int = 0) -> list[TrickroomClient]:
    clients = []
    for i, name in enumerate(names, first):  # each from an address of its own (127/8)
        client = await stack.enter_async_context(
            TrickroomClient.connect(url(app), local_addr=(f"127.0.0.{10 + i}", 0)))
        await client.request({"type": "register", "name": name, "password": "secret-" + name})
        if experienced:
            await app.store.set_casual_games(name, 5)
        clients.append(client)
    return clients


async def seat(clients, room: str) -> str:
    created = await clients[0].request({"type": "create_table", "room": room})
    table = created["table"]["id"]
    for i, client in enumerate(clients):
        reply = await client.request({"type": "sit", "table": table, "seat": i})
        client.token = reply["seat_token"]  # type: ignore[attr-defined]
    return table


async def autoplay(client: TrickroomClient, table: str, seed: int,
                   votes: dict[str, str] | None = None) -> dict[str, Any]:
    """Answer prompts at random and votes as told, until game over (returned)."""
    rng = random.Random(seed)
    answered = -1
    async for message in client.messages():
        if message.get("type") == "event":
            event = message["event"]
            if event["type"] == "game_over":
                return event
            if event["type"] == "vote_started" and votes and event["kind"] in votes:
                try:
                    await client.request({"type": "vote", "table": table,
                                          "vote": event["vote"], "choice": votes[event["kind"]]})
                except ServerError as exc:
                    assert exc.code in ("not_authorized", "wrong_phase"), exc.reply
        elif message.get("type") == "prompt" and message["table"] == table:
            if message["seq"] <= answered:
                continue  # a repeated prompt for a turn already answered
            answered = message["seq"]
            try:
                await client.act(table, choose(message, rng))
            except ServerError as exc:
                assert exc.code in ("not_your_turn", "wrong_phase"), exc.reply
    raise AssertionError("closed before the game ended")


def expected_changes(stored: dict[str, Any], system: str, start: float | None = None):
    """Recompute the rating changes from the stored game with the ratings module."""
    out = stored["result"]
    outcome = Outcome(out["game"], out["finished"], tuple(out["scores"]),
                      tuple(out["seat_scores"]), tuple(out["winners"]), out["hands_played"],
                      out["target"], out["progress"], tuple(NilStats(**n) for n in out["nil"]))
    starters = [s["starter"] for s in stored["seats"]]
    result = game_result(stored["game"], system, stored["seating"], starters, [], outcome, [],
                         None)
    rating = Rating(start) if start is not None else system_named(system).start_rating
    return [c.to_wire() for c in rate(result, {p: rating for p in starters})]


def game_id_of(client: TrickroomClient) -> str:
    return next(m["event"]["game_id"] for m in reversed(client.received)
                if m.get("type") == "event" and m["event"]["type"] == "game_started")


@pytest.mark.parametrize(("room", "system"), [
    ("spades-zone", "zone"),
    ("spades-wocg", "wocg"),
    ("spades-points", "points_en"),
    ("spades-openskill", "openskill_tuned"),
    ("hearts-zone", "zone"),
])
async def test_a_complete_ranked_game_is_rated_as_the_ratings_module_says(
        ranked_app, room, system):
    names = ["ann", "bob", "cat", "dan"]
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, names)
        table = await seat(clients, room)
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        stored = await ranked_app.store.game(game_id_of(clients[0]))
    assert stored is not None and stored["seating"] == "fixed_seating"
    shown = ends[0]["ratings"]
    assert shown == stored["ratings"]
    assert shown == expected_changes(stored, system)
    assert {c["player"] for c in shown} == set(names) and all(c["rated"] for c in shown)
    assert all(c["breakdown"] for c in shown)
    status, _, body = await http_get(ranked_app, f"/api/leaderboard?game={stored['game']}"
                                                 f"&system={system}")
    board = json.loads(body)["players"]
    assert status == 200 and {p["player"] for p in board} == set(names)
    profile = json.loads((await http_get(ranked_app, "/api/players/ann"))[2])
    entry = next(r for r in profile["ratings"] if r["system"] == system)
    mine = next(c for c in shown if c["player"] == "ann")
    assert entry["rating"] == pytest.approx(mine["after"]["value"])
    assert entry["stats"]["games"] == 1 and len(entry["history"]) == 1
    record = json.loads((await http_get(ranked_app, f"/api/games/{stored['id']}"))[2])
    assert record["ratings"] == shown
    assert len(record["hands"]) == record["result"]["hands_played"]
    assert all(len(h["tricks"]) == 13 for h in record["hands"])


async def test_a_player_back_after_the_end_reads_the_rating_changes_in_their_language(
        ranked_app):
    """The game's end, with its rating changes, is in the snapshot of a finished game:
    a player whose connection dropped as the game ended (or whose page was reloaded)
    reads what the others read, in the language of the new connection."""
    names = ["ann", "bob", "cat", "dan"]
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, names)
        table = await seat(clients, "spades-zone")
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        told = ends[0]
        back = await stack.enter_async_context(TrickroomClient.connect(
            url(ranked_app), additional_headers={"Accept-Language": "el"}))
        await back.request({"type": "login", "name": "ann", "password": "secret-ann"})
        snapshot = await back.request({"type": "rejoin", "table": table,
                                       "seat_token": clients[0].token, "last_seq": 0})
    assert snapshot["type"] == "snapshot" and snapshot["view"]["phase"] == "game_over"
    over = snapshot["over"]
    assert {k: over[k] for k in ("scores", "winners", "chances")} == {
        k: told[k] for k in ("scores", "winners", "chances")}
    assert [(c["player"], c["after"]) for c in over["ratings"]] == [
        (c["player"], c["after"]) for c in told["ratings"]]
    english = [t["text"] for c in told["ratings"] for t in c["breakdown"]]
    greek = [t["text"] for c in over["ratings"] for t in c["breakdown"]]
    assert len(greek) == len(english) > 0 and greek != english
    assert any(any("\u0370" <= ch <= "\u03ff" for ch in text) for text in greek), greek


async def test_the_final_score_model_is_told_how_many_hands_a_spades_game_took(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-margin")
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        stored = await ranked_app.store.game(game_id_of(clients[0]))
    assert stored is not None
    shown = ends[0]["ratings"]
    assert shown == stored["ratings"] == expected_changes(stored, "margin")
    hands = stored["result"]["hands_played"]
    for change in shown:  # read a hand at a time, over the game's own hands
        assert f" in {hands} hands (" in change["breakdown"][2]["text"], change["breakdown"]


# -- eligibility ----------------------------------------------------------------------------


async def test_guests_and_inexperienced_players_are_refused_with_the_reason(ranked_app):
    async with AsyncExitStack() as stack:
        guest = await stack.enter_async_context(TrickroomClient.connect(url(ranked_app)))
        await guest.request({"type": "guest"})
        [novice, host] = await players(ranked_app, stack, ["newbie", "host1"], experienced=False)
        await ranked_app.store.set_casual_games("newbie", 2)
        await ranked_app.store.set_casual_games("host1", 5)
        created = await host.request({"type": "create_table", "room": "spades-zone"})
        table = created["table"]["id"]
        for client, words in ((guest, "registered"), (novice, "finish 5 casual games first "
                                                              "(2 so far)")):
            with pytest.raises(ServerError) as err:
                await client.request({"type": "sit", "table": table})
            assert err.value.code == "not_eligible" and words in str(err.value)
            with pytest.raises(ServerError) as err:
                await client.request({"type": "queue", "room": "spades-zone"})
            assert err.value.code == "not_eligible"
        seats = ranked_app.lobby.tables[table].machine.info().seats
        assert all(s.kind == "empty" for s in seats)


async def test_a_player_is_told_why_they_may_not_sit_in_a_ranked_room_before_asking(ranked_app):
    """The rooms say, for the player asking, why a ranked room's seats are not theirs yet
    (issue 33, item 4: the lobby offered "Create table" and "Join the queue" to everyone
    and said no only after the click), and the rule the count follows."""
    async with AsyncExitStack() as stack:
        guest = await stack.enter_async_context(TrickroomClient.connect(url(ranked_app)))
        await guest.request({"type": "guest"})
        [novice] = await players(ranked_app, stack, ["newbie"], experienced=False)
        await ranked_app.store.set_casual_games("newbie", 2)

        async def rooms(client: TrickroomClient) -> dict[str, Any]:
            reply = await client.request({"type": "list_rooms"})
            return {room["name"]: room for room in reply["rooms"]}

        seen = await rooms(novice)
        assert seen["spades"]["not_eligible"] is None  # a casual room: anyone sits
        why = seen["spades-zone"]["not_eligible"]
        assert "finish 5 casual games first (2 so far)" in why
        assert "two registered players" in why and "robots" in why
        assert "registered" in (await rooms(guest))["hearts-zone"]["not_eligible"]
        await ranked_app.store.set_casual_games("newbie", 5)
        seen = await rooms(novice)
        assert all(room["not_eligible"] is None for room in seen.values()
                   if room["players"] == "people")
        # The bot ladder's rooms are BOT accounts' alone (issue 36).
        assert "BOT accounts" in seen["bots-spades"]["not_eligible"]


async def test_a_player_who_may_not_sit_opens_no_ranked_table(ranked_app):
    """A ranked table opened by someone who may not sit at it stayed listed, empty, until
    it expired (issue 33, item 4): the server refuses to open it."""
    async with AsyncExitStack() as stack:
        [novice] = await players(ranked_app, stack, ["newbie"], experienced=False)
        error = await refused(novice, {"type": "create_table", "room": "spades-zone"})
        assert error["code"] == "not_eligible" and "casual games" in error["message"]
        listing = await novice.request({"type": "list_tables", "room": "spades-zone"})
        assert listing["tables"] == [] and listing["total"] == 0
        assert not ranked_app.lobby.tables
        rooms = (await novice.request({"type": "list_rooms"}))["rooms"]
        assert all(room["tables"] == 0 for room in rooms)
        # A casual room's table is anyone's to open.
        await novice.request({"type": "create_table", "room": "spades"})


async def test_turning_rank_me_off_needs_confirming_then_bans_for_a_week(ranked_app, clock):
    async with AsyncExitStack() as stack:
        [eve] = await players(ranked_app, stack, ["eve"])
        with pytest.raises(ServerError) as err:
            await eve.request({"type": "settings", "rank_me": False})
        assert err.value.code == "confirm_required"
        assert (await ranked_app.store.account("eve"))["rank_me"] == 1
        saved = await eve.request({"type": "settings", "rank_me": False, "confirm": True})
        assert saved["banned_until"] == clock.now + 7 * 24 * 3600  # a Unix time
        await eve.request({"type": "settings", "rank_me": True})
        with pytest.raises(ServerError) as err:
            await eve.request({"type": "create_table", "room": "hearts-zone"})
        assert err.value.code == "not_eligible" and when(saved["banned_until"]) in str(err.value)
        clock.now += 8 * 24 * 3600
        created = await eve.request({"type": "create_table", "room": "hearts-zone"})
        await eve.request({"type": "sit", "table": created["table"]["id"]})


async def test_robots_may_not_sit_at_a_ranked_table(ranked_app):
    async with AsyncExitStack() as stack:
        [ann] = await players(ranked_app, stack, ["ann"])
        created = await ann.request({"type": "create_table", "room": "spades-wocg"})
        with pytest.raises(ServerError) as err:
            await ann.request({"type": "fill_robots", "table": created["table"]["id"]})
        assert err.value.code == "not_authorized"


# -- the random queue -------------------------------------------------------------------------


async def test_the_random_queue_never_seats_two_players_of_one_address_together(ranked_app):
    """Issue 32, item 8: one person's four accounts, queued together in a quiet room, were
    seated together and farmed the random queue (a rated game, its multiplier x8 in the
    ranking-points system). Players of one address group are never drawn together: four
    accounts from one address wait, and a player from elsewhere is seated with one."""
    async with AsyncExitStack() as stack:
        farm = []
        for i in range(4):
            client = await stack.enter_async_context(
                TrickroomClient.connect(url(ranked_app), local_addr=("127.0.0.60", 0)))
            await client.request({"type": "register", "name": f"farm{i}",
                                  "password": f"secret-farm{i}"})
            await ranked_app.store.set_casual_games(f"farm{i}", 5)
            farm.append(client)
        for client in farm:
            await client.request({"type": "queue", "room": "hearts-zone"})
        # Each queue request is answered after its match was tried: no one was drawn.
        assert len((await ranked_app.hub.queued("hearts-zone"))[0]) == 4
        assert not any(m.get("type") == "seated" for c in farm for m in c.received)
        others = await players(ranked_app, stack, ["far1", "far2", "far3"])
        for client in others:
            await client.request({"type": "queue", "room": "hearts-zone"})
        await wait_for(lambda: all(any(m.get("type") == "seated" for m in c.received)
                                   for c in others))
        seated_farm = [c for c in farm if any(m.get("type") == "seated" for m in c.received)]
        assert len(seated_farm) == 1  # one of the four, beside three others


async def queue_seats(app: App, clients: list[TrickroomClient], room: str) -> str:
    """The clients queue, and are seated together by the queue: their table."""
    seen = [len(c.received) for c in clients]
    for client in clients:
        await client.request({"type": "queue", "room": room})

    def seated(i: int) -> list[dict[str, Any]]:
        return [m for m in clients[i].received[seen[i]:] if m.get("type") == "seated"]

    await wait_for(lambda: all(seated(i) for i in range(len(clients))))
    [table] = {seated(i)[0]["table"] for i in range(len(clients))}
    return table


async def test_the_random_queue_does_not_seat_again_four_who_just_played_only_each_other(
        ranked_app):
    """Issue 32, item 8: four accounts (one person's, from four addresses) farmed the
    random queue by playing each other again and again. Four players whose last ranked
    games were all one game together are not drawn together again at once: they wait, and
    a fifth player is seated with three of them."""
    async with AsyncExitStack() as stack:
        four = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await queue_seats(ranked_app, four, "hearts-zone")
        await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(four))), 120)
        for client in four:
            await client.request({"type": "queue", "room": "hearts-zone"})
        # Each queue request is answered after its match was tried: no one was drawn.
        assert len((await ranked_app.hub.queued("hearts-zone"))[0]) == 4
        [fifth] = await players(ranked_app, stack, ["eve"], first=4)
        again = await queue_seats(ranked_app, [fifth], "hearts-zone")
        seated = {s.name for s in ranked_app.lobby.tables[again].machine.state.seats}
        assert "eve" in seated and len(seated & {"ann", "bob", "cat", "dan"}) == 3
        assert len((await ranked_app.hub.queued("hearts-zone"))[0]) == 1


async def test_the_random_queue_seats_four_distinct_players_and_records_it(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["q1", "q2", "q3", "q4", "q5"])
        for client in clients[:3]:
            status = await client.request({"type": "queue", "room": "hearts-zone"})
            assert status["queued"]
        assert status["length"] == 3
        with pytest.raises(ServerError) as err:
            await clients[0].request({"type": "queue", "room": "hearts-zone"})
        assert "already in this queue" in str(err.value)
        await clients[3].request({"type": "queue", "room": "hearts-zone"})
        await wait_for(lambda: all(any(m.get("type") == "seated" for m in c.received)
                                   for c in clients[:4]))
        seated = [next(m for m in c.received if m.get("type") == "seated") for c in clients[:4]]
        assert len({s["table"] for s in seated}) == 1
        assert sorted(s["seat"] for s in seated) == [0, 1, 2, 3]
        table = ranked_app.lobby.tables[seated[0]["table"]].machine
        assert sorted(s.name for s in table.state.seats) == ["q1", "q2", "q3", "q4"]
        assert table.seating == "random_queue" and table.state.phase == "playing"
        assert (await ranked_app.hub.queued("hearts-zone"))[0] == []
        stored = await ranked_app.store.unfinished_games()
        assert [g.created.seating for g in stored] == ["random_queue"]


# -- drops, votes and quits -------------------------------------------------------------------


async def playing(app, clients, table, votes: dict[str, str], plays: int = 8):
    """Everyone plays (each vote answered as ``votes`` says) until ``plays`` actions are in;
    the players' tasks, which play on."""
    tasks = [asyncio.create_task(autoplay(c, table, i, votes)) for i, c in enumerate(clients)]
    t = app.lobby.tables[table].machine
    await wait_for(lambda: len(t.state.game.actions) >= plays)
    return tasks


async def drop_mid_game(app, clients, table, who: int, plays: int = 8):
    """Everyone plays until ``plays`` actions are in; then ``who`` drops (socket closed)."""
    tasks = await playing(app, clients, table, {"wait": "wait"}, plays)
    t = app.lobby.tables[table].machine
    tasks[who].cancel()
    await clients[who].ws.close()
    await wait_for(lambda: t.state.seats[who].client is None)
    return tasks


async def rejoin(app, name: str, table: str, token: str, stack) -> TrickroomClient:
    client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
    await client.request({"type": "login", "name": name, "password": "secret-" + name})
    await client.request({"type": "rejoin", "table": table, "seat_token": token,
                          "last_seq": 0})
    return client


async def test_zone_all_wait_pauses_until_the_player_returns(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-zone")
        tasks = await drop_mid_game(ranked_app, clients, table, who=1)
        t = ranked_app.lobby.tables[table].machine
        await wait_for(lambda: any(m.get("type") == "event" and m["event"]["type"] ==
                                   "vote_result" for m in clients[0].received))
        result = next(m["event"] for m in clients[0].received if m.get("type") == "event"
                      and m["event"]["type"] == "vote_result")
        assert result["outcome"] == "wait" and t.state.paused
        paused_at = len(t.state.game.actions)
        await asyncio.sleep(0.2)
        assert len(t.state.game.actions) == paused_at  # nobody plays while everyone waits
        back = await rejoin(ranked_app, "bob", table, clients[1].token, stack)
        await wait_for(lambda: not t.state.paused)
        tasks[1] = asyncio.create_task(autoplay(back, table, 9))
        ends = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert all(c["rated"] for c in ends[0]["ratings"])


async def test_zone_dont_wait_hands_the_seat_to_a_robot_unrated_and_charges_the_leaver(
        ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-zone")
        t = ranked_app.lobby.tables[table].machine
        tasks = await playing(ranked_app, clients, table, {"wait": "dont_wait"})
        tasks[2].cancel()
        await clients[2].ws.close()
        await wait_for(lambda: t.state.seats[2].kind == "robot")
        assert t.state.seats[2].name == "cat (robot)" and not t.state.paused
        ends = await asyncio.wait_for(asyncio.gather(*(tasks[i] for i in (0, 1, 3))), 120)
        changes = {c["player"]: c for c in ends[0]["ratings"]}
        assert not any(c["rated"] for c in changes.values())
        profile = await ranked_app.store.player("cat")
        stats = next(r["stats"] for r in profile["ratings"] if r["system"] == "zone")
        assert stats["incomplete"] == 1


async def test_wocg_quit_is_rated_at_once_banned_and_a_substitute_plays_unrated(
        ranked_app, clock):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["mary", "john", "sue", "peter"])
        [sub] = await players(ranked_app, stack, ["subby"], experienced=False)
        table = await seat(clients, "spades-wocg-long")  # still going when subby sits
        t = ranked_app.lobby.tables[table].machine
        tasks = await playing(ranked_app, clients, table, {"invite_robot": "no"})
        tasks[3].cancel()
        await clients[3].request({"type": "stand", "table": table})
        await wait_for(lambda: any(m.get("type") == "event" and m["event"]["type"] == "quit"
                                   for m in clients[0].received))
        quit_event = next(m["event"] for m in clients[0].received if m.get("type") == "event"
                          and m["event"]["type"] == "quit")
        assert quit_event["rating"]["after"]["value"] == pytest.approx(1475.0)
        with pytest.raises(ServerError) as err:
            await clients[3].request({"type": "sit", "table": table})
        assert err.value.code in ("not_eligible", "invalid_field")
        reply = await sub.request({"type": "sit", "table": table})
        assert reply["seat"] == 3 and t.state.seats[3].substitute
        tasks[3] = asyncio.create_task(autoplay(sub, table, 7))
        ends = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        changes = {c["player"]: c for c in ends[0]["ratings"]}
        assert "subby" not in changes or not changes["subby"]["rated"]
        assert "peter" not in changes  # rated once, when he quit
        stored = await ranked_app.store.player("peter")
        assert stored["ratings"][0]["rating"] == pytest.approx(1475.0)
        created = await clients[0].request({"type": "create_table", "room": "spades-wocg"})
        with pytest.raises(ServerError) as err:
            await clients[3].request({"type": "sit", "table": created["table"]["id"]})
        assert err.value.code == "not_eligible" and "quit a ranked game" in str(err.value)
        clock.now += 3601
        await clients[3].request({"type": "sit", "table": created["table"]["id"]})


async def quit_mid_game(app, clients, table, who: int):
    """Everyone plays; ``who`` stands up mid-game (a WoCG quit: rated at once, banned).
    The others' tasks, which play on."""
    tasks = await playing(app, clients, table, {"invite_robot": "no"})
    tasks[who].cancel()
    await clients[who].request({"type": "stand", "table": table})
    await wait_for(lambda: who in app.lobby.tables[table].machine.state.ranked.open_seats)
    return tasks


async def test_wocg_a_player_banned_for_quitting_may_not_substitute_in_another_game(
        ranked_app, clock):
    """Issue 32, item 9: the quitter's ban holds for a substitute's seat too, refused with
    the ban's reason and end; when it is over, they may substitute."""
    async with AsyncExitStack() as stack:
        first = await players(ranked_app, stack, ["mary", "john", "sue", "peter"])
        second = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table_a = await seat(first, "spades-wocg-long")
        tasks = await quit_mid_game(ranked_app, first, table_a, who=3)
        table_b = await seat(second, "spades-wocg-long")
        tasks += await quit_mid_game(ranked_app, second, table_b, who=1)
        error = await refused(first[3], {"type": "sit", "table": table_b})
        assert error["code"] == "not_eligible"
        assert "banned from ranked play until" in error["message"]
        assert "quit a ranked game" in error["message"]
        t = ranked_app.lobby.tables[table_b].machine
        assert t.state.seats[1].name != "peter" and 1 in t.state.ranked.open_seats
        clock.now += 3601
        reply = await first[3].request({"type": "sit", "table": table_b})
        assert reply["seat"] == 1 and t.state.seats[1].substitute
        for task in tasks:
            task.cancel()


async def test_wocg_players_may_invite_a_robot_into_a_quitters_seat(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        [late] = await players(ranked_app, stack, ["late"])
        table = await seat(clients, "spades-wocg-long")
        t = ranked_app.lobby.tables[table].machine
        tasks = await playing(ranked_app, clients, table, {"invite_robot": "yes"})
        tasks[0].cancel()
        await clients[0].request({"type": "stand", "table": table})
        await wait_for(lambda: not t.state.ranked.open_seats)
        with pytest.raises(ServerError) as err:
            await late.request({"type": "sit", "table": table})
        assert err.value.code == "table_full"
        await asyncio.wait_for(asyncio.gather(*tasks[1:]), 120)


async def test_wocg_a_drop_and_return_inside_the_window_is_no_quit(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-wocg")
        t = ranked_app.lobby.tables[table].machine
        # The robot plays the away seat slowly, so cat is back before the hand is over.
        t.settings = dataclasses.replace(t.settings, robot_delay=0.3)
        tasks = await drop_mid_game(ranked_app, clients, table, who=2)
        back = await rejoin(ranked_app, "cat", table, clients[2].token, stack)
        assert t.state.seats[2].client is not None and not t.state.ranked.departures
        tasks[2] = asyncio.create_task(autoplay(back, table, 5))
        ends = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert {c["player"] for c in ends[0]["ratings"] if c["rated"]} == {
            "ann", "bob", "cat", "dan"}


async def test_points_a_drop_ends_the_game_after_the_hand_with_the_multipliers(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-points-long")
        t = ranked_app.lobby.tables[table].machine
        tasks = await drop_mid_game(ranked_app, clients, table, who=1)
        ends = await asyncio.wait_for(asyncio.gather(*(tasks[i] for i in (0, 2, 3))), 120)
        end = ends[0]
        assert end["abandoned"] and len(t.state.game.hand_results) == 1
        changes = {c["player"]: c for c in end["ratings"]}
        assert sum(c["delta"] for c in changes.values()) == pytest.approx(0.0)
        # The side that dropped (bob, dan) against (ann, cat): the table of seed 003.
        bob, dan, ann = changes["bob"]["delta"], changes["dan"]["delta"], changes["ann"]["delta"]
        if ann > 0:  # bob's side lost: opponents 1, disconnected -3/2, partner -1/2
            assert bob == pytest.approx(-1.5 * ann) and dan == pytest.approx(-0.5 * ann)
        else:  # bob's side won: disconnected 0, partner 1/2, opponents -1/4
            assert bob == pytest.approx(0.0) and ann == pytest.approx(-0.5 * dan)


# -- votes: bad input ---------------------------------------------------------------------------


async def test_a_vote_from_a_non_voter_a_second_vote_and_a_late_vote_are_refused(ranked_app):
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, ["ann", "bob", "cat", "dan"])
        table = await seat(clients, "spades-zone")
        t = ranked_app.lobby.tables[table].machine
        tasks = [asyncio.create_task(autoplay(c, table, i)) for i, c in enumerate(clients)]
        await wait_for(lambda: len(t.state.game.actions) >= 6)
        for task in tasks:
            task.cancel()
        await clients[1].ws.close()
        await wait_for(lambda: t.state.vote is not None)
        vote = t.state.vote.id
        [outsider] = await players(ranked_app, stack, ["zed"])
        snapshot = await outsider.request({"type": "watch", "table": table})
        assert snapshot["paused"] and snapshot["vote"]["vote"] == vote
        assert snapshot["vote"]["voters"] == [0, 2, 3]
        with pytest.raises(ServerError) as err:
            await outsider.request({"type": "vote", "table": table, "vote": vote,
                                    "choice": "wait"})
        assert err.value.code == "not_seated"
        with pytest.raises(ServerError) as err:
            await clients[0].request({"type": "vote", "table": table, "vote": vote,
                                      "choice": "maybe"})
        assert err.value.code == "invalid_field"
        await clients[0].request({"type": "vote", "table": table, "vote": vote,
                                  "choice": "wait"})
        with pytest.raises(ServerError) as err:
            await clients[0].request({"type": "vote", "table": table, "vote": vote,
                                      "choice": "dont_wait"})
        assert "already voted" in str(err.value) and t.state.vote is not None
        await clients[2].request({"type": "vote", "table": table, "vote": vote,
                                  "choice": "wait"})
        await clients[3].request({"type": "vote", "table": table, "vote": vote,
                                  "choice": "wait"})
        assert t.state.vote is None and t.state.paused
        with pytest.raises(ServerError) as err:
            await clients[3].request({"type": "vote", "table": table, "vote": vote,
                                      "choice": "dont_wait"})
        assert err.value.code == "wrong_phase"
        assert t.state.seats[1].kind == "human"  # the late "Don't wait" changed nothing


# -- your chances ------------------------------------------------------------------------------


async def set_rating(app: App, player: str, kind: str, system: str, value: float) -> None:
    from trickroom.ratings import PlayerStats

    stats = {**dataclasses.asdict(PlayerStats()), "history": []}
    await app.store._write("INSERT INTO ratings (player, kind, system, value, sigma, stats) "
                           "VALUES (?, ?, ?, ?, 0, ?)",
                           (player, kind, system, value, json.dumps(stats)))


@pytest.mark.parametrize(("room", "system", "kind"), [
    ("spades-zone", "zone", "spades"),
    ("hearts-wocg", "wocg", "hearts"),
    ("spades-openskill", "openskill_tuned", "spades"),
])
async def test_a_ranked_game_tells_each_sides_chances_from_the_ratings_at_its_start(
        ranked_app, room, system, kind):
    names = ["ann", "bob", "cat", "dan"]
    values = {"ann": 1700.0, "bob": 1500.0, "cat": 1650.0}  # dan has none: the start rating
    async with AsyncExitStack() as stack:
        clients = await players(ranked_app, stack, names)
        for name, value in values.items():
            await set_rating(ranked_app, name, kind, system, value)
        sys_ = system_named(system)
        ratings = {n: Rating(values[n]) if n in values else sys_.start_rating for n in names}
        expected = [round(p, 4) for p in sys_.win_probability(kind, names, ratings)]
        assert len(expected) == (2 if kind == "spades" else 4)
        table = await seat(clients, room)
        [watcher] = await players(ranked_app, stack, ["zed"])
        snapshot = await watcher.request({"type": "watch", "table": table})
        ends = await asyncio.wait_for(asyncio.gather(
            *(autoplay(c, table, i) for i, c in enumerate(clients))), 120)
        listed = json.loads((await http_get(ranked_app, f"/api/tables?room={room}"))[2])
        assert [t["chances"] for t in listed["tables"] if t["id"] == table] == [expected]
    started = next(m["event"] for m in clients[0].received if m.get("type") == "event"
                   and m["event"]["type"] == "game_started")
    assert started["system"] == system and started["chances"] == expected
    assert sum(expected) == pytest.approx(1.0, abs=1e-3)
    if kind == "spades":  # the stronger side (ann 1700 and cat 1650) is the favourite
        assert expected[0] > expected[1]
    assert snapshot["info"]["chances"] == expected  # a watcher's snapshot, and the lobby
    assert all(e["chances"] == expected for e in ends)  # beside the rating changes
    # The profile lists the game, rated, with the player's rating change.
    profile = json.loads((await http_get(ranked_app, "/api/players/ann"))[2])
    [recent] = profile["recent_games"]
    mine = next(c for c in ends[0]["ratings"] if c["player"] == "ann")
    assert recent["rated"] and recent["room"] == room and recent["game"] == kind
    assert recent["players"] == names and recent["seat"] == 0
    assert recent["rating_delta"] == pytest.approx(mine["delta"])
    assert recent["won"] == (0 in ends[0]["winners"]) and not recent["abandoned"]
    assert recent["scores"] == ends[0]["scores"]

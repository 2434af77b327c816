"""Sandboxes and duplicate matches (issue 36, item 4), over the live socket: a private
table whose games are dealt from a fixed seed or an explicit deal list, so that a bot's
test repeats exactly; and duplicate matches on it, the same deals played again with every
player one seat on, scored deal by deal against the field."""

from __future__ import annotations

import asyncio
import json
import random
from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.server.conftest import (
    FAST,
    http_get,
    next_pushed,
    play_until_over,
    url,
    wait_for,
)
from tests.server.refusals import refused
from trickroom.game.cards import deal, texts_of
from trickroom.game.duplicate import PlayedGame, compare
from trickroom.game.hearts import HeartsGame
from trickroom.game.spades import SpadesGame
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config

ENGINES = {"spades": SpadesGame, "hearts": HeartsGame}


async def sandbox_table(client: TrickroomClient, room: str, **sandbox: Any) -> dict[str, Any]:
    made = await client.request({"type": "create_table", "room": room,
                                 "rules": {"hand_limit": 2}, "sandbox": sandbox})
    table = made["table"]["id"]
    await client.request({"type": "sit", "table": table, "seat": 0})
    await client.request({"type": "fill_robots", "table": table})
    return made


def dealt_to_me(client: TrickroomClient) -> list[list[str]]:
    """The cards each of our hands was dealt, in order, from what the client received."""
    return [m["event"]["cards"] for m in client.received
            if m.get("type") == "event" and m["event"]["type"] == "dealt"]


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_a_seed_deals_the_same_cards_at_every_sandbox_table(app, room):
    async with AsyncExitStack() as stack:
        seen = []
        for name in ("ann", "bob"):
            client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
            await client.request({"type": "guest", "name": name})
            made = await sandbox_table(client, room, seed=1234)
            info = made["table"]
            assert info["private"] is True and made["invite"]["code"]
            # The seed is every hand's cards: no message tells it (the opener chose it).
            assert info["sandbox"] == {"deals": 0, "known_deals": True, "duplicate": False,
                                       "match_played": 0, "match_games": 1}
            await play_until_over(client, info["id"], random.Random(len(seen)))
            seen.append(dealt_to_me(client))
        expected = ENGINES[room](seed=1234).dealt[0]
        common = min(map(len, seen))  # a game may end sooner (Spades: a mercy rule)
        assert seen[0][:common] == seen[1][:common]
        assert sorted(seen[0][0]) == sorted(texts_of(expected))


async def test_an_explicit_deal_list_is_dealt_hand_by_hand(app):
    rng = random.Random(8)
    deals = [[texts_of(m) for m in deal(rng)] for _ in range(2)]
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        made = await sandbox_table(client, "spades", deals=deals)
        assert made["table"]["sandbox"]["deals"] == 2
        await play_until_over(client, made["table"]["id"], random.Random(1))
        assert [sorted(h) for h in dealt_to_me(client)] == [sorted(d[0]) for d in deals]


A_DEAL = [texts_of(m) for m in deal(random.Random(1))]


@pytest.mark.parametrize("sandbox, field, words", [
    ({"deals": [A_DEAL, [["AS"] * 13, *A_DEAL[1:]]]}, "sandbox.deals.1", "twice"),
    ({"deals": [[["ZZ"] * 13, *A_DEAL[1:]]]}, "sandbox.deals.0", "ZZ"),
    ({"deals": [[[c] for c in ["2C"] * 4]]}, "sandbox.deals.0.0", "at least 13"),
    ({"seed": -1}, "sandbox.seed", "must be at least 0"),
    ({"duplicate": [1]}, "sandbox.duplicate", "true or false"),
    ({"cards": 1}, "sandbox.cards", "not a field"),
])
async def test_a_bad_sandbox_is_refused_naming_its_field(app, sandbox, field, words):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        error = await refused(client, {"type": "create_table", "room": "spades",
                                       "sandbox": sandbox})
        assert error["code"] == "invalid_field" and error["field"] == field
        assert words in error["message"]
        assert (await client.request({"type": "list_tables", "room": "spades"}))["total"] == 0


async def test_cards_dealt_twice_are_named(app):
    rng = random.Random(2)
    hands = [texts_of(m) for m in deal(rng)]
    hands[1][0] = hands[0][0]
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        error = await refused(client, {"type": "create_table", "room": "spades",
                                       "sandbox": {"deals": [hands]}})
        assert error["field"] == "sandbox.deals.0" and hands[0][0] in error["message"]


async def test_a_ranked_room_has_no_sandbox(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        error = await refused(client, {"type": "create_table", "room": "spades-zone",
                                       "sandbox": {"seed": 1}})
        assert error["code"] == "invalid_field" and "ranked" in error["message"]


def dealt_per_game(client: TrickroomClient) -> list[list[list[str]]]:
    """The cards we were dealt, hand by hand, game by game."""
    games: list[list[list[str]]] = [[]]
    for message in client.received:
        if message.get("type") == "event":
            if message["event"]["type"] == "dealt":
                games[-1].append(message["event"]["cards"])
            elif message["event"]["type"] == "game_over":
                games.append([])
    return games[:-1]


def hand_scores(client: TrickroomClient, room: str) -> list[list[tuple[int, ...]]]:
    """Each game's hands, each seat's points (more is better), from hand_scored events."""
    games: list[list[tuple[int, ...]]] = [[]]
    for message in client.received:
        if message.get("type") != "event":
            continue
        event = message["event"]
        if event["type"] == "hand_scored":
            result = event
            if room == "spades":
                side = [s["points"] for s in result["sides"]]
                games[-1].append((side[0], side[1], side[0], side[1]))
            else:
                games[-1].append(tuple(-p for p in result["points"]))
        elif event["type"] == "game_over":
            games.append([])
    return games[:-1]


@pytest.mark.parametrize("room, games", [("spades", 2), ("hearts", 4)])
async def test_a_duplicate_match_moves_the_bot_and_scores_each_deal_against_the_field(
        app, room, games):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        made = await sandbox_table(client, room, seed=77, duplicate=True)
        table = made["table"]["id"]
        assert made["table"]["sandbox"]["match_games"] == games
        assert made["table"]["sandbox"]["known_deals"] is True
        seats = [0]
        for k in range(games):
            await play_until_over(client, table, random.Random(k))
            if k < games - 1:
                await client.request({"type": "play_again", "table": table})
                moved = await next_pushed(client, "seated", lambda m: m["id"] is None)
                seats.append(moved["seat"])
        assert seats == [k % 4 for k in range(games)]
        result = (await next_pushed(client, "event", lambda m: m["event"]["type"]
                                    == "duplicate_result"))["event"]
        # Every game dealt the same cards to each seat: what we held in game k is what
        # the seed deals to seat k.
        engine = ENGINES[room](seed=77)
        for k, hands in enumerate(dealt_per_game(client)):
            assert sorted(hands[0]) == sorted(texts_of(engine.dealt[k]))
        played = hand_scores(client, room)
        assert result["games"] == games and result["hands"] == [
            [list(h) for h in g[:result["deals"]]] for g in played]
        first = {p["name"]: p["seats"][0] for p in result["players"]}
        assert first["guest-ann"] == 0 and sorted(first.values()) == [0, 1, 2, 3]
        expected = {m.name: m for m in compare(
            [PlayedGame(("", "", "", ""), tuple(g)) for g in played], first)}
        for player in result["players"]:
            assert player["deals"] == list(expected[player["name"]].deals)
            assert player["seats"] == [(first[player["name"]] + k) % 4 for k in range(games)]


async def test_a_sandbox_game_resumes_on_its_deals_after_a_restart(tmp_path):
    rng = random.Random(5)
    deals = [[texts_of(m) for m in deal(rng)] for _ in range(3)]
    db = tmp_path / "t.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            await client.request({"type": "guest", "name": "ann"})
            made = await sandbox_table(client, "spades", deals=deals)
            table = made["table"]["id"]
            await play_until_over(client, table, random.Random(1), stop_after=1)
    finally:
        await app.stop()
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        machine = again.lobby.tables[table].machine
        game = machine.state.game
        # The resumed game holds the whole list (its next hands come from it, as
        # tests/game/test_deals.py shows), and the table stays a sandbox.
        assert game is not None and game.hand_no == 0
        assert [[sorted(texts_of(m)) for m in d] for d in game.deals] == [
            [sorted(h) for h in d] for d in deals]
        assert machine.info().sandbox is not None and machine.info().sandbox.deals == 3
    finally:
        await again.stop()


async def test_a_sandbox_game_counts_toward_no_ranked_eligibility(app):
    """Known deals are no test of skill: two people (two addresses) finishing a sandbox
    game as long as one that counts earn no casual game toward ranked play."""
    async with AsyncExitStack() as stack:
        a, b = [await stack.enter_async_context(
                    TrickroomClient.connect(url(app), local_addr=(f"127.0.0.{20 + i}", 0)))
                for i in range(2)]
        await a.request({"type": "register", "name": "amy", "password": "amy-amy"})
        await b.request({"type": "register", "name": "ben", "password": "ben-ben"})
        created = await a.request({"type": "create_table", "room": "spades",
                                   "rules": {"target": 250, "mercy": 250},
                                   "sandbox": {"seed": 3}})
        table_id, code = created["table"]["id"], created["invite"]["code"]
        await a.request({"type": "sit", "table": table_id, "seat": 0})
        await b.request({"type": "sit", "table": table_id, "seat": 1, "invite": code})
        await a.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await asyncio.gather(play_until_over(a, table_id, random.Random(1)),
                             play_until_over(b, table_id, random.Random(2)))
        await wait_for(lambda: app.lobby.tables[table_id].machine.state.phase == "over")
        await a.request({"type": "ping"})
    assert (await app.store.account("amy"))["casual_games"] == 0
    assert (await app.store.account("ben"))["casual_games"] == 0


async def test_a_drawn_seed_is_told_to_no_one_while_it_deals(app):
    """Without a seed of the opener's, the seed is drawn and secret: it is every hand's
    cards, so it is in no message until the game is over (its review has it)."""
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "ann"})
        made = await sandbox_table(client, "hearts", duplicate=True)
        assert made["table"]["sandbox"]["known_deals"] is False
        table = made["table"]["id"]
        seed = app.lobby.tables[table].machine.state.private.sandbox.seed
        over = await play_until_over(client, table, random.Random(3))
        before = client.received[:client.received.index(over)]
        assert before and not any(str(seed) in str(m) for m in before)
        game_id = app.lobby.tables[table].machine.state.game_id
        # The table's next game deals the same cards: its review waits for it to close.
        status, _, _ = await http_get(app, f"/api/games/{game_id}")
        assert status == 404
        await client.request({"type": "stand", "table": table})
    await wait_for(lambda: table not in app.lobby.tables)
    status, _, body = await http_get(app, f"/api/games/{game_id}")
    assert status == 200 and json.loads(body)["record"]["seed"] == seed
    assert json.loads(body)["sandbox"] is True


async def test_a_duplicate_match_s_first_game_is_in_no_export_while_the_second_plays(
        tmp_path):
    """The first game of a match shows every hand the second is dealing: neither its
    review nor its player's export shows it while the table is open."""
    app = App(load_config(**FAST, password_profile="cheapest"), tmp_path / "t.sqlite3")
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            await client.request({"type": "register", "name": "robo", "password": "robo-robo"})
            made = await sandbox_table(client, "spades", duplicate=True)
            table = made["table"]["id"]
            await play_until_over(client, table, random.Random(1))
            await client.request({"type": "play_again", "table": table})
            await next_pushed(client, "event", lambda m: m["event"]["type"] == "game_started")
            status, _, body = await http_get(app, "/api/players/robo/games.jsonl")
            assert status == 200 and body == b"0\r\n\r\n"  # a whole export, of no game
    finally:
        await app.stop()

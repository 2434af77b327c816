"""What the server tells a client so it needs no rules of its own: why a card is refused,
whose turn it is after each event, the rules a table may set, and a player's recent games."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from contextlib import AsyncExitStack
from dataclasses import fields
from typing import Any

import pytest

from tests.server.conftest import choose, http_get, play_until_over, url, wait_for
from tests.server.test_seats import solo_table
from trickroom.game.engine import ENGINES
from trickroom.game.variants import BOUNDS
from trickroom.server.client import ServerError, TrickroomClient

GAME_EVENTS = {"hand_started", "dealt", "looked", "bid", "pass_chosen", "passed", "received",
               "played", "trick_won", "hand_scored", "moon_pending"}
REASONS = ("Follow suit: ", "The first lead may not be a spade.",
           "Spades are not broken yet", "The 2 of clubs leads the first trick.",
           "The first trick is led with a club.", "Hearts are not broken yet",
           "No points on the first trick: ")


async def play_checking_illegal(client: TrickroomClient, table: str, seed: int,
                                tries: int = 6) -> tuple[dict[str, Any], set[str]]:
    """Play at random to the end. On a play turn, check ``illegal`` against ``legal`` and
    the hand, and send a refused card now and then: the server must refuse it as well."""
    rng = random.Random(seed)
    answered = -1
    seen: set[str] = set()
    async for message in client.messages():
        if message["type"] == "event" and message["event"]["type"] == "game_over":
            return message, seen
        if message["type"] != "prompt" or message["seq"] <= answered:
            continue
        answered = message["seq"]
        illegal = {i["card"]: i["reason"] for i in message["illegal"]}
        assert message["view"]["illegal"] == message["illegal"]
        if message["phase"] != "play":
            assert illegal == {}
        else:
            legal = {a["card"] for a in message["legal"]}
            assert set(illegal) == set(message["hand"]) - legal and not legal & set(illegal)
            for reason in illegal.values():
                assert reason.startswith(REASONS) and reason.endswith("."), reason
                seen.add(reason)
            if illegal and tries:
                tries -= 1
                card = rng.choice(sorted(illegal))
                with pytest.raises(ServerError) as err:
                    await client.act(table, {"type": "play", "card": card})
                assert err.value.code == "illegal_action"
        await client.act(table, choose(message, rng))
    raise AssertionError("the connection closed before the game ended")


@pytest.mark.parametrize(("room", "rules"), [
    ("spades", {"target": 100, "mercy": 100}),
    ("hearts", {"target": 30, "queen_breaks_hearts": True}),
])
async def test_a_play_prompt_says_why_each_other_card_is_refused(app, room, rules):
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, room, rules)
        _, seen = await asyncio.wait_for(play_checking_illegal(client, table, 5), 120)
    assert any(r.startswith("Follow suit: ") for r in seen)
    if room == "hearts":
        assert all("queen of spades breaks them" in r for r in seen
                   if r.startswith("Hearts are not broken"))


async def test_a_rejoin_snapshot_carries_the_refused_cards_of_the_seats_turn(app):
    async with TrickroomClient.connect(url(app)) as client:
        table, token = await solo_table(client, "spades", {"target": 100, "mercy": 100})
        machine = app.lobby.tables[table].machine
        rng = random.Random(2)
        async for message in client.messages():  # to our first play turn with a card refused
            if message["type"] != "prompt":
                continue
            if message["phase"] == "play" and message["illegal"]:
                break
            await client.act(table, choose(message, rng))
        snapshot = await client.request({"type": "rejoin", "table": table,
                                         "seat_token": token, "last_seq": 0})
        assert snapshot["type"] == "snapshot" and machine.state.game.to_act == 0
        assert snapshot["view"]["illegal"] == message["illegal"]
        async with TrickroomClient.connect(url(app)) as watcher:
            await watcher.request({"type": "guest", "name": "watcher"})
            watched = await watcher.request({"type": "watch", "table": table})
        assert watched["view"]["illegal"] == []  # a spectator is refused nothing


# -- whose turn -------------------------------------------------------------------------------


def check_turns(received: list[dict[str, Any]], seat: int) -> int:
    """Every game event carries ``turn``; a table event none. Every prompt follows an event
    whose turn is the prompt's: the game waits on the prompted seat, in the prompt's phase."""
    turn = None
    prompts = 0
    for message in received:
        if message.get("type") == "event":
            kind = message["event"]["type"]
            if kind in GAME_EVENTS:
                turn = message["turn"]
                assert turn["to_act"] is None or turn["to_act"] in turn["awaiting"]
                if turn["phase"] in ("hand_over", "game_over"):
                    assert turn["to_act"] is None and turn["awaiting"] == []
            elif kind == "game_over":
                assert message["turn"] == {"phase": "game_over", "to_act": None,
                                           "awaiting": []}
            else:
                assert "turn" not in message, message
        elif message.get("type") == "prompt":
            assert turn is not None and turn["phase"] == message["phase"]
            assert seat in turn["awaiting"]
            if turn["phase"] != "pass":
                assert turn["to_act"] == seat
            prompts += 1
    return prompts


@pytest.mark.parametrize("room", ["spades", "hearts"])
async def test_every_game_event_says_whose_turn_it_is_after_it(app, room):
    rules = {"target": 100, "mercy": 100} if room == "spades" else {"target": 30}
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, room, rules)
        async with TrickroomClient.connect(url(app)) as watcher:
            await watcher.request({"type": "guest", "name": "watcher"})
            await watcher.request({"type": "watch", "table": table})
            await asyncio.wait_for(play_checking_illegal(client, table, 9, tries=0), 120)
            await wait_for(lambda: any(m.get("event", {}).get("type") == "game_over"
                                       for m in watcher.received))
    assert check_turns(client.received, 0) > 10
    # One action's events share one turn; the watcher, who sees the same public events,
    # gets the same turn with each (one encoding for every audience).
    mine = {m["seq"]: m.get("turn") for m in client.received if m.get("type") == "event"}
    theirs = {m["seq"]: m.get("turn") for m in watcher.received if m.get("type") == "event"}
    assert all(mine[seq] == turn for seq, turn in theirs.items() if seq in mine)
    played = [m for m in client.received if m.get("type") == "event"
              and m["event"]["type"] in ("played", "trick_won")]
    for a, b in itertools.pairwise(played):
        if b["event"]["type"] == "trick_won":  # the trick's last card and its winner
            assert a["turn"] == b["turn"] and b["turn"]["to_act"] in (b["event"]["seat"], None)


async def test_a_hearts_pass_waits_on_every_seat_still_choosing(app):
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, "hearts", {"target": 30}, name="passer")
        prompt = None
        async for message in client.messages():
            if message["type"] == "prompt":
                prompt = message
                break
        assert prompt is not None and prompt["phase"] == "pass"
        started = [m for m in client.received if m.get("type") == "event"
                   and m["event"]["type"] == "hand_started"]
        assert started[-1]["turn"]["phase"] == "pass"
        assert 0 in started[-1]["turn"]["awaiting"]
        await client.act(table, choose(prompt, random.Random(1)))
        chosen = [m for m in client.received if m.get("type") == "event"
                  and m["event"]["type"] == "pass_chosen" and m["event"]["seat"] == 0]
        turn = chosen[0]["turn"]
        if turn["phase"] == "pass":  # others still choose; this seat no more
            assert 0 not in turn["awaiting"] and turn["to_act"] == min(turn["awaiting"])
        else:  # the last to pass: the cards went round and the 2 of clubs leads
            assert turn["phase"] == "play" and turn["awaiting"] == [turn["to_act"]]


# -- chances in casual rooms ------------------------------------------------------------------


async def test_a_casual_game_tells_no_chances(app):
    async with TrickroomClient.connect(url(app)) as client:
        table, _ = await solo_table(client, "spades", {"target": 100, "mercy": 100})
        over, _ = await asyncio.wait_for(play_checking_illegal(client, table, 1, tries=0), 120)
        started = next(m["event"] for m in client.received if m.get("type") == "event"
                       and m["event"]["type"] == "game_started")
        assert started["chances"] is None and started["system"] is None
        assert over["event"]["chances"] is None
        info = app.lobby.tables[table].machine.info()
        assert info.state == "over" and info.chances is None


# -- the rules a table may set ------------------------------------------------------------------

FORM_LABELS = {  # what the browser's create-table form has shown (web/js/lobby.js)
    "spades": {"target": "Play to (points)",
               "mercy": "Mercy: end when a side falls to minus (empty: off)",
               "bag_limit": "Bags before a penalty (empty: no penalty)",
               "blind_nil": "Blind nil allowed", "two_of_clubs_leads": "Two of clubs leads"},
    "hearts": {"target": "Play to (points)", "pass_cycle": "Passing",
               "moon": "Shooting the moon",
               "jack_of_diamonds": "Jack of diamonds scores −10",
               "blood_on_first_trick": "Points allowed on the first trick"},
}


async def test_the_rules_api_describes_every_rule_a_table_may_set(app):
    status, headers, body = await http_get(app, "/api/rules")
    assert status == 200 and headers["Content-Type"] == "application/json"
    described = json.loads(body)["rules"]
    assert set(described) == {"spades", "hearts"}
    for kind, rules in described.items():
        rules_type = ENGINES[kind].rules_type
        defaults = {f.name: f.default for f in fields(rules_type)}
        assert [r["name"] for r in rules if r["common"]] == list(FORM_LABELS[kind])
        assert sorted(r["name"] for r in rules) == sorted(defaults)  # every field, once
        for rule in rules:
            name = rule["name"]
            default = defaults[name]
            assert rule["default"] == (list(default) if isinstance(default, tuple) else default)
            assert rule["label"] and rule["help"].endswith(".")
            if name in FORM_LABELS[kind]:
                assert rule["label"] == FORM_LABELS[kind][name]
            if rule["type"] == "bool":
                assert isinstance(default, bool)
            elif rule["type"] == "int":
                assert (rule["min"], rule["max"]) == BOUNDS[kind][name]
                rules_type(**{name: rule["max"]})  # the bounds are the engine's own
                with pytest.raises(ValueError):
                    rules_type(**{name: rule["max"] + 1})
                assert rule["nullable"] == (name in ("mercy", "bag_limit"))
            else:
                assert rule["type"] == "choice"
                values = [c["value"] for c in rule["choices"]]
                assert rule["default"] in values
                for value in values:
                    rules_type(**{name: tuple(value) if isinstance(value, list) else value})
    async with TrickroomClient.connect(url(app)) as client:  # a form's choice is accepted
        await client.request({"type": "guest", "name": "former"})
        created = await client.request({"type": "create_table", "room": "hearts", "rules": {
            "pass_cycle": described["hearts"][1]["choices"][2]["value"]}})
        assert created["table"]["state"] == "waiting"


# -- recent games on the profile -------------------------------------------------------------------


async def test_a_profile_lists_recent_casual_games_newest_first(app):
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        bob = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await ann.request({"type": "register", "name": "ann", "password": "secret-ann"})
        await bob.request({"type": "register", "name": "bob", "password": "secret-bob"})
        reply = await ann.request({"type": "create_table", "room": "hearts",
                                   "rules": {"target": 20}})
        table = reply["table"]["id"]
        await ann.request({"type": "sit", "table": table, "seat": 0})
        await bob.request({"type": "sit", "table": table, "seat": 2})
        await ann.request({"type": "fill_robots", "table": table, "level": "random"})
        machine = app.lobby.tables[table].machine
        games = []
        for round_ in range(2):
            ends = await asyncio.wait_for(asyncio.gather(
                play_checking_illegal(ann, table, round_, tries=0),
                play_checking_illegal(bob, table, 10 + round_, tries=0)), 120)
            games.append((machine.state.game_id, ends[0][0]["event"]))
            await wait_for(lambda: machine.state.phase == "over")
            if round_ == 0:
                await ann.request({"type": "play_again", "table": table})
                await bob.request({"type": "play_again", "table": table})
                await wait_for(lambda: machine.state.phase == "playing")
    status, _, body = await http_get(app, "/api/players/ANN")  # names match in any case
    assert status == 200
    profile = json.loads(body)
    assert profile["casual_games_needed"] == app.config.settings.min_games
    recent = profile["recent_games"]
    assert [r["game_id"] for r in recent] == [g for g, _ in reversed(games)]
    for entry, (game_id, over) in zip(recent, reversed(games), strict=True):
        assert entry["game_id"] == game_id
        assert entry["game"] == "hearts" and entry["room"] == "hearts"
        assert not entry["rated"] and entry["rating_delta"] is None
        assert entry["seat"] == 0 and entry["players"][0] == "ann"
        assert entry["players"][2] == "bob" and entry["players"][1].startswith("Bot ")
        assert entry["scores"] == over["scores"] and entry["won"] == (0 in over["winners"])
        assert not entry["abandoned"] and isinstance(entry["ended_at"], float)
        assert entry["registered_players"] == 2  # ann and bob: it may count toward ranked
    assert recent[0]["ended_at"] >= recent[1]["ended_at"]
    bobs = json.loads((await http_get(app, "/api/players/bob"))[2])["recent_games"]
    assert [r["seat"] for r in bobs] == [2, 2]


async def test_a_profile_says_a_game_against_robots_alone_did_not_count_toward_ranked(app):
    """After a whole casual game against robots the profile said "0 casual games finished"
    beside the game under Recent games, and nothing said why (issue 33, item 4): it gives
    the count the rule uses, how many it asks for, and how many registered players each
    game had (one: it cannot count)."""
    async with TrickroomClient.connect(url(app)) as solo:
        await solo.request({"type": "register", "name": "solo", "password": "secret-solo"})
        reply = await solo.request({"type": "create_table", "room": "hearts",
                                    "rules": {"target": 50}})
        table = reply["table"]["id"]
        await solo.request({"type": "sit", "table": table, "seat": 0})
        await solo.request({"type": "fill_robots", "table": table, "level": "random"})
        await asyncio.wait_for(play_until_over(solo, table, random.Random(3)), 120)
        machine = app.lobby.tables[table].machine
        await wait_for(lambda: machine.state.phase == "over")
    status, _, body = await http_get(app, "/api/players/solo")
    assert status == 200
    profile = json.loads(body)
    assert profile["casual_games"] == 0
    assert profile["casual_games_needed"] == app.config.settings.min_games
    [game] = profile["recent_games"]
    assert not game["rated"] and game["registered_players"] == 1

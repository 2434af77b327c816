"""``act.action`` typed per game in the published schema (issue 36, item 6): a bot author's
strict validator catches a wrong action before it is sent (the moon choice named after the
room's rule, a ``play`` without its card, a bid out of range), while every action the
engines make passes. The server itself still reads any object and refuses a wrong action
with the rule it breaks, as before."""

from __future__ import annotations

import random

import jsonschema
import pytest

from tests.server.conftest import next_pushed, url
from tests.server.refusals import refused
from trickroom.game.actions import BIDS, BLIND_NIL, LOOK, MOON_CHOICES, PLAYS, Pass
from trickroom.server.client import TrickroomClient
from trickroom.server.protocol import json_schema

SCHEMA = json_schema()
REQUESTS = jsonschema.Draft202012Validator(SCHEMA["client_to_server"])
GAMES = {game: jsonschema.Draft202012Validator(SCHEMA["actions"][game])
         for game in ("spades", "hearts")}

SPADES = [a.to_wire() for a in (*BIDS, BLIND_NIL, LOOK, *PLAYS)]
HEARTS = [a.to_wire() for a in (*PLAYS, *MOON_CHOICES)] + [
    Pass(tuple(sorted(random.Random(n).sample(range(52), n)))).to_wire() for n in (1, 3, 4)]

WRONG = [
    {"type": "moon", "choice": "add_to_others"},  # the room's rule, not the action's choice
    {"type": "moon", "choice": "subtract_from_shooter"},
    {"type": "moon"},
    {"type": "play"},
    {"type": "play", "card": "1S"},
    {"type": "play", "card": "QS", "crad": "QS"},
    {"type": "bid", "value": 14},
    {"type": "bid", "value": -1},
    {"type": "bid", "value": "4"},
    {"type": "bid", "value": 4, "blind": True},  # a blind bid is nil
    {"type": "bid"},
    {"type": "pass", "cards": []},
    {"type": "pass", "cards": ["QS", "AH", "KD", "2C", "3C"]},
    {"type": "draw"},
    {"card": "QS"},
]


def act(action: dict) -> dict:
    return {"type": "act", "table": "Xy12ab", "action": action, "id": 1}


@pytest.mark.parametrize(("game", "actions"), [("spades", SPADES), ("hearts", HEARTS)])
def test_every_action_an_engine_makes_is_valid_for_its_game_and_as_an_act(game, actions):
    for action in actions:
        GAMES[game].validate(action)
        REQUESTS.validate(act(action))


@pytest.mark.parametrize("action", WRONG, ids=lambda a: str(a))
def test_a_wrong_action_is_caught_by_the_schema(action):
    assert not REQUESTS.is_valid(act(action))
    assert not any(validator.is_valid(action) for validator in GAMES.values())


def test_each_game_s_schema_takes_only_that_game_s_actions():
    assert not GAMES["spades"].is_valid({"type": "pass", "cards": ["QS", "AH", "KD"]})
    assert not GAMES["spades"].is_valid({"type": "moon", "choice": "add"})
    assert not GAMES["hearts"].is_valid({"type": "bid", "value": 4})
    assert not GAMES["hearts"].is_valid({"type": "look"})


async def test_the_server_still_refuses_a_wrong_action_with_the_rule_it_breaks(app):
    """The schema is the published contract; the server's own reading is unchanged: any
    object reaches the engine, which names what is wrong."""
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "strict"})
        reply = await client.request({"type": "create_table", "room": "hearts"})
        table = reply["table"]["id"]
        await client.request({"type": "sit", "table": table, "seat": 0})
        await client.request({"type": "fill_robots", "table": table, "level": "random"})
        await next_pushed(client, "prompt", lambda m: m["phase"] == "pass")
        for action, code, message in (
                ({"type": "moon", "choice": "add_to_others"}, "invalid_field",
                 "action: field 'choice' must be 'add' or 'subtract'"),
                ({"type": "play"}, "invalid_field", "action: field 'card' is missing"),
                ({"type": "bid", "value": "4"}, "invalid_field",
                 "action: field 'value' must be an integer"),
                ({"type": "draw"}, "invalid_field", "action: unknown action type 'draw': "
                 "expected one of play, bid, pass, look, moon"),
                ({"type": "bid", "value": 14}, "illegal_action",
                 "bid 14 is not an action in Hearts")):
            error = await refused(client, {"type": "act", "table": table, "action": action})
            assert error["code"] == code, error
            assert error["message"] == message, error
        error = await refused(client, {"type": "act", "table": table, "action": "play QS"})
        assert error["code"] == "invalid_field" and error["field"] == "action"

"""A table's rules as a client asks for them (issue 13): a ranked room's are its host's, and
a value out of its bounds is refused, naming the rule."""

from __future__ import annotations

import pytest

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient


async def test_a_client_s_rules_in_a_ranked_room_are_refused(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "ann", "password": "secret-ann"})
        await app.store.set_casual_games("ann", app.config.settings.min_games)
        error = await refused(client, {"type": "create_table", "room": "spades-zone",
                                       "rules": {"target": 1, "mercy": 1}})
        assert error["code"] == "invalid_field" and "host's rules" in error["message"]
        assert app.lobby.tables == {}
        created = await client.request({"type": "create_table", "room": "spades-zone"})
        table = app.lobby.tables[created["table"]["id"]].machine
        assert table.rules.target == app.config.rooms["spades-zone"].make_rules().target


@pytest.mark.parametrize(("room", "rules", "field"), [
    ("spades", {"target": 1e12}, "target"),
    ("spades", {"target": 10**12}, "target"),
    ("spades", {"nil_value": 1e18}, "nil_value"),
    ("spades", {"bag_limit": -3}, "bag_limit"),
    ("spades", {"blind_nil": 1}, "blind_nil"),
    ("hearts", {"pass_count": 13}, "pass_count"),
    ("hearts", {"pass_cycle": ["left"] * 100}, "pass_cycle"),
    ("hearts", {"jack_value": "ten"}, "jack_value"),
])
async def test_rule_values_outside_their_bounds_are_refused_naming_the_rule(app, room, rules,
                                                                            field):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        error = await refused(client, {"type": "create_table", "room": room, "rules": rules})
        assert error["code"] == "invalid_field" and field in error["message"]
    assert app.lobby.tables == {}

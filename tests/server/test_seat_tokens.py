"""A seat token is its holder's (issue 13): another player who has it takes nothing, the
same player rejoining on another socket takes the seat and the old socket is told."""

from __future__ import annotations

import json

from tests.server.conftest import url, wait_for
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.server.client import TrickroomClient


async def test_another_player_with_a_seat_token_takes_nothing(app):
    async with TrickroomClient.connect(url(app)) as owner, \
            TrickroomClient.connect(url(app)) as thief:
        table_id, token = await solo_table(owner, name="owner")
        await thief.request({"type": "guest", "name": "thief"})
        seen = len(owner.received)
        error = await refused(thief, {"type": "rejoin", "table": table_id, "seat_token": token,
                                      "last_seq": 0})
        assert error["code"] == "not_authorized" and "belongs to another player" in (
            error["message"])
        await owner.request({"type": "ping"})
        await thief.request({"type": "ping"})
        machine = app.lobby.tables[table_id].machine
        assert (machine.state.seats[0].client is not None
                and machine.state.seats[0].account == "guest-owner")
        assert not any(m["type"] == "error" for m in owner.received[seen:])
        assert not any(m["type"] in ("snapshot", "prompt") or "hand" in json.dumps(m)
                       for m in thief.received)


async def test_the_same_player_rejoining_elsewhere_takes_the_seat_and_the_old_socket_is_told(
        app):
    async with TrickroomClient.connect(url(app)) as first, \
            TrickroomClient.connect(url(app)) as second:
        table_id, token = await solo_table(first, name="phone")
        await second.request({"type": "resume", "token": first.session})
        snapshot = await second.request({"type": "rejoin", "table": table_id,
                                         "seat_token": token, "last_seq": 0})
        assert snapshot["view"]["seat"] == 0 and len(snapshot["view"]["hand"]) == 13
        await wait_for(lambda: any(m["type"] == "taken_over" for m in first.received))
        told = next(m for m in first.received if m["type"] == "taken_over")
        assert told["table"] == table_id and told["seat"] == 0
        machine = app.lobby.tables[table_id].machine
        assert machine.state.seats[0].client == max(app.clients)

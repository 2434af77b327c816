"""Only a table's players, or its creator, run it (issue 13)."""

from __future__ import annotations

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient


async def test_a_stranger_cannot_fill_or_start_someone_else_s_table(app):
    async with TrickroomClient.connect(url(app)) as host, \
            TrickroomClient.connect(url(app)) as stranger:
        await host.request({"type": "guest", "name": "host"})
        await stranger.request({"type": "guest", "name": "stranger"})
        created = await host.request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        await host.request({"type": "sit", "table": table_id, "seat": 0})
        for kind in ("fill_robots", "start"):
            error = await refused(stranger, {"type": kind, "table": table_id})
            assert error["code"] == "not_seated"
        machine = app.lobby.tables[table_id].machine
        state = machine.state
        assert state.phase == "waiting" and [s.kind for s in state.seats][1:] == ["empty"] * 3
        await host.request({"type": "fill_robots", "table": table_id, "level": "random"})
        assert machine.state.phase == "playing"
        assert (await refused(stranger, {"type": "start", "table": table_id}))["code"] == (
            "not_seated")


async def test_the_creator_may_fill_their_table_without_sitting(app):
    async with TrickroomClient.connect(url(app)) as host:
        await host.request({"type": "guest"})
        created = await host.request({"type": "create_table", "room": "hearts"})
        await host.request({"type": "fill_robots", "table": created["table"]["id"]})
        assert app.lobby.tables[created["table"]["id"]].machine.state.phase == "playing"

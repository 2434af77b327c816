"""What a player may be called, and the guests' names (``names.py``; issue 13): look-alike
and reserved names are refused, a name differing only in case is taken; a guest's name
keeps its suffix, is freed when its guest has gone, and is not given away while a seat
waits for it."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest

from tests.server.conftest import FAST, http_get, url, wait_for
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.tables.commands import WindowOver


@pytest.mark.parametrize("name", ["bob\n", "bob ", "robot-heuristic", "Robot", "guest-alice",
                                  "GUEST", "admin", "bö"])
async def test_look_alike_and_reserved_names_are_refused(app, name):
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "register", "name": name, "password": "secret"})
        assert error["code"] == "invalid_field"
    assert await app.store.user_hash(name) is None


async def test_a_name_differing_only_in_case_is_taken_and_the_api_needs_the_exact_pattern(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "bob", "password": "secret"})
        error = await refused(client, {"type": "register", "name": "BOB", "password": "secret"})
        assert error["code"] == "name_taken"
    status, _, _ = await http_get(app, "/api/players/bob%0A")
    assert status == 404
    status, _, _ = await http_get(app, "/api/players/bob")
    assert status == 200


async def test_long_guest_names_keep_their_suffix_and_every_reply_its_id(app):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        names = [(await c.request({"type": "guest", "name": "abcdefghijklmnopq"}))["name"]
                 for c in clients]
    assert len(set(names)) == 4 and all(len(n) <= 24 for n in names)
    assert names[0] == "guest-abcdefghijklmnopq" and names[1].endswith("-2")


async def test_a_guest_name_is_freed_when_its_guest_has_gone(make_app):
    app = await make_app(guest_session_seconds=0)
    async with TrickroomClient.connect(url(app)) as first:
        assert (await first.request({"type": "guest", "name": "kim"}))["name"] == "guest-kim"
        session = first.session
    await wait_for(lambda: not app.guests.held("guest-kim"))
    async with TrickroomClient.connect(url(app)) as second:
        assert (await second.request({"type": "guest", "name": "kim"}))["name"] == "guest-kim"
        # The first guest's session does not make them the second.
        error = await refused(second, {"type": "resume", "token": session})
        assert error["code"] == "not_authorized"


async def test_a_guest_name_a_seat_waits_for_is_not_given_away(app):
    async with TrickroomClient.connect(url(app)) as first:
        table_id, _ = await solo_table(first, name="lee")
    await wait_for(lambda: app.lobby.tables[table_id].machine.state.seats[0].away)
    async with TrickroomClient.connect(url(app)) as second:
        assert (await second.request({"type": "guest", "name": "lee"}))["name"] == "guest-lee-2"


async def test_the_room_knows_whose_seats_are_taken_as_seats_change_hands(make_app):
    """The lobby answers "does a seat wait for this name" from its own count (each guest's
    logout asks it; walking every seat of every table made a guest leaving cost the whole
    room's loop time: bench/guests.py). The count follows sitting, standing and leaving."""
    app = await make_app(guest_session_seconds=0)
    async with TrickroomClient.connect(url(app)) as first:
        await first.request({"type": "guest", "name": "mae"})
        table_id = (await first.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await first.request({"type": "sit", "table": table_id, "seat": 0})
        assert app.lobby.seated == {"guest-mae": 1}
        await first.request({"type": "stand", "table": table_id})
        assert not app.lobby.seated
        await first.request({"type": "sit", "table": table_id, "seat": 2})
        await first.request({"type": "fill_robots", "table": table_id, "level": "random"})
    await wait_for(lambda: app.lobby.tables[table_id].machine.state.seats[2].away)
    assert app.lobby.seated == {"guest-mae": 1}  # away: the seat still waits for them
    async with TrickroomClient.connect(url(app)) as second:
        assert (await second.request({"type": "guest", "name": "mae"}))["name"] == "guest-mae-2"
    runner = app.lobby.tables[table_id]
    await runner.call(WindowOver(2))  # the window ends: robots alone, the table closes
    await wait_for(lambda: not app.lobby.seated)
    async with TrickroomClient.connect(url(app)) as third:
        assert (await third.request({"type": "guest", "name": "mae"}))["name"] == "guest-mae"


async def _guest(app, wanted: str) -> tuple[str, str]:
    """A guest who asked for ``wanted`` comes and goes: their name, and their session."""
    async with TrickroomClient.connect(url(app)) as client:
        name = (await client.request({"type": "guest", "name": wanted}))["name"]
        return name, client.session


@pytest.mark.parametrize("again", ["gn7c9c", "GN7C9C", "gN7c9C"])
async def test_a_look_alike_of_a_resumable_guest_name_is_not_given_out(app, again):
    """Issue 32, item 6: while ``guest-Gn7c9c`` is away and may resume, no guest gets a name
    that differs from it only in case; both may then be online at once under names that
    do not pass for each other."""
    first, session = await _guest(app, "Gn7c9c")
    assert first == "guest-Gn7c9c"
    await wait_for(lambda: not app.guests.held(first))  # nobody online uses it
    async with TrickroomClient.connect(url(app)) as back, \
            TrickroomClient.connect(url(app)) as other:
        name = (await other.request({"type": "guest", "name": again}))["name"]
        assert name.lower() != first.lower()
        welcome = await back.request({"type": "resume", "token": session})
        assert welcome["name"] == first


async def test_guest_names_stay_case_insensitively_unique_after_a_restart(tmp_path):
    """The names that may resume are known to a restarted server too."""
    db = tmp_path / "trickroom.sqlite3"
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        first, _ = await _guest(app, "Gn7c9c")
    finally:
        await app.stop()
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        name, _ = await _guest(again, "gn7c9c")
        assert name.lower() != first.lower()
    finally:
        await again.stop()

"""What a player may be called, and the guests' names (``names.py``; issue 13): look-alike
and reserved names are refused, a name differing only in case is taken; a guest's name
keeps its suffix, is freed when its guest has gone, and is not given away while a seat
waits for it."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from urllib.parse import quote

import pytest

from tests.server.conftest import FAST, http_get, url, wait_for
from tests.server.refusals import refused
from tests.server.test_seats import solo_table
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.tables.commands import WindowOver


@pytest.mark.parametrize("name", [
    "bob\n", "bob ", "robot-heuristic", "Robot", "guest-alice", "GUEST", "admin",
    "p\u0430ypal",  # a Cyrillic "а" among Latin letters: mixed scripts
    "\u0410dmin",  # a Cyrillic "А" before "dmin"
    "\uff41\uff44\uff4d\uff49\uff4e",  # fullwidth "ａｄｍｉｎ": a compatibility form
    "\U0001d41a\U0001d41b",  # mathematical bold letters
    "bob\u200b",  # a zero-width space
    "Ann Lee", "\u0301abc", "a\u00b2", "ann!",
])
async def test_look_alike_and_reserved_names_are_refused(app, name):
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "register", "name": name, "password": "secret"})
        assert error["code"] == "invalid_field" and error["field"] == "name", error
    assert await app.store.user_hash(name) is None


@pytest.mark.parametrize("name", ["José", "Zoë_2", "Ελένη", "Дмитрий", "山田太郎", "やまだ",
                                  "김민준", "سارا", "देवनागरी", "Ørjan-Ødegård"])
async def test_names_in_any_one_script_register(app, name):
    """Letters of any script, with digits, '_' and '-' (issue 33, item 13: "José" could
    not register)."""
    async with TrickroomClient.connect(url(app)) as client:
        welcome = await client.request({"type": "register", "name": name, "password": "secret"})
        assert welcome["name"] == name
    status, _, body = await http_get(app, f"/api/players/{quote(name)}")
    assert status == 200 and json.loads(body)["name"] == name


async def test_a_unicode_name_is_one_name_whatever_its_case_and_composition(db):
    """NFC: "José" typed with a combining accent is the same name; case-insensitive
    uniqueness holds beyond ASCII, on both stores."""
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        async with TrickroomClient.connect(url(app)) as client:
            await client.request({"type": "register", "name": "José", "password": "secret"})
            for other in ("JOSÉ", "jos\u00c9", "Jose\u0301"):
                error = await refused(client, {"type": "register", "name": other,
                                               "password": "secret"})
                assert error["code"] == "name_taken" and error["field"] == "name", error
        async with TrickroomClient.connect(url(app)) as again:
            welcome = await again.request({"type": "login", "name": "Jose\u0301",
                                           "password": "secret"})
            assert welcome["name"] == "José"
    finally:
        await app.stop()


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

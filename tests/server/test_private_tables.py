"""Private tables (issue 35, item 1): listed to no one, entered by an invite code that
expires, can be renewed or revoked, with seats kept for named players, players moved and
removed by the table's opener before a game; casual rooms only. Every refusal typed,
over the live socket."""

from __future__ import annotations

import asyncio
import base64
from contextlib import AsyncExitStack

from tests.server.conftest import FAST, guests, http_get, url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


async def private_table(opener: TrickroomClient, room: str = "spades") -> tuple[str, str]:
    """A private table the opener sits at (seat 0): its id and its invite code."""
    made = await opener.request({"type": "create_table", "room": room, "private": True})
    assert made["table"]["private"] is True
    table, code = made["table"]["id"], made["invite"]["code"]
    await opener.request({"type": "sit", "table": table, "seat": 0})
    return table, code


def mentions(client: TrickroomClient, text: str) -> bool:
    return any(text in str(message) for message in client.received)


async def test_a_private_table_is_in_no_list_and_its_id_alone_opens_nothing(app):
    async with AsyncExitStack() as stack:
        ann, eve = await guests(stack, app, "ann", "eve")
        listed = await eve.request({"type": "list_tables", "room": "spades"})  # subscribed
        table, _ = await private_table(ann)
        await ann.request({"type": "chat", "table": table, "text": "just us"})
        assert (await eve.request({"type": "list_tables", "room": "spades"}))["total"] == \
            listed["total"]
        assert table not in {t["id"] for t in (await ann.request(
            {"type": "list_tables", "room": "spades"}))["tables"]}
        _, _, body = await http_get(app, "/api/tables?room=spades")
        rooms = (await eve.request({"type": "list_rooms"}))["rooms"]
        assert [r["tables"] for r in rooms if r["name"] == "spades"] == [0]
        await eve.request({"type": "ping"})
        # Nothing of it reached the stranger subscribed to the room: no id, no name, no chat.
        assert not mentions(eve, table) and not mentions(eve, "guest-ann")
        assert table.encode() not in body
        for request in ({"type": "sit", "table": table}, {"type": "watch", "table": table}):
            error = await refused(eve, request)  # as for a table that is not
            assert error["code"] == "no_such_table" and "is open" in error["message"]


async def test_the_invite_seats_a_friend_and_a_stale_code_says_to_ask_for_a_new_one(app):
    async with AsyncExitStack() as stack:
        ann, bob, cat = await guests(stack, app, "ann", "bob", "cat")
        table, code = await private_table(ann)
        assert len(base64.urlsafe_b64decode(code + "==")) * 8 >= 96  # not to be guessed
        wrong = await refused(bob, {"type": "sit", "table": table, "invite": code[::-1]})
        assert wrong["code"] == "not_invited" and "new link" in wrong["message"]
        seated = await bob.request({"type": "sit", "table": table, "invite": code})
        assert seated["seat"] == 1
        # A player at the table may pass the invite on; a new one ends the old.
        renewed = (await bob.request({"type": "invite", "table": table, "renew": True}))
        new = renewed["invite"]["code"]
        assert new != code and renewed["invite"]["expires_in"] > 0
        assert (await refused(cat, {"type": "watch", "table": table, "invite": code}))[
            "code"] == "not_invited"
        await cat.request({"type": "watch", "table": table, "invite": new})
        # The opener alone revokes it; then no code lets anyone in.
        assert (await refused(bob, {"type": "invite", "table": table, "revoke": True}))[
            "code"] == "not_authorized"
        revoked = await ann.request({"type": "invite", "table": table, "revoke": True})
        assert revoked["invite"]["code"] is None
        dan, = await guests(stack, app, "dan")
        assert (await refused(dan, {"type": "sit", "table": table, "invite": new}))[
            "code"] == "not_invited"


async def test_an_invite_expires(make_app):
    app = await make_app(invite_seconds=0.05)
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        table, code = await private_table(ann)
        await asyncio.sleep(0.2)  # past its life, whatever the machine's speed
        error = await refused(bob, {"type": "sit", "table": table, "invite": code})
        assert error["code"] == "not_invited" and "expired" in error["message"]
        fresh = (await ann.request({"type": "invite", "table": table}))["invite"]
        assert fresh["code"] not in (None, code)  # asked after it expired: a new one


async def test_the_opener_keeps_a_seat_for_a_friend_who_needs_no_code(app):
    async with AsyncExitStack() as stack:
        ann, bob, cat = await guests(stack, app, "ann", "bob", "cat")
        table, code = await private_table(ann)
        await ann.request({"type": "reserve", "table": table, "seat": 2, "name": "guest-cat"})
        error = await refused(bob, {"type": "sit", "table": table, "seat": 2, "invite": code})
        assert error["code"] == "seat_taken" and "guest-cat" in error["message"]
        assert (await bob.request({"type": "sit", "table": table, "invite": code}))[
            "seat"] == 1  # a free seat, not the kept one
        assert (await cat.request({"type": "sit", "table": table}))["seat"] == 2  # no code


async def test_only_the_opener_arranges_the_seats_and_only_before_a_game(app):
    async with AsyncExitStack() as stack:
        ann, bob, cat = await guests(stack, app, "ann", "bob", "cat")
        table, code = await private_table(ann)
        await bob.request({"type": "sit", "table": table, "invite": code})
        await cat.request({"type": "sit", "table": table, "invite": code})
        for request in ({"type": "reserve", "table": table, "seat": 3, "name": "x"},
                        {"type": "move_seat", "table": table, "seat": 2, "to": 3},
                        {"type": "remove_player", "table": table, "seat": 2}):
            assert (await refused(bob, request))["code"] == "not_authorized"
        await ann.request({"type": "fill_robots", "table": table})
        error = await refused(ann, {"type": "remove_player", "table": table, "seat": 1})
        assert error["code"] == "wrong_phase"


async def test_a_moved_player_learns_the_new_seat_and_keeps_playing_it(app):
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        table, code = await private_table(ann)
        await bob.request({"type": "sit", "table": table, "invite": code})  # seat 1
        await ann.request({"type": "move_seat", "table": table, "seat": 1, "to": 2})
        await bob.request({"type": "ping"})
        told = [m for m in bob.received if m.get("type") == "seated" and m["seat"] == 2]
        assert told and told[-1]["table"] == table
        async with TrickroomClient.connect(url(app)) as again:  # bob's seat, by its token
            await again.request({"type": "resume", "token": bob.session})
            snapshot = await again.request({"type": "rejoin", "table": table,
                                            "seat_token": told[-1]["seat_token"]})
            assert snapshot["info"]["seats"][2]["name"] == "guest-bob"


async def test_a_removed_player_hears_it_and_the_invite_lets_them_in_no_more(app):
    async with AsyncExitStack() as stack:
        ann, bob = await guests(stack, app, "ann", "bob")
        table, code = await private_table(ann)
        await bob.request({"type": "sit", "table": table, "invite": code})
        await ann.request({"type": "remove_player", "table": table, "seat": 1})
        await bob.request({"type": "ping"})
        assert any(m.get("type") == "event" and m["event"]["type"] == "removed"
                   for m in bob.received)
        for request in ({"type": "sit", "table": table, "invite": code},
                        {"type": "watch", "table": table, "invite": code}):
            error = await refused(bob, request)
            assert error["code"] == "not_invited" and "removed you" in error["message"]
        # Kept a seat again by the opener, they are welcome back.
        await ann.request({"type": "reserve", "table": table, "seat": 1, "name": "guest-bob"})
        assert (await bob.request({"type": "sit", "table": table}))["seat"] == 1


async def test_a_ranked_room_has_no_private_tables(make_app):
    app = await make_app()
    async with AsyncExitStack() as stack:
        ann, = await guests(stack, app, "ann")
        ranked = [r["name"] for r in (await ann.request({"type": "list_rooms"}))["rooms"]
                  if r["rated"]]
        error = await refused(ann, {"type": "create_table", "room": ranked[0],
                                    "private": True})
        assert error["code"] == "invalid_field" and "casual room" in error["message"]


async def test_a_public_table_has_no_invite(app):
    async with AsyncExitStack() as stack:
        ann, = await guests(stack, app, "ann")
        made = await ann.request({"type": "create_table", "room": "spades"})
        assert made["invite"] is None and made["table"]["private"] is False
        error = await refused(ann, {"type": "invite", "table": made["table"]["id"]})
        assert error["code"] == "invalid_field" and "not private" in error["message"]


async def test_a_private_game_stays_private_after_a_restart(db):
    """A restarted server (or a node taking the table over) resumes a private table's game
    private, with its invite and its opener, and lists it nowhere."""
    settings = {**FAST, "resume_grace_seconds": 60.0}
    app = App(load_config(**settings), db)
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            ann, = await guests(stack, app, "ann")
            table, code = await private_table(ann)
            await ann.request({"type": "fill_robots", "table": table})
            await wait_for(lambda: app.lobby.tables[table].machine.state.phase == "playing")
            renewed = (await ann.request({"type": "invite", "table": table, "renew": True}))
            code = renewed["invite"]["code"]  # renewed during the game: kept with it too
    finally:
        await app.stop()
    app = App(load_config(**settings), db)
    await app.start("127.0.0.1", 0)
    try:
        async with AsyncExitStack() as stack:
            assert app.lobby.tables[table].machine.state.phase == "playing"
            eve, bob = await guests(stack, app, "eve", "bob")
            assert (await refused(eve, {"type": "watch", "table": table}))["code"] == \
                "no_such_table"
            listed = await eve.request({"type": "list_tables", "room": "spades"})
            assert table not in {t["id"] for t in listed["tables"]}
            snapshot = await bob.request({"type": "watch", "table": table, "invite": code})
            assert snapshot["info"]["private"] is True
            assert app.lobby.tables[table].machine.creator == "guest-ann"
    finally:
        await app.stop()

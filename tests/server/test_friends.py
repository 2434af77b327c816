"""Follows and presence (issue 35, item 2): follow a player without their consent, two who
follow each other are friends; ``friends`` says where each is, and every change is pushed
(online, offline, at a table, a private table without its id); a player may hide."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from tests.server.conftest import FAST, next_pushed, url
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


async def registered(stack: AsyncExitStack, app: App, name: str) -> TrickroomClient:
    client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
    await client.request({"type": "register", "name": name, "password": f"{name}-secret"})
    return client


async def logged_in(stack: AsyncExitStack, app: App, name: str) -> TrickroomClient:
    client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
    await client.request({"type": "login", "name": name, "password": f"{name}-secret"})
    return client


async def pushed(client: TrickroomClient, name: str) -> dict[str, Any]:
    """The next ``presence`` of ``name`` pushed to the client."""
    return await next_pushed(client, "presence", lambda m: m["name"] == name)


def by_name(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in reply["players"]}


async def test_follows_are_one_way_and_mutual_follows_are_friends(app):
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        bob = await registered(stack, app, "bob")
        await registered(stack, app, "cat")
        await ann.request({"type": "follow", "name": "bob"})
        await ann.request({"type": "follow", "name": "CAT"})  # any case: the account's name
        await bob.request({"type": "follow", "name": "ann"})
        friends = by_name(await ann.request({"type": "friends"}))
        assert friends.keys() == {"bob", "cat"}
        assert friends["bob"]["mutual"] is True and friends["cat"]["mutual"] is False
        assert friends["bob"]["online"] is True and friends["bob"]["at"] is None
        await ann.request({"type": "follow", "name": "cat", "on": False})
        assert by_name(await ann.request({"type": "friends"})).keys() == {"bob"}


async def test_a_follow_is_refused_clearly(make_app):
    app = await make_app(follows_per_player=2, password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        for name in ("bob", "cat", "dan"):
            await registered(stack, app, name)
        guest = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await guest.request({"type": "guest"})
        assert (await refused(guest, {"type": "follow", "name": "ann"}))["code"] == \
            "not_authorized"
        assert (await refused(ann, {"type": "follow", "name": "nobody"}))["code"] == \
            "not_found"
        assert (await refused(ann, {"type": "follow", "name": "ann"}))["code"] == \
            "invalid_field"
        await ann.request({"type": "follow", "name": "bob"})
        await ann.request({"type": "follow", "name": "cat"})
        error = await refused(ann, {"type": "follow", "name": "dan"})
        assert error["code"] == "invalid_field" and "the most" in error["message"]


async def test_a_friend_s_every_move_is_pushed_as_it_happens(app):
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        bob_first = await registered(stack, app, "bob")
        await bob_first.ws.close()
        await ann.request({"type": "follow", "name": "bob"})
        assert by_name(await ann.request({"type": "friends"}))["bob"]["online"] is False
        bob = await logged_in(stack, app, "bob")
        assert (await pushed(ann, "bob"))["online"] is True
        table = (await bob.request({"type": "create_table", "room": "hearts"}))["table"]["id"]
        await bob.request({"type": "sit", "table": table})
        at = (await pushed(ann, "bob"))["at"]
        assert at == {"table": table, "room": "hearts", "game": "hearts", "private": False}
        await bob.request({"type": "stand", "table": table})
        assert (await pushed(ann, "bob"))["at"] is None
        await bob.ws.close()
        assert (await pushed(ann, "bob"))["online"] is False


async def test_a_friend_at_a_private_table_is_shown_there_without_its_id(app):
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        bob = await registered(stack, app, "bob")
        await ann.request({"type": "follow", "name": "bob"})
        await ann.request({"type": "friends"})
        made = await bob.request({"type": "create_table", "room": "spades", "private": True})
        table = made["table"]["id"]
        await bob.request({"type": "sit", "table": table})
        at = (await pushed(ann, "bob"))["at"]
        assert at == {"table": None, "room": "spades", "game": "spades", "private": True}
        assert not any(table in str(m) for m in ann.received)


async def test_a_player_who_hides_is_seen_offline(app):
    async with AsyncExitStack() as stack:
        ann = await registered(stack, app, "ann")
        bob = await registered(stack, app, "bob")
        await ann.request({"type": "follow", "name": "bob"})
        await ann.request({"type": "friends"})
        saved = await bob.request({"type": "settings", "hide_presence": True})
        assert saved["hide_presence"] is True and saved["rank_me"] is True
        assert (await pushed(ann, "bob"))["online"] is False
        assert by_name(await ann.request({"type": "friends"}))["bob"]["online"] is False
        again = await logged_in(stack, app, "bob")  # still hidden at the next login
        await again.request({"type": "ping"})
        assert by_name(await ann.request({"type": "friends"}))["bob"]["online"] is False
        await bob.request({"type": "settings", "hide_presence": False})
        assert (await pushed(ann, "bob"))["online"] is True


async def test_follows_are_kept_with_the_account(db):
    for attempt in range(2):
        app = App(load_config(**FAST), db)
        await app.start("127.0.0.1", 0)
        try:
            async with AsyncExitStack() as stack:
                if attempt == 0:
                    ann = await registered(stack, app, "ann")
                    await registered(stack, app, "bob")
                    await ann.request({"type": "follow", "name": "bob"})
                else:
                    ann = await logged_in(stack, app, "ann")
                    assert by_name(await ann.request({"type": "friends"})).keys() == {"bob"}
        finally:
            await app.stop()

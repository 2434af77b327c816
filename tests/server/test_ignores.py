"""Ignore lists kept with the account (issue 32, item E): a registered player's list
survives a restart of the server and stays within its bound; a guest's ends with its
connection (tests/server/hub/test_contract.py)."""

from __future__ import annotations

from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from tests.server.conftest import FAST, url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


@asynccontextmanager
async def server(db: str | Path, **settings: Any):
    """A server on ``db`` for the block: the same database again after it stops."""
    app = App(load_config(**{**FAST, "password_profile": "cheapest", **settings}), db)
    await app.start("127.0.0.1", 0)
    try:
        yield app
    finally:
        await app.stop()


def said(client: TrickroomClient, text: str) -> bool:
    return any(m.get("type") == "chat" and m["text"] == text for m in client.received)


async def test_a_registered_player_s_ignore_holds_after_a_restart(db):
    async with server(db) as app, TrickroomClient.connect(url(app)) as reader:
        await reader.request({"type": "register", "name": "reader", "password": "secret1"})
        await reader.request({"type": "ignore", "name": "guest-pest"})
    async with server(db) as app, AsyncExitStack() as stack:
        reader, pest, friend = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                                for _ in range(3)]
        await reader.request({"type": "login", "name": "reader", "password": "secret1"})
        await pest.request({"type": "guest", "name": "pest"})
        await friend.request({"type": "guest", "name": "friend"})
        for client in (reader, friend):
            await client.request({"type": "list_tables", "room": "spades"})
        await pest.request({"type": "chat", "room": "spades", "text": "buy my coins"})
        await friend.request({"type": "chat", "room": "spades", "text": "hello all"})
        await wait_for(lambda: said(reader, "hello all") and said(friend, "hello all"))
        assert not said(reader, "buy my coins")
        assert said(friend, "buy my coins")  # ignored by one player, not by the room


async def test_a_registered_player_s_ignore_list_stays_bounded_after_a_restart(db):
    async with server(db, ignores_per_player=3) as app, \
            TrickroomClient.connect(url(app)) as reader:
        await reader.request({"type": "register", "name": "reader", "password": "secret1"})
        for i in range(3):
            await reader.request({"type": "ignore", "name": f"guest-pest{i}"})
    async with server(db, ignores_per_player=3) as app, \
            TrickroomClient.connect(url(app)) as reader:
        await reader.request({"type": "login", "name": "reader", "password": "secret1"})
        error = await refused(reader, {"type": "ignore", "name": "guest-pest3"})
        assert error["code"] == "invalid_field" and "3" in error["message"]
        await reader.request({"type": "ignore", "name": "guest-pest0"})  # already: no change
        await reader.request({"type": "ignore", "name": "guest-pest0", "on": False})
        await reader.request({"type": "ignore", "name": "guest-pest3"})
        assert await app.store.ignores("reader") == ["guest-pest1", "guest-pest2",
                                                     "guest-pest3"]


async def test_a_guest_s_ignore_list_ends_when_its_connection_logs_in_as_someone_else(app):
    """Not only a closed connection: one that registers (or logs in) after playing as a
    guest leaves no guest's list behind it either."""
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest", "name": "visitor"})
        await client.request({"type": "ignore", "name": "guest-pest"})
        assert await app.hub.ignored_by("guest-pest") == {"guest-visitor"}
        await client.request({"type": "register", "name": "member", "password": "secret1"})
        assert await app.hub.ignored_by("guest-pest") == frozenset()

"""Registered sessions expire and can be revoked (issue 32, item D): a session idle past
``session_idle_seconds`` no longer resumes; ``logout`` ends this session, ``logout_all``
every session of the account, a password change (with the old password) every other
one; ``sessions`` lists the account's active sessions."""

from __future__ import annotations

import time

from tests.server.conftest import FAST, url
from tests.server.refusals import refused
from trickroom.server import auth
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config


async def registered(app, name="ann", password="secret-1") -> str:
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": name, "password": password})
        return client.session


async def logged_in(app, name="ann", password="secret-1") -> str:
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": name, "password": password})
        return client.session


async def resumes(app, token: str) -> bool:
    async with TrickroomClient.connect(url(app)) as client:
        try:
            await client.request({"type": "resume", "token": token})
        except Exception:
            return False
        return True


async def test_a_registered_session_idle_past_the_limit_no_longer_resumes(db):
    app = App(load_config(**FAST), db)
    await app.start("127.0.0.1", 0)
    try:
        token = await registered(app)
        fresh = await logged_in(app)
        assert await resumes(app, token)
        # Idle for 31 days (the default limit is 30): as if its last use were then.
        await app.store._write("UPDATE sessions SET last_used = ? WHERE name = ?",
                               (time.time() - 31 * 86400, "ann"))
        async with TrickroomClient.connect(url(app)) as client:
            error = await refused(client, {"type": "resume", "token": token})
            assert error["code"] == "not_authorized" and "expired" in error["message"]
        assert not await resumes(app, fresh)
    finally:
        await app.stop()


async def test_resuming_keeps_a_session_alive(make_app):
    app = await make_app()
    token = await registered(app)
    await app.store._write("UPDATE sessions SET last_used = ?", (time.time() - 29 * 86400,))
    assert await resumes(app, token)  # used now: another 30 days from here
    assert await resumes(app, token)


async def test_logout_ends_this_session_and_no_other(app):
    other = await registered(app)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": "ann", "password": "secret-1"})
        mine = client.session
        reply = await client.request({"type": "logout"})
        assert reply["type"] == "ok"
        error = await refused(client, {"type": "create_table", "room": "spades"})
        assert error["code"] == "not_authorized"
        assert (await refused(client, {"type": "logout"}))["code"] == "not_authorized"
    assert not await resumes(app, mine)
    assert await resumes(app, other)


async def test_logout_at_a_table_answers_then_closes_the_socket(app):
    await registered(app)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": "ann", "password": "secret-1"})
        table = (await client.request({"type": "create_table", "room": "spades"}))["table"]
        await client.request({"type": "sit", "table": table["id"], "seat": 0})
        assert (await client.request({"type": "logout"}))["type"] == "ok"
        await client.ws.wait_closed()
        assert "signed out" in client.ws.close_reason
        assert not await resumes(app, client.session)


async def test_logout_closes_the_other_sockets_of_the_same_session(app):
    token = await registered(app)
    async with TrickroomClient.connect(url(app)) as one, \
            TrickroomClient.connect(url(app)) as two, \
            TrickroomClient.connect(url(app)) as other:
        await one.request({"type": "resume", "token": token})
        await two.request({"type": "resume", "token": token})
        await other.request({"type": "login", "name": "ann", "password": "secret-1"})
        await one.request({"type": "logout"})
        await two.ws.wait_closed()
        assert "signed out" in two.ws.close_reason
        await other.request({"type": "create_table", "room": "spades"})  # another session


async def test_sign_out_everywhere_ends_every_session_and_its_sockets(app):
    first = await registered(app)
    async with TrickroomClient.connect(url(app)) as phone, \
            TrickroomClient.connect(url(app)) as laptop:
        await phone.request({"type": "resume", "token": first})
        await laptop.request({"type": "login", "name": "ann", "password": "secret-1"})
        second = laptop.session
        reply = await laptop.request({"type": "logout_all"})
        assert reply["type"] == "signed_out" and reply["sessions"] == 2
        error = await refused(laptop, {"type": "create_table", "room": "spades"})
        assert error["code"] == "not_authorized"  # this socket speaks for no one now
        await phone.ws.wait_closed()  # and the other one is closed, saying why
        assert phone.ws.close_code == 1008 and "signed out" in phone.ws.close_reason
    assert not await resumes(app, first) and not await resumes(app, second)
    assert await logged_in(app)  # the password still logs in


async def test_a_password_change_needs_the_old_password_and_ends_the_other_sessions(app):
    other = await registered(app)
    async with TrickroomClient.connect(url(app)) as client, \
            TrickroomClient.connect(url(app)) as thief:
        await thief.request({"type": "resume", "token": other})
        await client.request({"type": "login", "name": "ann", "password": "secret-1"})
        mine = client.session
        change = {"type": "change_password", "old_password": "guess-it",
                  "new_password": "secret-2"}
        assert (await refused(client, change))["code"] == "bad_credentials"
        short = {**change, "old_password": "secret-1", "new_password": "short"}
        assert (await refused(client, short))["code"] == "invalid_field"
        reply = await client.request({**change, "old_password": "secret-1"})
        assert reply["type"] == "signed_out" and reply["sessions"] == 1
        await thief.ws.wait_closed()
        assert "signed out" in thief.ws.close_reason
        await client.request({"type": "create_table", "room": "spades"})  # still ann
    assert not await resumes(app, other)
    assert await resumes(app, mine)
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "login", "name": "ann", "password": "secret-1"})
        assert error["code"] == "bad_credentials"
        await client.request({"type": "login", "name": "ann", "password": "secret-2"})


async def test_guests_have_no_password_to_change_and_no_sessions_to_list(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for message in ({"type": "change_password", "old_password": "x",
                         "new_password": "secret-2"}, {"type": "sessions"},
                        {"type": "logout_all"}):
            assert (await refused(client, message))["code"] == "not_authorized"


async def test_sessions_lists_the_account_s_active_sessions(app):
    before = time.time()
    old = await registered(app)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": "ann", "password": "secret-1"})
        reply = await client.request({"type": "sessions"})
        listed = reply["sessions"]
        assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
        for s in listed:
            assert before <= s["created"] <= s["last_used"] <= time.time()
            assert s["address"] == "127.0.0.1"
        async with TrickroomClient.connect(url(app)) as other:
            await other.request({"type": "resume", "token": old})
            await other.request({"type": "logout"})
        listed = (await client.request({"type": "sessions"}))["sessions"]
        assert len(listed) == 1 and listed[0]["current"]


async def test_sessions_that_can_no_longer_resume_are_forgotten(make_app):
    app = await make_app()
    old, kept = await registered(app), await logged_in(app)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        guest = client.session
    await app.store._write("UPDATE sessions SET last_used = ?, created = ? WHERE guest = 1 "
                           "OR token_hash = ?", (time.time() - 31 * 86400,
                                                 time.time() - 31 * 86400,
                                                 auth.token_hash(old)))
    assert await app.retention.forget_sessions() == 2
    assert await app.store.session(auth.token_hash(old)) is None
    assert await app.store.session(auth.token_hash(guest)) is None
    assert await resumes(app, kept)

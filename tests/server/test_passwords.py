"""Passwords over the live socket: an old scrypt hash still logs in and is upgraded to
Argon2id, and hashing waits in a bounded queue (issue 13)."""

from __future__ import annotations

import asyncio
import hashlib
from contextlib import AsyncExitStack

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import ServerError, TrickroomClient


async def test_an_old_scrypt_password_still_logs_in_and_is_upgraded_to_argon2(app):
    salt = bytes(range(16))
    digest = hashlib.scrypt(b"old-secret", salt=salt, n=2**14, r=8, p=1, dklen=32)
    await app.store.create_user("olga", f"scrypt${2**14}$8$1${salt.hex()}${digest.hex()}")
    async with TrickroomClient.connect(url(app)) as client:
        await refused(client, {"type": "login", "name": "olga", "password": "wrong-one"})
        welcome = await client.request({"type": "login", "name": "olga",
                                        "password": "old-secret"})
        assert welcome["name"] == "olga"
    _, stored = await app.store.user_hash("olga")
    assert stored.startswith("$argon2id$")
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": "olga", "password": "old-secret"})


async def test_password_hashing_waits_in_a_bounded_queue(make_app):
    app = await make_app(password_queue=1)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        replies = await asyncio.gather(
            *(c.request({"type": "register", "name": f"q{i}", "password": "long-enough"})
              for i, c in enumerate(clients)), return_exceptions=True)
    busy = [r for r in replies if isinstance(r, ServerError)]
    assert busy and all(r.code == "rate_limited" and "busy" in str(r) for r in busy)
    assert any(isinstance(r, dict) and r["type"] == "welcome" for r in replies)

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


async def test_a_password_registered_in_nfc_logs_in_typed_in_nfd(app):
    """One password, however the keyboard composes it (issue 32, item 5): "é" typed as one
    character (NFC) or as "e" and a combining acute (NFD) is the same password."""
    nfc, nfd = "caf\u00e9-\u00c5ngstr\u00f6m", "cafe\u0301-A\u030angstro\u0308m"
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "zoe", "password": nfc})
    async with TrickroomClient.connect(url(app)) as client:
        welcome = await client.request({"type": "login", "name": "zoe", "password": nfd})
        assert welcome["name"] == "zoe"
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "yan", "password": nfd})
    async with TrickroomClient.connect(url(app)) as client:
        welcome = await client.request({"type": "login", "name": "yan", "password": nfc})
        assert welcome["name"] == "yan"
        await refused(client, {"type": "login", "name": "yan", "password": "cafe-Angstrom"})


async def test_an_account_hashed_before_normalisation_logs_in_either_way(app):
    """A hash made of the password as typed (NFD, before passwords were normalised) still
    matches it, and is made again of the normalised form: NFC then logs in too."""
    nfd = "cre\u0300me bru\u0302le\u0301e"
    await app.store.create_user("old", app.accounts.passwords.ph.hash(nfd))
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "login", "name": "old", "password": nfd})
    async with TrickroomClient.connect(url(app)) as client:
        welcome = await client.request({"type": "login", "name": "old",
                                        "password": "cr\u00e8me br\u00fbl\u00e9e"})
        assert welcome["name"] == "old"


async def test_the_password_thread_goes_to_the_addresses_waiting_in_turn():
    """A fair queue (issue 32, item 3): with one address's hashes waiting, another's
    waits for one of them, not for all of them."""
    import threading

    from trickroom.server.passwords import Passwords

    passwords = Passwords("cheapest", workers=1, queue=16, per_address=8)
    gate, order = threading.Event(), []

    def work(tag: str) -> str:
        gate.wait()
        order.append(tag)
        return tag

    jobs = []
    for who, tag in (("flood", "f1"), ("flood", "f2"), ("flood", "f3"), ("flood", "f4"),
                     ("other", "o1"), ("flood", "f5")):
        jobs.append(asyncio.create_task(passwords._run(who, work, tag)))
        await asyncio.sleep(0)  # each takes its place in line before the next comes
    gate.set()
    await asyncio.gather(*jobs)
    passwords.close()
    assert order == ["f1", "f2", "o1", "f3", "f4", "f5"]
    assert passwords.pending == 0 and not passwords.pending_by


async def test_one_address_never_holds_every_password_thread():
    """With two threads, a flood of one address's checks holds one of them: another
    address's login starts at once, not after one of the flood's (issue 32, item 3: others'
    logins during a flood)."""
    import threading

    from trickroom.server.passwords import Passwords

    passwords = Passwords("cheapest", workers=2, queue=16, per_address=8)
    gate, started = threading.Event(), []

    def work(tag: str) -> str:
        started.append(tag)
        gate.wait()
        return tag

    jobs = []
    for who, tag in (("flood", "f1"), ("flood", "f2"), ("flood", "f3"), ("other", "o1")):
        jobs.append(asyncio.create_task(passwords._run(who, work, tag)))
        await asyncio.sleep(0)
    async with asyncio.timeout(10):
        while len(started) < 2:
            await asyncio.sleep(0.01)
    assert sorted(started) == ["f1", "o1"]  # the flood's others wait for its one thread
    gate.set()
    assert sorted(await asyncio.gather(*jobs)) == ["f1", "f2", "f3", "o1"]
    passwords.close()
    assert passwords._running == 0 and not passwords._holding


async def test_a_flooding_address_s_hashes_yield_the_processor_to_others():
    """An address with many hashes in the last seconds has its next ones checked at the
    lowest priority, so that on a small machine another address's login, and the tables,
    go first (issue 32: another address's logins during a flood of good logins). A player
    logging in once or twice is never slowed so."""
    import os
    import threading

    from trickroom.server.passwords import Passwords

    passwords = Passwords("cheapest", workers=2, queue=16, per_address=8)

    def priority() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    base = os.getpriority(os.PRIO_PROCESS, 0)
    flood = [await passwords._run("flood", priority) for _ in range(8)]
    other = [await passwords._run("other", priority) for _ in range(2)]
    passwords.close()
    assert flood[:4] == [base] * 4  # a few logins: as any other
    assert all(p > base for p in flood[5:])  # a flood: below everyone else
    assert other == [base, base]  # another address, meanwhile: unaffected


def test_a_login_for_a_name_nobody_has_costs_a_hash_of_the_servers_own_profile():
    """An unknown name is checked against a decoy, so that it takes as long as a real login
    and does not tell which names exist. The decoy is made once a process, for each
    profile: servers of other profiles in one process each get one of their own cost."""
    from trickroom.server.passwords import Passwords, hasher

    made = []
    for profile in ("cheapest", "owasp", "cheapest"):
        passwords = Passwords(profile)
        try:
            assert not hasher(profile).check_needs_rehash(passwords._decoy), profile
            made.append(passwords._decoy)
        finally:
            passwords.close()
    assert made[0] != made[1] and made[0] == made[2]

"""Logins under attack, over the live socket from loopback addresses standing for
different clients (issue 32, items 1-4): a stranger's guesses never keep the owner's known
device out, a password sprayed over many accounts is checked a few times only, the
failures of everyone together have a budget, an address makes a bounded number of
accounts, and a flood of password checks from one address leaves room for the others."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import ServerError, TrickroomClient


def at(app, address: str) -> TrickroomClient:
    """A client whose socket comes from ``address`` (127.0.0.x: another client)."""
    return TrickroomClient.connect(url(app), local_addr=(address, 0))


async def accounts(app, names: list[str], password: str = "own-password") -> None:
    """Accounts made straight in the store (registration has limits of its own)."""
    stored = app.passwords.ph.hash(password)
    for name in names:
        await app.store.create_user(name, stored)


async def test_a_stranger_s_guesses_never_keep_the_owner_s_device_out(app):
    async with at(app, "127.0.0.1") as owner:
        welcome = await owner.request({"type": "register", "name": "bob",
                                       "password": "right-one"})
    device = welcome["device"]
    assert device
    async with at(app, "127.0.0.2") as stranger:
        codes = [(await refused(stranger, {"type": "login", "name": "bob",
                                           "password": f"guess{i}"}))["code"]
                 for i in range(10)]
        assert codes[-1] == "rate_limited"
        # A device token of another account is no key to this one.
        mine = (await stranger.request({"type": "register", "name": "eve",
                                        "password": "eve-password"}))["device"]
        error = await refused(stranger, {"type": "login", "name": "bob",
                                         "password": "right-one", "device": mine})
        assert error["code"] == "rate_limited"
    async with at(app, "127.0.0.1") as owner:
        # Without the device, the account is locked as OWASP's lockout has it...
        error = await refused(owner, {"type": "login", "name": "bob", "password": "right-one"})
        assert error["code"] == "rate_limited"
        # ...with it, the owner is in, and keeps the same device token.
        welcome = await owner.request({"type": "login", "name": "bob", "password": "right-one",
                                       "device": device})
        assert welcome["name"] == "bob" and welcome["device"] == device


async def test_a_stranger_s_guesses_never_keep_a_signed_in_owner_from_changing_the_password(app):
    async with at(app, "127.0.0.1") as owner:
        await owner.request({"type": "register", "name": "bob", "password": "right-one"})
        async with at(app, "127.0.0.2") as stranger:
            for i in range(10):
                await refused(stranger, {"type": "login", "name": "bob",
                                         "password": f"guess{i}"})
        change = {"type": "change_password", "old_password": "right-one",
                  "new_password": "better-one"}
        assert (await owner.request(change))["type"] == "signed_out"
        # The session's own wrong guesses meet a back-off of their own.
        codes = [(await refused(owner, {**change, "old_password": f"guess{i}"}))["code"]
                 for i in range(8)]
        assert codes[:5] == ["bad_credentials"] * 5 and codes[-1] == "rate_limited"


async def test_a_known_device_has_a_back_off_of_its_own(app):
    async with at(app, "127.0.0.1") as owner:
        device = (await owner.request({"type": "register", "name": "bob",
                                       "password": "right-one"}))["device"]
    async with at(app, "127.0.0.1") as thief:  # the device token alone is not enough
        codes = [(await refused(thief, {"type": "login", "name": "bob", "device": device,
                                        "password": f"guess{i}"}))["code"]
                 for i in range(10)]
    assert codes[:5] == ["bad_credentials"] * 5 and codes[-1] == "rate_limited"


async def test_a_password_sprayed_over_forty_accounts_is_checked_a_few_times(app):
    names = [f"player{i}" for i in range(40)]
    await accounts(app, names)
    await accounts(app, ["player40"], "123456")  # the one with the sprayed password
    names.insert(30, "player40")
    checked = app.passwords.checked
    replies = []
    async with at(app, "127.0.0.2") as one, at(app, "127.0.0.3") as two:
        for i, name in enumerate(names):
            client = (one, two)[i % 2]
            try:
                replies.append(await client.request({"type": "login", "name": name,
                                                     "password": "123456"}))
            except ServerError as exc:
                replies.append(exc.reply)
    assert app.passwords.checked - checked <= 10
    assert not [r for r in replies if r["type"] == "welcome"]  # no account broken
    assert {r["code"] for r in replies[10:]} == {"rate_limited"}


async def test_everyone_s_failures_together_have_a_budget(make_app):
    app = await make_app(login_failure_burst=6, login_failures_per_second=0.001)
    await accounts(app, [f"p{i}" for i in range(12)])
    async with at(app, "127.0.0.1") as owner:
        device = (await owner.request({"type": "login", "name": "p0",
                                       "password": "own-password"}))["device"]
    codes = []
    for i in range(1, 12):  # each from its own address, its own account, its own guess
        async with at(app, f"127.0.0.{i + 10}") as client:
            codes.append((await refused(client, {"type": "login", "name": f"p{i}",
                                                 "password": f"guess-{i}"}))["code"])
    assert codes[:6] == ["bad_credentials"] * 6 and set(codes[6:]) == {"rate_limited"}
    async with at(app, "127.0.0.9") as stranger:
        error = await refused(stranger, {"type": "login", "name": "p0",
                                         "password": "own-password"})
        assert error["code"] == "rate_limited" and "failed logins" in error["message"]
    async with at(app, "127.0.0.1") as owner:  # a known device passes
        await owner.request({"type": "login", "name": "p0", "password": "own-password",
                             "device": device})


async def test_one_address_makes_a_bounded_number_of_accounts(make_app):
    app = await make_app(registrations_per_hour_per_address=3)
    replies = []
    for i in range(5):
        async with at(app, "127.0.0.2") as client:
            try:
                replies.append(await client.request({"type": "register", "name": f"new{i}",
                                                     "password": "long-enough"}))
            except ServerError as exc:
                replies.append(exc.reply)
    assert [r["type"] for r in replies] == ["welcome"] * 3 + ["error"] * 2
    assert all(r["code"] == "rate_limited" and r["retry_after"] > 0 for r in replies[3:])
    assert "accounts" in replies[3]["message"]
    async with at(app, "127.0.0.3") as other:  # another address is not held by it
        await other.request({"type": "register", "name": "other", "password": "long-enough"})


async def test_a_registration_refused_for_other_reasons_does_not_count(make_app):
    """The limit counts accounts made: one refused while the address's passwords are
    being checked, or for a taken name, leaves its place for another."""
    app = await make_app(registrations_per_hour_per_address=3, password_queue_per_address=1)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(at(app, "127.0.0.2")) for _ in range(6)]
        burst = await asyncio.gather(
            *(c.request({"type": "register", "name": f"burst{i}", "password": "long-enough"})
              for i, c in enumerate(clients)), return_exceptions=True)
    made = sum(isinstance(r, dict) for r in burst)
    assert made < 3  # the others were refused: the address had a password being checked
    for i in range(3 - made):
        async with at(app, "127.0.0.2") as client:
            await client.request({"type": "register", "name": f"later{i}",
                                  "password": "long-enough"})
            taken = await refused(client, {"type": "register", "name": f"later{i}",
                                           "password": "long-enough"})
            assert taken["code"] == "name_taken"  # at no cost, and not counted
    async with at(app, "127.0.0.2") as client:
        error = await refused(client, {"type": "register", "name": "one-more",
                                       "password": "long-enough"})
        assert error["code"] == "rate_limited" and "accounts" in error["message"]


async def test_an_address_has_a_budget_of_password_checks(make_app):
    """Good passwords or not, an address's logins are hashed up to a budget; past it they
    are refused unhashed (issue 32, item 3: a flood of good logins cost every other
    player's login), and another address's are not held by it."""
    app = await make_app(password_check_burst_per_address=3,
                         password_checks_per_second_per_address=0.001)
    await accounts(app, ["mine", "yours"])
    login = {"type": "login", "name": "mine", "password": "own-password"}
    async with at(app, "127.0.0.2") as client:
        for _ in range(3):
            await client.request(login)
        checked = app.passwords.checked
        error = await refused(client, login)
        assert error["code"] == "rate_limited" and "passwords checked" in error["message"]
        assert error["retry_after"] > 0
    async with at(app, "127.0.0.2") as client:  # a new socket is no way around it
        assert (await refused(client, login))["code"] == "rate_limited"
    assert app.passwords.checked == checked  # refused unhashed
    async with at(app, "127.0.0.3") as other:
        await other.request({**login, "name": "yours"})



async def test_a_known_device_is_not_held_by_its_address_s_spent_budget(make_app):
    app = await make_app(password_check_burst_per_address=3,
                         password_checks_per_second_per_address=0.001)
    await accounts(app, ["owner", "stranger"])
    async with at(app, "127.0.0.2") as owner:
        device = (await owner.request({"type": "login", "name": "owner",
                                       "password": "own-password"}))["device"]
    async with at(app, "127.0.0.2") as stranger:  # behind the same address
        login = {"type": "login", "name": "stranger", "password": "own-password"}
        for _ in range(2):
            await stranger.request(login)
        assert (await refused(stranger, login))["code"] == "rate_limited"
    async with at(app, "127.0.0.2") as owner:
        await owner.request({"type": "login", "name": "owner", "password": "own-password",
                             "device": device})


async def flood(app, address: str, stop: asyncio.Event) -> int:
    """Log in again and again with the right password from ``address``, eight at a
    time, until ``stop``: how many were answered."""
    answered = 0
    async with AsyncExitStack() as stack:
        while not stop.is_set():
            clients = [await stack.enter_async_context(at(app, address)) for _ in range(8)]
            for _ in range(5):  # logins_per_connection
                replies = await asyncio.gather(
                    *(c.request({"type": "login", "name": "flooder", "password": "own-password"})
                      for c in clients), return_exceptions=True)
                answered += len(replies)
            for client in clients:
                await client.ws.close()
            await stack.aclose()
    return answered


async def test_another_address_s_logins_are_answered_during_a_flood(app):
    await accounts(app, ["flooder", "victim"])
    stop = asyncio.Event()
    flooding = asyncio.create_task(flood(app, "127.0.0.2", stop))
    replies = []
    try:
        while app.passwords.pending < 2:  # the flood is on
            await asyncio.sleep(0.001)
        for _ in range(20):
            async with at(app, "127.0.0.3") as victim:
                try:
                    replies.append(await victim.request({"type": "login", "name": "victim",
                                                         "password": "own-password"}))
                except ServerError as exc:
                    replies.append(exc.reply)
    finally:
        stop.set()
        assert await flooding > 0
    assert [r["type"] for r in replies] == ["welcome"] * 20, replies

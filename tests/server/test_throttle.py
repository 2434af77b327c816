"""The login back-off: as a pure function of failures and time, and over the live socket,
where a flood of wrong passwords meets it unchecked (issue 13)."""

from __future__ import annotations

import asyncio

from tests.server.conftest import url
from tests.server.refusals import refused
from trickroom.server.client import TrickroomClient
from trickroom.server.throttle import Backoff


def test_a_few_failures_are_free_then_each_waits_twice_as_long_up_to_the_cap():
    b = Backoff(free=3, base=1.0, cap=5.0)
    for _ in range(2):
        b.failed("bob", 0.0)
    assert b.wait("bob", 0.0) == 0
    b.failed("bob", 0.0)  # the third: the wait starts
    assert b.wait("bob", 0.0) == 1.0
    b.failed("bob", 1.0)
    assert b.wait("bob", 1.0) == 2.0
    b.failed("bob", 3.0)
    b.failed("bob", 7.0)
    assert b.wait("bob", 7.0) == 5.0  # 8 s, capped
    assert b.wait("ann", 7.0) == 0


def test_a_success_clears_the_count_and_old_failures_are_forgotten():
    b = Backoff(free=1, base=1.0, window=60.0)
    b.failed("bob", 0.0)
    b.succeeded("bob")
    assert b.wait("bob", 0.0) == 0
    b.failed("ann", 0.0)
    assert b.wait("ann", 0.5) == 0.5
    b.failed("ann", 100.0)  # the first was over a minute ago: a fresh count
    assert b.wait("ann", 100.0) == 1.0


def test_a_flood_of_names_keeps_the_table_bounded():
    b = Backoff(free=1, max_keys=100)
    for i in range(1000):
        b.failed(f"user{i}", float(i))
    assert len(b) == 100 and b.wait("user999", 999.0) > 0


async def test_wrong_passwords_meet_a_back_off_and_are_not_checked_meanwhile(app):
    async with TrickroomClient.connect(url(app)) as owner, \
            TrickroomClient.connect(url(app)) as guesser:
        await owner.request({"type": "register", "name": "bob", "password": "right-one"})
        checked = app.passwords.checked
        codes = []
        for i in range(60):
            codes.append((await refused(guesser, {"type": "login", "name": "bob",
                                                  "password": f"guess{i}"}))["code"])
        # Five typos are free; then the account waits, and guesses are refused unchecked.
        assert codes[:5] == ["bad_credentials"] * 5
        assert set(codes[5:]) == {"rate_limited"}
        assert app.passwords.checked - checked <= 6
        error = await refused(guesser, {"type": "login", "name": "bob", "password": "right-one"})
        assert error["code"] == "rate_limited" and error["retry_after"] > 0
        assert "try again in" in error["message"]


async def test_guessing_many_accounts_from_one_address_is_throttled_too(app):
    async with TrickroomClient.connect(url(app)) as guesser:
        codes = [(await refused(guesser, {"type": "login", "name": f"user{i}",
                                          "password": f"guess-{i}"}))["code"]
                 for i in range(25)]
    assert codes[:20] == ["bad_credentials"] * 20 and codes[20:] == ["rate_limited"] * 5


async def test_a_good_login_clears_the_account_s_failures(make_app):
    app = await make_app(login_backoff_seconds=0.05)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "cat", "password": "meow-meow"})
        for _ in range(5):
            await refused(client, {"type": "login", "name": "cat", "password": "woof-woof"})
        await asyncio.sleep(0.1)
        await client.request({"type": "login", "name": "cat", "password": "meow-meow"})
        assert app.hub.logins.account.wait("cat", 0.0) == 0  # forgotten, not just expired

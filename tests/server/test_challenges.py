"""Challenges (issue 35, item 3): ask named players for a game with given seats and rules;
all accept and a private table is open with each seat kept for its player and robots in
the rest; a decline (with its reason) or the clock ends it; blocked players, guests and
floods are refused, typed, over the live socket."""

from __future__ import annotations

from contextlib import AsyncExitStack

from tests.server.conftest import next_pushed, url, wait_for
from tests.server.refusals import refused
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient


async def registered(stack: AsyncExitStack, app: App, name: str,
                     address: str = "127.0.0.1") -> TrickroomClient:
    client = await stack.enter_async_context(
        TrickroomClient.connect(url(app), local_addr=(address, 0)))
    await client.request({"type": "register", "name": name, "password": f"{name}-secret"})
    return client


async def test_an_accepted_challenge_opens_a_private_table_with_the_seats_asked(app):
    async with AsyncExitStack() as stack:
        ann, bob = await registered(stack, app, "ann"), await registered(stack, app, "bob")
        sent = await ann.request({"type": "challenge", "room": "spades",
                                  "seats": ["ann", None, "bob", None],
                                  "rules": {"target": 300}})
        challenge = sent["challenge"]
        assert challenge["by"] == "ann" and challenge["rules"]["target"] == 300
        got = (await next_pushed(bob, "challenged"))["challenge"]
        assert got["id"] == challenge["id"] and got["seats"] == ["ann", None, "bob", None]
        await bob.request({"type": "answer_challenge", "challenge": got["id"], "accept": True})
        for client in (ann, bob):
            over = await next_pushed(client, "challenge_over")
            assert over["outcome"] == "accepted"
        table = over["table"]
        machine = app.lobby.tables[table].machine
        assert machine.state.private is not None and machine.creator == "ann"
        assert [s.kind for s in machine.state.seats] == ["empty", "robot", "empty", "robot"]
        assert (await bob.request({"type": "sit", "table": table}))["seat"] == 2  # no code
        await ann.request({"type": "sit", "table": table})
        await wait_for(lambda: machine.state.phase == "playing")
        assert machine.rules.target == 300


async def test_a_decline_says_who_and_why_and_ends_it_for_everyone(app):
    async with AsyncExitStack() as stack:
        ann, bob, cat = [await registered(stack, app, n) for n in ("ann", "bob", "cat")]
        sent = await ann.request({"type": "challenge", "room": "hearts",
                                  "seats": ["ann", "bob", "cat", None]})
        cid = sent["challenge"]["id"]
        await bob.request({"type": "answer_challenge", "challenge": cid, "accept": True})
        await cat.request({"type": "answer_challenge", "challenge": cid, "accept": False,
                           "reason": "later"})
        for client in (ann, bob, cat):
            over = await next_pushed(client, "challenge_over")
            assert (over["outcome"], over["by"], over["reason"]) == ("declined", "cat", "later")
        error = await refused(bob, {"type": "answer_challenge", "challenge": cid,
                                    "accept": True})
        assert error["code"] == "not_found"


async def test_a_challenge_nobody_answers_expires(make_app):
    app = await make_app(challenge_seconds=0.1, password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann, bob = await registered(stack, app, "ann"), await registered(stack, app, "bob")
        sent = await ann.request({"type": "challenge", "room": "spades",
                                  "seats": ["ann", "bob", None, None]})
        assert (await next_pushed(ann, "challenge_over"))["outcome"] == "expired"
        assert (await next_pushed(bob, "challenge_over"))["outcome"] == "expired"
        error = await refused(bob, {"type": "answer_challenge",
                                    "challenge": sent["challenge"]["id"], "accept": True})
        assert error["code"] == "not_found"


async def test_challenges_are_refused_clearly(make_app):
    app = await make_app(challenges_per_minute=0.01, challenge_burst=4,
                         password_profile="cheapest")
    async with AsyncExitStack() as stack:
        ann, bob, _cat = [await registered(stack, app, n) for n in ("ann", "bob", "cat")]
        guest = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await guest.request({"type": "guest"})
        ranked = next(r["name"] for r in (await ann.request({"type": "list_rooms"}))["rooms"]
                  if r["rated"])
        cases = [
            (guest, {"room": "spades", "seats": ["guest", "bob", None, None]},
             "not_authorized"),
            (ann, {"room": "spades", "seats": ["bob", "cat", None, None]}, "invalid_field"),
            (ann, {"room": "spades", "seats": ["ann", None, None, None]}, "invalid_field"),
            (ann, {"room": "spades", "seats": ["ann", "ann", None, None]}, "invalid_field"),
            (ann, {"room": ranked, "seats": ["ann", "bob", None, None]}, "invalid_field"),
            (ann, {"room": "spades", "seats": ["ann", "nobody", None, None]}, "not_found"),
            (ann, {"room": "spades", "seats": ["ann", "bob", None, None],
                   "rules": {"target": 10**9}}, "invalid_field"),
        ]
        for client, fields, code in cases:
            error = await refused(client, {"type": "challenge", **fields})
            assert error["code"] == code, (fields, error)
        # A player who blocks (ignores) another gets no challenge from them.
        await bob.request({"type": "ignore", "name": "ann"})
        error = await refused(ann, {"type": "challenge", "room": "spades",
                                    "seats": ["ann", "bob", None, None]})
        assert error["code"] == "not_authorized"
        assert not any(m.get("type") == "challenged" for m in bob.received)
        # Only a player challenged answers it; and challenges are few a minute (the two
        # refused after the rate was checked counted: a flood of them costs its credit).
        sent = await ann.request({"type": "challenge", "room": "spades",
                                  "seats": ["ann", "cat", None, None]})
        error = await refused(bob, {"type": "answer_challenge",
                                    "challenge": sent["challenge"]["id"], "accept": True})
        assert error["code"] == "not_authorized"
        await ann.request({"type": "challenge", "room": "spades",
                           "seats": ["ann", "cat", None, None]})
        error = await refused(ann, {"type": "challenge", "room": "spades",
                                    "seats": ["ann", "cat", None, None]})
        assert error["code"] == "rate_limited" and error["retry_after"] > 0

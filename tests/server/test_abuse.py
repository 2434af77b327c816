"""Attacks on accounts, seats and the room, each sent over the live socket as an attacker
would (issue 13): each is refused with a typed error that echoes the request's id, and
nothing changes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from contextlib import AsyncExitStack
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import http_get, play_until_over, url, wait_for
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.tables.commands import WindowOver


async def refused(client: TrickroomClient, message: dict[str, Any]) -> dict[str, Any]:
    """Send a request that must be refused; return the error, checking it echoes the id."""
    with pytest.raises(ServerError) as err:
        await client.request(message)
    reply = err.value.reply
    assert reply["id"] is not None, reply  # the request had one: the error carries it
    return reply


# -- 1. passwords: a flood is throttled, checked off the loop; old hashes still work ----------

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
                                          "password": "123456"}))["code"] for i in range(25)]
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


async def test_one_connection_may_not_churn_through_guest_sessions(app):
    async with TrickroomClient.connect(url(app)) as client:
        for _ in range(5):
            await client.request({"type": "guest"})
        error = await refused(client, {"type": "guest"})
        assert error["code"] == "rate_limited"
    await wait_for(lambda: not app.guests.per_address)  # closed: every name it held goes


async def test_one_address_holds_a_bounded_number_of_guests(make_app):
    app = await make_app(guests_per_address=3)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        for client in clients[:3]:
            await client.request({"type": "guest"})
        assert (await refused(clients[3], {"type": "guest"}))["code"] == "rate_limited"
        await clients[0].ws.close()
        await wait_for(lambda: app.guests.per_address["127.0.0.1"] == 2)
        await clients[3].request({"type": "guest"})


# -- 2. a ranked room's rules are its host's --------------------------------------------------

async def test_a_client_s_rules_in_a_ranked_room_are_refused(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "ann", "password": "secret-ann"})
        error = await refused(client, {"type": "create_table", "room": "spades-zone",
                                       "rules": {"target": 1, "mercy": 1}})
        assert error["code"] == "invalid_field" and "host's rules" in error["message"]
        assert app.lobby.tables == {}
        created = await client.request({"type": "create_table", "room": "spades-zone"})
        table = app.lobby.tables[created["table"]["id"]].machine
        assert table.rules.target == app.config.rooms["spades-zone"].make_rules().target


@pytest.mark.parametrize(("room", "rules", "field"), [
    ("spades", {"target": 1e12}, "target"),
    ("spades", {"target": 10**12}, "target"),
    ("spades", {"nil_value": 1e18}, "nil_value"),
    ("spades", {"bag_limit": -3}, "bag_limit"),
    ("spades", {"blind_nil": 1}, "blind_nil"),
    ("hearts", {"pass_count": 13}, "pass_count"),
    ("hearts", {"pass_cycle": ["left"] * 100}, "pass_cycle"),
    ("hearts", {"jack_value": "ten"}, "jack_value"),
])
async def test_rule_values_outside_their_bounds_are_refused_naming_the_rule(app, room, rules,
                                                                            field):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        error = await refused(client, {"type": "create_table", "room": room, "rules": rules})
        assert error["code"] == "invalid_field" and field in error["message"]
    assert app.lobby.tables == {}


# -- 3 and 6. one account holds one seat; a casual game counts once, and not alone -------------

async def test_one_account_on_four_sockets_gets_one_seat(app):
    async with AsyncExitStack() as stack:
        sockets = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(4)]
        await sockets[0].request({"type": "register", "name": "farmer", "password": "farm-farm"})
        for s in sockets[1:]:
            await s.request({"type": "login", "name": "farmer", "password": "farm-farm"})
        created = await sockets[0].request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        await sockets[0].request({"type": "sit", "table": table_id, "seat": 0})
        for i, s in enumerate(sockets[1:], 1):
            error = await refused(s, {"type": "sit", "table": table_id, "seat": i})
            assert error["code"] == "seat_taken" and "rejoin" in error["message"]
        seats = app.lobby.tables[table_id].machine.state.seats
        assert [s.kind for s in seats] == ["human", "empty", "empty", "empty"]


async def test_one_account_with_robots_earns_no_casual_games(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "solo", "password": "solo-solo"})
        created = await client.request({"type": "create_table", "room": "spades",
                                        "rules": {"target": 100, "mercy": 100}})
        table_id = created["table"]["id"]
        await client.request({"type": "sit", "table": table_id, "seat": 0})
        await client.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await play_until_over(client, table_id, random.Random(1))
    await wait_for(lambda: app.lobby.tables.get(table_id) is None
                   or app.lobby.tables[table_id].machine.state.phase in ("over", "closed"))
    assert (await app.store.account("solo"))["casual_games"] == 0


async def test_two_accounts_finishing_a_casual_game_count_it_once_each(app):
    async with AsyncExitStack() as stack:
        a, b = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                for _ in range(2)]
        await a.request({"type": "register", "name": "amy", "password": "amy-amy"})
        await b.request({"type": "register", "name": "ben", "password": "ben-ben"})
        created = await a.request({"type": "create_table", "room": "spades",
                                   "rules": {"target": 100, "mercy": 100}})
        table_id = created["table"]["id"]
        await a.request({"type": "sit", "table": table_id, "seat": 0})
        await b.request({"type": "sit", "table": table_id, "seat": 1})
        await a.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await asyncio.gather(play_until_over(a, table_id, random.Random(1)),
                             play_until_over(b, table_id, random.Random(2)))
        table = app.lobby.tables[table_id].machine
        await wait_for(lambda: table.state.phase == "over")
        await a.request({"type": "ping"})
    assert (await app.store.account("amy"))["casual_games"] == 1
    assert (await app.store.account("ben"))["casual_games"] == 1


# -- 4. a seat token is its holder's ----------------------------------------------------------

async def test_another_player_with_a_seat_token_takes_nothing(app):
    async with TrickroomClient.connect(url(app)) as owner, \
            TrickroomClient.connect(url(app)) as thief:
        await owner.request({"type": "guest", "name": "owner"})
        created = await owner.request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        token = (await owner.request({"type": "sit", "table": table_id, "seat": 1}))[
            "seat_token"]
        await owner.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await thief.request({"type": "guest", "name": "thief"})
        seen = len(owner.received)
        error = await refused(thief, {"type": "rejoin", "table": table_id, "seat_token": token,
                                      "last_seq": 0})
        assert error["code"] == "not_authorized" and "belongs to another player" in (
            error["message"])
        await owner.request({"type": "ping"})
        await thief.request({"type": "ping"})
        machine = app.lobby.tables[table_id].machine
        assert (machine.state.seats[1].client is not None
                and machine.state.seats[1].account == "guest-owner")
        assert not any(m["type"] == "error" for m in owner.received[seen:])
        assert not any(m["type"] in ("snapshot", "prompt") or "hand" in json.dumps(m)
                       for m in thief.received)


async def test_the_same_player_rejoining_elsewhere_takes_the_seat_and_the_old_socket_is_told(
        app):
    async with TrickroomClient.connect(url(app)) as first, \
            TrickroomClient.connect(url(app)) as second:
        await first.request({"type": "guest", "name": "phone"})
        created = await first.request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        token = (await first.request({"type": "sit", "table": table_id, "seat": 0}))[
            "seat_token"]
        await first.request({"type": "fill_robots", "table": table_id, "level": "random"})
        await second.request({"type": "resume", "token": first.session})
        snapshot = await second.request({"type": "rejoin", "table": table_id,
                                         "seat_token": token, "last_seq": 0})
        assert snapshot["view"]["seat"] == 0 and len(snapshot["view"]["hand"]) == 13
        await wait_for(lambda: any(m["type"] == "taken_over" for m in first.received))
        told = next(m for m in first.received if m["type"] == "taken_over")
        assert told["table"] == table_id and told["seat"] == 0
        machine = app.lobby.tables[table_id].machine
        assert machine.state.seats[0].client == max(app.clients)


# -- 5. only the table's players (or its creator) run it ---------------------------------------

async def test_a_stranger_cannot_fill_or_start_someone_else_s_table(app):
    async with TrickroomClient.connect(url(app)) as host, \
            TrickroomClient.connect(url(app)) as stranger:
        await host.request({"type": "guest", "name": "host"})
        await stranger.request({"type": "guest", "name": "stranger"})
        created = await host.request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        await host.request({"type": "sit", "table": table_id, "seat": 0})
        for kind in ("fill_robots", "start"):
            error = await refused(stranger, {"type": kind, "table": table_id})
            assert error["code"] == "not_seated"
        machine = app.lobby.tables[table_id].machine
        state = machine.state
        assert state.phase == "waiting" and [s.kind for s in state.seats][1:] == ["empty"] * 3
        await host.request({"type": "fill_robots", "table": table_id, "level": "random"})
        assert machine.state.phase == "playing"
        assert (await refused(stranger, {"type": "start", "table": table_id}))["code"] == (
            "not_seated")


async def test_the_creator_may_fill_their_table_without_sitting(app):
    async with TrickroomClient.connect(url(app)) as host:
        await host.request({"type": "guest"})
        created = await host.request({"type": "create_table", "room": "hearts"})
        await host.request({"type": "fill_robots", "table": created["table"]["id"]})
        assert app.lobby.tables[created["table"]["id"]].machine.state.phase == "playing"


# -- 6. names ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["bob\n", "bob ", "robot-heuristic", "Robot", "guest-alice",
                                  "GUEST", "admin", "bö"])
async def test_look_alike_and_reserved_names_are_refused(app, name):
    async with TrickroomClient.connect(url(app)) as client:
        error = await refused(client, {"type": "register", "name": name, "password": "secret"})
        assert error["code"] == "invalid_field"
    assert await app.store.user_hash(name) is None


async def test_a_name_differing_only_in_case_is_taken_and_the_api_needs_the_exact_pattern(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "register", "name": "bob", "password": "secret"})
        error = await refused(client, {"type": "register", "name": "BOB", "password": "secret"})
        assert error["code"] == "name_taken"
    status, _, _ = await http_get(app, "/api/players/bob%0A")
    assert status == 404
    status, _, _ = await http_get(app, "/api/players/bob")
    assert status == 200


# -- 7. guest names fit, and are freed ---------------------------------------------------------

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
        await first.request({"type": "guest", "name": "lee"})
        created = await first.request({"type": "create_table", "room": "spades"})
        table_id = created["table"]["id"]
        await first.request({"type": "sit", "table": table_id, "seat": 0})
        await first.request({"type": "fill_robots", "table": table_id, "level": "random"})
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


async def test_a_room_s_list_gives_its_waiting_tables_first_and_at_most_tables_listed(make_app):
    """However many tables a room has open, its list costs the loop the time of
    ``tables_listed`` of them (a list of thousands took 30 ms: bench/lobby.py)."""
    app = await make_app(tables_listed=2)
    async with AsyncExitStack() as stack:
        hosts = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                 for _ in range(4)]
        ids = []
        for i, host in enumerate(hosts):
            await host.request({"type": "guest", "name": f"host{i}"})
            ids.append((await host.request({"type": "create_table", "room": "spades"}))
                       ["table"]["id"])
            await host.request({"type": "sit", "table": ids[-1], "seat": 0})
        await hosts[0].request({"type": "fill_robots", "table": ids[0], "level": "random"})
        await wait_for(lambda: app.lobby.tables[ids[0]].machine.state.phase.value == "playing")
        listing = await hosts[3].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[1:3] and listing["total"] == 4
        await hosts[1].request({"type": "fill_robots", "table": ids[1], "level": "random"})
        await wait_for(lambda: app.lobby.tables[ids[1]].machine.state.phase.value == "playing")
        listing = await hosts[3].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[2:4] and listing["total"] == 4
        await hosts[3].request({"type": "stand", "table": ids[3]})  # its place is kept
        listing = await hosts[3].request({"type": "list_tables", "room": "spades"})
        assert [t["id"] for t in listing["tables"]] == ids[2:4]
        rooms = (await hosts[3].request({"type": "list_rooms"}))["rooms"]
        assert {r["name"]: r["tables"] for r in rooms}["spades"] == 4


async def test_flapping_watch_and_unwatch_costs_the_room_s_subscribers_one_push_a_beat(make_app):
    """Every push goes to every subscriber of the room: one client's 80 watches and
    unwatches reach them as one update at once and one with the end state a beat later
    (``lobby_push_seconds``), not 80 each (bench/lobby.py measures the cost)."""
    app = await make_app(lobby_push_seconds=1.0)
    async with TrickroomClient.connect(url(app)) as host, \
            TrickroomClient.connect(url(app)) as subscriber, \
            TrickroomClient.connect(url(app)) as attacker:
        await host.request({"type": "guest", "name": "host"})
        table_id = (await host.request({"type": "create_table", "room": "spades"}))["table"]["id"]
        await subscriber.request({"type": "guest", "name": "sub"})
        await attacker.request({"type": "guest", "name": "flap"})
        await asyncio.sleep(2.2)  # the creation's own pushes are out, and their beat over
        await subscriber.request({"type": "list_tables", "room": "spades"})
        seen = len(subscriber.received)
        for _ in range(40):
            await attacker.request({"type": "watch", "table": table_id})
            await attacker.request({"type": "unwatch", "table": table_id})

        def updates() -> list[dict[str, Any]]:
            return [m["table"] for m in subscriber.received[seen:]
                    if m.get("type") == "table_update" and m["table"]["id"] == table_id]

        assert len(updates()) == 1 and updates()[0]["watchers"] == 1  # the first, at once
        await wait_for(lambda: len(updates()) == 2, timeout=3)
        assert updates()[1]["watchers"] == 0  # then the table as the beat left it
        await asyncio.sleep(1.2)
        assert len(updates()) == 2


async def test_a_chat_flood_is_refused_past_the_chat_rate_and_its_readers_get_none_of_it(app):
    """Each chat line goes to every subscriber of the room: past ``chat_burst`` lines at
    once (then ``chat_per_second``) the rest are refused, with when to try again."""
    async with TrickroomClient.connect(url(app)) as spammer, \
            TrickroomClient.connect(url(app)) as reader:
        await spammer.request({"type": "guest", "name": "spam"})
        await reader.request({"type": "guest", "name": "reader"})
        await reader.request({"type": "list_tables", "room": "spades"})  # the room's reader
        burst = app.config.settings.chat_burst
        for i in range(burst):
            await spammer.request({"type": "chat", "room": "spades", "text": f"line {i}"})
        error = await refused(spammer, {"type": "chat", "room": "spades", "text": "one more"})
        assert error["code"] == "rate_limited" and 0 < error["retry_after"] <= 1.0
        assert "chat" in error["message"]
        await reader.request({"type": "ping"})  # everything sent before this has arrived
        lines = [m["text"] for m in reader.received if m.get("type") == "chat"]
        assert lines == [f"line {i}" for i in range(burst)]
        await asyncio.sleep(error["retry_after"])
        await spammer.request({"type": "chat", "room": "spades", "text": "later"})


async def test_many_sockets_of_one_address_share_one_chat_rate(make_app):
    app = await make_app(chat_burst=5, chat_burst_per_address=8)
    async with AsyncExitStack() as stack:
        socks = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                 for _ in range(3)]
        for i, sock in enumerate(socks):
            await sock.request({"type": "guest", "name": f"many{i}"})
        sent = 0
        for sock in socks:
            for _ in range(5):
                try:
                    await sock.request({"type": "chat", "room": "spades", "text": "hi"})
                    sent += 1
                except ServerError as exc:
                    assert exc.reply["code"] == "rate_limited"
        assert sent == 8  # the address's burst, though each socket had 5 of its own


# -- 8. tables per player and per address ------------------------------------------------------

async def test_one_player_opens_a_bounded_number_of_tables(app):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for _ in range(3):
            await client.request({"type": "create_table", "room": "spades"})
        error = await refused(client, {"type": "create_table", "room": "spades"})
        assert error["code"] == "rate_limited"
    assert len(app.lobby.tables) == 3


async def test_one_address_opens_a_bounded_number_of_tables(make_app):
    app = await make_app(tables_per_address=4)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(TrickroomClient.connect(url(app)))
                   for _ in range(3)]
        made = 0
        for client in clients:
            await client.request({"type": "guest"})
            for _ in range(2):
                try:
                    await client.request({"type": "create_table", "room": "hearts"})
                    made += 1
                except ServerError as exc:
                    assert exc.code == "rate_limited" and "address" in str(exc)
    assert made == 4


async def test_tables_nobody_sat_at_close_after_their_creator_leaves(make_app):
    app = await make_app(table_idle_seconds=0.2)
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        for _ in range(3):
            await client.request({"type": "create_table", "room": "spades"})
    await wait_for(lambda: app.lobby.tables == {})
    assert app.lobby.created_by == {}


# -- 9. the lesser ones ----------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "   ", "\u200b", "hi\x1b[2J", "line\nbreak",
                                  "\u202eevil"])
async def test_blank_or_control_character_chat_is_refused(app, text):
    async with TrickroomClient.connect(url(app)) as client:
        await client.request({"type": "guest"})
        await client.request({"type": "list_tables", "room": "spades"})
        error = await refused(client, {"type": "chat", "room": "spades", "text": text})
        assert error["code"] == "invalid_field"


async def test_a_socket_from_another_site_s_page_is_refused(make_app):
    app = await make_app(allowed_origins=["https://cards.example"])
    with pytest.raises(InvalidStatus) as err:
        async with connect(url(app), origin="https://evil.example"):
            pass
    assert err.value.response.status_code == 403
    own = f"http://127.0.0.1:{app.port}"
    for origin in (own, "https://cards.example", None):
        async with connect(url(app), origin=origin) as ws:
            await ws.send(json.dumps({"type": "ping", "id": 1}))
            assert json.loads(await ws.recv())["type"] == "pong"


async def test_pages_carry_the_security_headers(app):
    for path in ("/", "/js/app.js", "/api/rooms"):
        _, headers, _ = await http_get(app, path)
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "same-origin"

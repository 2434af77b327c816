"""Every per-address limit counts an address GROUP (issue 32, item C): an IPv4 address
alone (/32) and an IPv6 /64, by default, since one subscriber is given a whole /64 and may
take any address in it. The group is one function of the address (server/proxies.py),
applied before any limit sees it: sockets, messages, guests, tables, login failures, chat
and the HTTP API all count the group. The prefixes are settings (``ipv4_prefix``,
``ipv6_prefix``)."""

from __future__ import annotations

import json
from contextlib import AsyncExitStack

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import url
from tests.server.refusals import answers, refused
from tests.server.test_http_limits import get
from trickroom.server.client import TrickroomClient
from trickroom.server.config import ConfigError, load_config
from trickroom.server.metrics import METRICS
from trickroom.server.proxies import group_of

# Two addresses of one /64 (one subscriber), and one of the /64 next to it.
ONE, SAME_64, OTHER_64 = "2001:db8:7:1::1", "2001:db8:7:1:ffff::9", "2001:db8:7:2::1"


def test_an_ipv6_address_counts_as_its_64_and_an_ipv4_address_as_itself():
    assert group_of(ONE) == group_of(SAME_64) == "2001:db8:7:1::/64"
    assert group_of(OTHER_64) == "2001:db8:7:2::/64"
    assert group_of("203.0.113.9") == "203.0.113.9"
    assert group_of("203.0.113.9") != group_of("203.0.113.10")


def test_the_prefixes_are_settings():
    assert group_of("203.0.113.9", ipv4_prefix=24) == "203.0.113.0/24"
    assert group_of("203.0.113.200", ipv4_prefix=24) == "203.0.113.0/24"
    assert group_of(ONE, ipv6_prefix=128) == ONE
    assert group_of(ONE, ipv6_prefix=48) == group_of(OTHER_64, ipv6_prefix=48)


def test_an_ipv4_mapped_ipv6_peer_is_its_ipv4_address_and_a_non_address_is_itself():
    assert group_of("::ffff:203.0.113.9") == "203.0.113.9"
    assert group_of("?") == "?"


@pytest.mark.parametrize("setting", [{"ipv4_prefix": 0}, {"ipv4_prefix": 33},
                                     {"ipv6_prefix": 129}, {"ipv6_prefix": 8}])
def test_a_prefix_out_of_bounds_is_refused_by_name(setting):
    name = next(iter(setting))
    with pytest.raises(ConfigError, match=name):
        load_config(**setting)


def proxied(address: str) -> dict:
    """A client behind the host's proxy (127.0.0.1, trusted), at ``address``."""
    return {"additional_headers": {"X-Forwarded-For": address}}


async def test_two_addresses_of_one_64_share_one_count_of_sockets(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], connections_per_ip=2)
    sockets = [await connect(url(app), **proxied(a)) for a in (ONE, SAME_64)]
    try:
        with pytest.raises(InvalidStatus) as err:
            await connect(url(app), **proxied("2001:db8:7:1::3"))
        assert err.value.response.status_code == 429
        sockets.append(await connect(url(app), **proxied(OTHER_64)))  # another /64's own
    finally:
        for ws in sockets:
            await ws.close()


async def test_loopback_addresses_are_each_their_own_group_unless_the_prefix_joins_them(
        make_app):
    """127.0.0.2 and 127.0.0.3 are two /32s: two budgets by default, one under a /24."""
    for prefix, shared in ((32, False), (24, True)):
        app = await make_app(connections_per_ip=1, ipv4_prefix=prefix)
        first = await connect(url(app), local_addr=("127.0.0.2", 0))
        try:
            if shared:
                with pytest.raises(InvalidStatus) as err:
                    await connect(url(app), local_addr=("127.0.0.3", 0))
                assert err.value.response.status_code == 429
            else:
                second = await connect(url(app), local_addr=("127.0.0.3", 0))
                await second.close()
        finally:
            await first.close()


async def test_a_64_s_guests_are_counted_together(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], guests_per_address=1)
    async with TrickroomClient.connect(url(app), **proxied(ONE)) as first, \
            TrickroomClient.connect(url(app), **proxied(SAME_64)) as second, \
            TrickroomClient.connect(url(app), **proxied(OTHER_64)) as other:
        await first.request({"type": "guest"})
        error = await refused(second, {"type": "guest"})
        assert error["code"] == "rate_limited" and "from one address" in error["message"]
        await other.request({"type": "guest"})


async def test_a_64_s_failed_logins_are_counted_together(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], login_free_failures_per_address=2,
                         login_backoff_seconds=30, password_profile="cheapest")
    async with AsyncExitStack() as stack:
        guessers = [await stack.enter_async_context(
            TrickroomClient.connect(url(app), **proxied(f"2001:db8:7:1::{i + 1:x}")))
            for i in range(3)]
        codes = [(await refused(g, {"type": "login", "name": f"user{i}",
                                    "password": "123456"}))["code"]
                 for i, g in enumerate(guessers)]
        assert codes == ["bad_credentials", "bad_credentials", "rate_limited"]
        other = await stack.enter_async_context(
            TrickroomClient.connect(url(app), **proxied(OTHER_64)))
        error = await refused(other, {"type": "login", "name": "user9", "password": "123456"})
        assert error["code"] == "bad_credentials"  # checked: another /64's own count


async def test_a_64_s_open_tables_are_counted_together(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], tables_per_address=1)
    async with TrickroomClient.connect(url(app), **proxied(ONE)) as first, \
            TrickroomClient.connect(url(app), **proxied(SAME_64)) as second:
        await first.request({"type": "guest"})
        await second.request({"type": "guest"})
        await first.request({"type": "create_table", "room": "spades"})
        error = await refused(second, {"type": "create_table", "room": "spades"})
        assert error["code"] == "rate_limited" and "address" in error["message"]


async def test_a_64_s_chat_is_counted_together(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], chat_per_second=0.01, chat_burst=5,
                         chat_per_second_per_address=0.01, chat_burst_per_address=2)
    async with TrickroomClient.connect(url(app), **proxied(ONE)) as first, \
            TrickroomClient.connect(url(app), **proxied(SAME_64)) as second:
        for client in (first, second):
            await client.request({"type": "guest"})
            await client.request({"type": "list_tables", "room": "spades"})
        await first.request({"type": "chat", "room": "spades", "text": "one"})
        await second.request({"type": "chat", "room": "spades", "text": "two"})
        error = await refused(second, {"type": "chat", "room": "spades", "text": "three"})
        assert error["code"] == "rate_limited"


async def test_a_64_s_messages_share_one_budget(make_app):
    """Past the group's burst every message waits its turn, whichever socket sent it (two
    budgets of 10 would have held back 20 of 40)."""
    each, burst = 20, 10
    app = await make_app(trusted_proxies=["127.0.0.1"], messages_per_second=1000,
                         message_burst=1000, messages_per_second_per_address=20,
                         message_burst_per_address=burst)
    delayed = METRICS.messages_delayed._value.get()
    sockets = [await connect(url(app), **proxied(a)) for a in (ONE, SAME_64)]
    try:
        for ws in sockets:
            for i in range(each):
                await ws.send(json.dumps({"type": "ping", "id": i}))
        for ws in sockets:
            replies, _ = await answers(ws, each)
            assert [r["id"] for r in replies] == list(range(each))
    finally:
        for ws in sockets:
            await ws.close()
    assert METRICS.messages_delayed._value.get() - delayed > 2 * (each - burst)


async def test_a_64_s_api_requests_share_one_budget(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], http_per_second_per_address=0.01,
                         http_burst_per_address=2)
    for address in (ONE, SAME_64):
        assert (await get(app, "/api/rooms", forwarded_for=address))[0] == 200
    status, headers, _ = await get(app, "/api/rooms", forwarded_for="2001:db8:7:1::77")
    assert status == 429 and int(headers["Retry-After"]) >= 1
    assert (await get(app, "/api/rooms", forwarded_for=OTHER_64))[0] == 200

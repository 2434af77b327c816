"""Who a client is behind the host's proxies: the address every per-address limit counts
(server/proxies.py). A header is believed only from a proxy the host trusts, and read from
the right, so a client cannot name itself someone else."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.server.conftest import url, wait_for
from trickroom.server.config import ConfigError, load_config
from trickroom.server.proxies import client_address, networks

PROXIES = networks(["10.0.0.0/8", "127.0.0.1"])


def test_a_peer_the_host_does_not_trust_is_the_client_whatever_it_claims():
    assert client_address("203.0.113.9", "198.51.100.1", PROXIES) == "203.0.113.9"
    assert client_address("203.0.113.9", "198.51.100.1", ()) == "203.0.113.9"


def test_behind_a_trusted_proxy_the_client_is_the_address_it_forwarded():
    assert client_address("127.0.0.1", "198.51.100.1", PROXIES) == "198.51.100.1"


def test_the_rightmost_address_not_a_proxy_wins_and_spoofed_ones_left_of_it_do_not():
    # The client wrote "1.2.3.4" itself; nginx appended the client's real address, and a
    # second proxy of the host appended nginx's.
    forwarded = "1.2.3.4, 198.51.100.7, 10.1.2.3"
    assert client_address("127.0.0.1", forwarded, PROXIES) == "198.51.100.7"


def test_a_malformed_hop_ends_the_walk_at_the_last_proven_one():
    assert client_address("127.0.0.1", "198.51.100.7, not-an-ip, 10.0.0.5",
                          PROXIES) == "10.0.0.5"
    assert client_address("127.0.0.1", "", PROXIES) == "127.0.0.1"


def test_ipv6_clients_and_proxies():
    proxies = networks(["::1", "fd00::/8"])
    assert client_address("::1", "2001:db8::1, fd00::2", proxies) == "2001:db8::1"


def test_a_room_file_s_bad_proxy_entry_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"'proxy\.internal' is not an address"):
        load_config(trusted_proxies=["10.0.0.0/8", "proxy.internal"])


async def test_a_forged_forwarded_for_buys_no_more_connections(app):
    """Without trusted proxies, the header is the client's own word: every socket still
    counts against its real address."""
    limit = app.config.settings.connections_per_ip
    sockets = [await connect(url(app), additional_headers={"X-Forwarded-For": f"10.9.0.{i}"})
               for i in range(limit)]
    try:
        await wait_for(lambda: app.sessions.per_ip["127.0.0.1"] >= limit)
        with pytest.raises(InvalidStatus) as err:
            await connect(url(app), additional_headers={"X-Forwarded-For": "10.9.1.1"})
        assert err.value.response.status_code == 429
    finally:
        for ws in sockets:
            await ws.close()


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(make_app):
    app = await make_app(trusted_proxies=["127.0.0.1"], connections_per_ip=2)
    clients = [f"198.51.100.{i}" for i in range(3)]
    sockets = [await connect(url(app), additional_headers={"X-Forwarded-For": c})
               for c in clients for _ in range(2)]
    try:
        await wait_for(lambda: sum(app.sessions.per_ip.values()) == 6)
        assert dict(app.sessions.per_ip) == {c: 2 for c in clients}
        with pytest.raises(InvalidStatus) as err:
            await connect(url(app), additional_headers={"X-Forwarded-For": clients[0]})
        assert err.value.response.status_code == 429
    finally:
        for ws in sockets:
            await ws.close()

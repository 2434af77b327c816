"""Who a client is: its address behind the host's proxies, and the address group every
per-address limit counts.

Behind nginx or HAProxy every socket comes from the proxy, so the limits per
address (connections, messages, guests, tables, login back-off) would count
the whole room as one client. A proxy the host trusts (``trusted_proxies``)
says who it forwarded in ``X-Forwarded-For``; anyone else may write that header
too, so it is read from the right, past the host's own proxies only: the first
address there not a trusted proxy is the client (what nginx's ``real_ip`` with
``real_ip_recursive`` does). A peer not trusted is the client itself, whatever
its headers claim.

An address alone is not a client either: an ISP gives one subscriber a whole IPv6
/64 (RFC 6177), out of which a client takes as many addresses as it likes. So
every limit counts the client's **group** (:func:`group_of`): its IPv4 address
(a /32) and its IPv6 /64 by default, each prefix a setting (``ipv4_prefix``,
``ipv6_prefix``). :class:`Peers` gives both, once, for a socket or a request;
the address itself is what the logs name.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPV4_PREFIXES = range(8, 33)  # a /8 joins a whole provider; a /32 is one address
IPV6_PREFIXES = range(32, 129)  # a /32 is a provider's allocation; a /128 one address


def networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """The trusted proxies from the room file: addresses or CIDR blocks.

    Raises ``ValueError`` naming the entry that is neither."""
    made = []
    for entry in entries:
        try:
            made.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"trusted_proxies: {entry!r} is not an address or a "
                             "network (such as 10.0.0.0/8)") from None
    return tuple(made)


def _trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str, forwarded_for: str | None,
                   trusted: tuple[Network, ...]) -> str:
    """The client's address: ``peer``, unless ``peer`` is a trusted proxy; then the
    rightmost address of ``X-Forwarded-For`` that is not one (the last hop the host's
    proxies saw). A malformed entry ends the walk: what lies left of it is unproven."""
    if not trusted or not forwarded_for or not _trusted(peer, trusted):
        return peer
    client = peer
    for hop in reversed(forwarded_for.split(",")):
        hop = hop.strip()
        try:
            hop = str(ipaddress.ip_address(hop))
        except ValueError:
            return client
        client = hop
        if not _trusted(hop, trusted):
            return hop
    return client


def address_of(connection: ServerConnection, request: Request | None,
               trusted: tuple[Network, ...]) -> str:
    """A socket's client: its peer, or behind a trusted proxy, the client it forwarded."""
    peer = str(connection.remote_address[0]) if connection.remote_address else "?"
    if not trusted or request is None:
        return peer
    forwarded = ", ".join(request.headers.get_all("X-Forwarded-For"))
    return client_address(peer, forwarded, trusted)



def group_of(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The group ``address`` counts in for every per-address limit: its network of
    ``ipv4_prefix`` or ``ipv6_prefix`` bits (``2001:db8::/64``), or the address itself
    when the prefix is all of it (``203.0.113.9``). An IPv4 address mapped into IPv6
    (``::ffff:203.0.113.9``, a dual-stack socket's peer) is that IPv4 address; what is
    no address (a Unix socket's peer) is its own group."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        if ipv4_prefix >= 32:
            return str(ip)
        return str(ipaddress.IPv4Network((int(ip), ipv4_prefix), strict=False))
    if ipv6_prefix >= 128:
        return str(ipaddress.IPv6Address(int(ip)))  # without a zone: one address, one group
    return str(ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False))


@dataclass(frozen=True)
class Peers:
    """How this server tells its clients apart: through the host's trusted proxies to an
    address, then to the address's group, the key of every per-address limit."""

    trusted: tuple[Network, ...] = ()
    ipv4_prefix: int = 32
    ipv6_prefix: int = 64

    def address(self, connection: ServerConnection, request: Request | None) -> str:
        """The client's own address (what the logs name)."""
        return address_of(connection, request, self.trusted)

    def group(self, address: str) -> str:
        """The key the limits count ``address`` under."""
        return group_of(address, self.ipv4_prefix, self.ipv6_prefix)

    def key(self, connection: ServerConnection, request: Request | None) -> str:
        """The group of a socket's or a request's client."""
        return self.group(self.address(connection, request))

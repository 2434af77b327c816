"""Who a client is behind a proxy: the address every per-address limit counts.

Behind nginx or HAProxy every socket comes from the proxy, so the limits per
address (connections, messages, guests, tables, login back-off) would count
the whole room as one client. A proxy the host trusts (``trusted_proxies``)
says who it forwarded in ``X-Forwarded-For``; anyone else may write that header
too, so it is read from the right, past the host's own proxies only: the first
address there not a trusted proxy is the client (what nginx's ``real_ip`` with
``real_ip_recursive`` does). A peer not trusted is the client itself, whatever
its headers claim.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


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

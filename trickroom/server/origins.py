"""Which pages may open the socket: the server's own and the host's public origins.

A browser names the page that opens a socket in its ``Origin`` header, and the
handshake is the only place to refuse another site's page (a socket is not
bound by the same-origin policy). The ``Host`` header proves nothing: under DNS
rebinding an attacker's name (``evil.example``) is made to resolve to this
server's address, and its page then sends ``Origin: http://evil.example:PORT``
and ``Host: evil.example:PORT`` alike. So an origin is compared only with what
the server knows itself:

* its own: ``http://`` with the port it listens on, and the loopback names
  (``127.0.0.1``, ``localhost``, ``[::1]``), the address it was told to listen
  on, the machine's own host name when it listens on every address, and the
  address a socket actually reached (an address, unlike a name, cannot be
  rebound);
* the host's public origins (``allowed_origins``), such as
  ``https://cards.example`` behind a proxy, which no server can guess.

Origins are compared normalized: scheme and host in lower case, the scheme's
default port written out (``https://cards.example`` is
``https://cards.example:443``). A client that sends no ``Origin`` (a bot) is
not a page, and is let in.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK = ("127.0.0.1", "localhost", "::1")
EVERY_ADDRESS = ("", "0.0.0.0", "::")


def normalized(origin: str) -> str | None:
    """``origin`` as compared (``scheme://host:port``), or None when it is no web page's
    origin: another scheme, ``null`` (a sandboxed or local file's page), or anything
    with a path, a query, a user or a malformed port."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), parts.hostname
    if (scheme not in DEFAULT_PORTS or not host or parts.path not in ("", "/")
            or parts.query or parts.fragment or parts.username is not None):
        return None
    return _origin(scheme, host, port or DEFAULT_PORTS[scheme])


def _origin(scheme: str, host: str, port: int) -> str:
    host = host.lower()
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def invalid(origins: Iterable[str]) -> list[str]:
    """The entries of a host's list that are no origin (a setting to refuse)."""
    return [origin for origin in origins if normalized(origin) is None]


class Origins:
    """The origins whose pages may open this server's socket."""

    def __init__(self, public: Iterable[str]) -> None:
        self.public = frozenset(o for o in map(normalized, public) if o is not None)
        self.own: frozenset[str] = frozenset()

    def listening(self, host: str | None, port: int) -> None:
        """Learn where the server listens (its port is known once it listens)."""
        names = {*LOOPBACK}
        if host in (None, *EVERY_ADDRESS):
            names.add(socket.gethostname())
        else:
            names.add(host)
        self.own = frozenset(_origin("http", name, port) for name in names)

    def allow(self, origin: str, reached: tuple[str, int] | None = None) -> bool:
        """Whether a page of ``origin`` may open the socket, ``reached`` being the address
        and port the socket came in at."""
        seen = normalized(origin)
        if seen is None:
            return False
        if seen in self.own or seen in self.public:
            return True
        return reached is not None and seen == _origin("http", reached[0], reached[1])

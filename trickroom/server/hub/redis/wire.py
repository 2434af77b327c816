"""The bus's two raw connections to Redis: commands written as they come, replies read by
hiredis in the socket's callback (DESIGN section 11).

redis-py spends tens of microseconds of Python on each command and each pub/sub
message (a pipeline object, a lock, a timeout, a reply parsed and wrapped in a
dict), and every action of a cluster's table crosses Redis once or twice. Here a
publish is one ``transport.write`` of bytes packed once, with no task or await,
and a frame that arrives is parsed by hiredis and handed on in ``data_received``.
Everything else (leases, scripts, lookups) still goes through redis-py.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from typing import Any, cast

import hiredis
from redis.connection import parse_url

Reply = Any  # what hiredis makes of one reply: bytes, int, list, or a hiredis.ReplyError


class Refused(ConnectionError):
    """Redis answered, and refused the line: a wrong password, a database it does not have."""


def pack(*args: str | bytes | int | float) -> bytes:
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


class Line(asyncio.Protocol):
    """One connection: every reply (or pushed message) goes to ``on_reply`` in order;
    ``on_lost`` is told once when the connection goes (which line, and why)."""

    def __init__(self, on_reply: Callable[[Reply], None],
                 on_lost: Callable[[Line, Exception | None], None]) -> None:
        self.on_reply = on_reply
        self.on_lost = on_lost
        self.transport: asyncio.Transport | None = None
        self._reader = hiredis.Reader()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        while (reply := reader.gets()) is not False:
            self.on_reply(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.on_lost(self, exc)

    def write(self, data: bytes) -> bool:
        """Write if connected (False: not sent)."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return False
        transport.write(data)
        return True

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def open_line(url: str, on_reply: Callable[[Reply], None],
                    on_lost: Callable[[Line, Exception | None], None],
                    timeout: float = 2.0) -> Line:
    """Connect to the Redis of ``url`` (``redis://``, ``rediss://`` or ``unix://``, with
    its user and password), in the URL's database, as redis-py does; raises ``OSError``
    (or ``TimeoutError``) if it does not answer, :class:`Refused` (a ``ConnectionError``)
    if it refuses the password or the database."""
    options = parse_url(url)  # type: ignore[no-untyped-call]
    loop = asyncio.get_running_loop()
    line = Line(on_reply, on_lost)
    async with asyncio.timeout(timeout):
        if options.get("path"):
            await loop.create_unix_connection(lambda: line, options["path"])
        else:
            tls = ssl.create_default_context() if url.startswith("rediss://") else None
            await loop.create_connection(lambda: line, options.get("host", "localhost"),
                                         int(options.get("port", 6379)), ssl=tls)
        password = options.get("password")
        if password is not None:
            user = options.get("username")
            await _handshake(line, pack("AUTH", *([user] if user else []), password),
                             "the login")
        db = int(options.get("db") or 0)
        if db:  # a write of this line lands beside what redis-py's connections read
            await _handshake(line, pack("SELECT", db), f"database {db}")
    return line


def database(url: str) -> int:
    """The database number a Redis URL names (its path, or ``?db=``; 0 if neither)."""
    return int(parse_url(url).get("db") or 0)  # type: ignore[no-untyped-call]


async def _handshake(line: Line, command: bytes, what: str) -> None:
    """Send one command and wait for its reply, before the line's owner takes its replies."""
    answer: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
    owner = line.on_reply

    def answered(reply: Reply) -> None:
        if not answer.done():
            answer.set_result(reply)

    line.on_reply = answered
    try:
        line.write(command)
        reply = await answer
    finally:
        line.on_reply = owner
    if isinstance(reply, hiredis.ReplyError):
        line.close()
        raise Refused(f"redis refused {what}: {reply}")

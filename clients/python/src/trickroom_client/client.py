"""The socket: requests answered by id, everything else pushed, and ``moved`` followed.

This is the SDK that ``trickroom bot``, ``trickroom-bot`` and the server's tests use; it
needs only ``websockets``. For a bot that just answers prompts, :func:`trickroom_client.play`
does the rest (seat, prompts, ``play_again``). By hand::

    async with TrickroomClient.connect("ws://127.0.0.1:8765/ws") as client:
        await client.request({"type": "guest"})
        reply = await client.request({"type": "create_table", "room": "spades"})
        table = reply["table"]["id"]
        await client.request({"type": "sit", "table": table})
        await client.request({"type": "fill_robots", "table": table})
        async for message in client.messages():
            if message["type"] == "prompt":
                await client.act(table, message["legal"][0])

Requests get an ``id``; :meth:`request` waits for the reply with that id and
raises :class:`ServerError` if it is an error. Everything else (events,
prompts, chat, pushed lobby updates) arrives through :meth:`messages`.

In a cluster, a ``sit`` or ``rejoin`` for a table another node runs may be
answered ``moved``: :meth:`request` then opens a socket at the given URL (a path
is taken relative to this socket's), resumes the session there, closes the old
socket and sends the request again, so a bot plays on its table's own node.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urljoin

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed


class ServerError(Exception):
    """The server refused a request: ``code`` is the protocol's error code (``seat_taken``,
    ``not_your_turn``...), ``reply`` the whole error message (``retry_after``, ``field``)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.code = reply.get("code")
        self.reply = reply


MAX_MOVES = 3  # a table that moves again as its player follows it: followed this often


class TrickroomClient:
    def __init__(self, ws: ClientConnection, url: str = "",
                 options: dict[str, Any] | None = None) -> None:
        self.ws = ws
        self.url = url  # the socket's URL now (a ``moved`` changes it)
        self.home = url  # the URL the client was opened with
        self._options = options or {}
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.received: list[dict[str, Any]] = []  # every message, for tests that audit traffic
        self.session: str | None = None  # the last welcome's session token (for resume)
        # The last registered welcome's device token: send it with later logins of that
        # account (``"device": client.device``), and a stranger's guesses do not lock it out.
        self.device: str | None = None
        self._reader = asyncio.create_task(self._read())

    @classmethod
    @asynccontextmanager
    async def connect(cls, url: str, **options: Any) -> AsyncIterator[TrickroomClient]:
        """Open a client; ``options`` go to websockets' ``connect`` (``additional_headers``,
        ``open_timeout``...)."""
        options = {"max_size": 2**22, **options}
        async with connect(url, **options) as ws:
            client = cls(ws, url, options)
            try:
                yield client
            finally:
                await client._close()

    async def _close(self) -> None:
        # Close while the reader still reads: a reader gone first leaves the frames still
        # coming unread, and the close handshake waits out its timeout.
        await self.ws.close()
        self._reader.cancel()

    async def _move(self, url: str) -> None:
        """Follow a ``moved``: a socket at ``url``, the session resumed there, and the old
        socket closed (the messages it still had for us are read first)."""
        target = urljoin(self.url, url)
        ws = await connect(target, **self._options)
        old, old_reader = self.ws, self._reader
        self.ws, self.url = ws, target
        self._reader = asyncio.create_task(self._read())
        await old.close()
        with contextlib.suppress(asyncio.CancelledError):
            await old_reader
        if self.session is not None:
            await self.request({"type": "resume", "token": self.session})

    async def _read(self) -> None:
        ws = self.ws
        try:
            async for frame in ws:
                message = json.loads(frame)
                self.received.append(message)
                rid = message.get("id")
                future = self._waiting.pop(rid, None) if isinstance(rid, int) else None
                if future is not None and not future.done():
                    future.set_result(message)
                else:
                    await self._inbox.put(message)
        except ConnectionClosed:
            pass
        finally:
            if ws is self.ws:  # not a socket left behind for the table's own node
                await self._inbox.put(None)
                for future in self._waiting.values():
                    if not future.done():
                        future.set_exception(ConnectionError("connection closed"))

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        for _ in range(MAX_MOVES):
            reply = await self._request(message, timeout)
            if reply.get("type") != "moved":
                return reply
            await self._move(reply["url"])
        raise ServerError({"code": "moved", "message": "the table kept moving: try again"})

    async def _request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        rid = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future
        await self.send({**message, "id": rid})
        # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes as the
        # reply arrives, and the caller's task runs on as if never cancelled.
        async with asyncio.timeout(timeout):
            reply = await future
        if reply.get("type") == "error":
            raise ServerError(reply)
        if reply.get("type") == "welcome":
            self.session = reply["session"]
            self.device = reply.get("device") or self.device
        return reply

    async def act(self, table: str, action: dict[str, Any]) -> dict[str, Any]:
        """Send a game action; when the server says to slow down, wait and send it again."""
        for attempt in range(50):
            try:
                return await self.request({"type": "act", "table": table, "action": action})
            except ServerError as exc:
                if exc.code != "rate_limited":
                    raise
                await asyncio.sleep(0.05 * (attempt + 1))
        raise ServerError({"code": "rate_limited", "message": "gave up after 50 tries"})

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """Every message that is not a reply to a request, until the socket closes."""
        while True:
            message = await self._inbox.get()
            if message is None:
                return
            yield message

    async def next_message(self, timeout: float = 10.0) -> dict[str, Any] | None:
        async with asyncio.timeout(timeout):
            return await self._inbox.get()

"""The clock every latency ends on: when a frame's bytes came off the socket.

A bench's client process drives every socket (four seats share it, where players do not),
so a frame read late because the process was busy with other frames would count that
work as the server's. :class:`StampedConnection` notes when each data frame's bytes
arrived instead: with ``STAMP["source"] = "loop"`` (the default) when this process's
event loop read them off the socket; with ``"kernel"`` the kernel's own receive time of
them (``SO_TIMESTAMPNS``), which also leaves out this process's wake-up.
"""

from __future__ import annotations

import collections
import socket
import struct
import time
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.frames import DATA_OPCODES

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; the module lacks it on 3.11
STAMP = {"source": "loop"}  # "loop" or "kernel"; set by a bench's --stamp


class KernelStampedSocket:
    """A client socket as asyncio's transport reads it, through ``recvmsg``: each read
    also brings back when the kernel received its bytes."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self._sock = sock
        self.at = 0.0  # wall-clock seconds of the last read's arrival (0: none yet)

    def recv(self, size: int) -> bytes:
        data, ancillary, _flags, _addr = self._sock.recvmsg(size, 64)
        for level, kind, raw in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", raw[:16])
                self.at = sec + nsec * 1e-9
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class StampedConnection(ClientConnection):
    """A client connection that notes when each data frame's bytes reached the socket.

    ``stamps`` holds one arrival time (``time.perf_counter``) per data frame not yet
    read, oldest first; :meth:`arrival` takes the one of the frame just read.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamps: collections.deque[float] = collections.deque()
        self._chunk_at = 0.0
        self._kernel: KernelStampedSocket | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        sock = getattr(transport, "_sock", None)  # asyncio's selector transport reads it
        if STAMP["source"] == "kernel" and isinstance(sock, socket.socket):
            self._kernel = transport._sock = KernelStampedSocket(sock)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self._kernel is not None and self._kernel.at:
            now -= time.time() - self._kernel.at  # the kernel's wall-clock stamp, as perf time
        self._chunk_at = now
        super().data_received(data)

    def process_event(self, event: Any) -> None:
        if getattr(event, "opcode", None) in DATA_OPCODES:
            self.stamps.append(self._chunk_at)
        super().process_event(event)

    def arrival(self) -> float:
        """When the frame just read arrived (call once per frame read)."""
        return self.stamps.popleft() if self.stamps else time.perf_counter()


def arrival(ws: ClientConnection) -> float:
    """When the frame just read from ``ws`` arrived (now, for a connection not stamped)."""
    return ws.arrival() if isinstance(ws, StampedConnection) else time.perf_counter()

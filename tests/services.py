"""The real PostgreSQL and Redis a cluster test runs against (DESIGN section 11).

Both run on every machine of this project (127.0.0.1:5432 with trust auth, and
127.0.0.1:6379). Each test gets its own PostgreSQL schema and Redis key prefix
and removes them after. Where a service does not answer, its tests are skipped
with the reason, unless ``TRICKROOM_REQUIRE_SERVICES=1`` (CI sets it), when
they fail instead: a CI run that skipped them would prove nothing.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import socket

import pytest

POSTGRES = os.environ.get("TRICKROOM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("TRICKROOM_TEST_REDIS", "redis://127.0.0.1:6379/0")


@functools.cache
def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def need(service: str) -> None:
    """Skip (or, in CI, fail) a test whose service does not answer (or, for nginx, the
    proxy in front of a cluster, is not installed: .ci/run installs Debian's)."""
    if service == "nginx":
        if shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin"):
            return
        reason = "nginx is not installed (apt-get install nginx-light)"
    else:
        host, port = {"postgresql": ("127.0.0.1", 5432),
                      "redis": ("127.0.0.1", 6379)}[service]
        if answers(host, port):
            return
        reason = f"{service} does not answer on {host}:{port}"
    if os.environ.get("TRICKROOM_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (TRICKROOM_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


def fresh_name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(6)}"


async def drop_schema(schema: str) -> None:
    import asyncpg
    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


class Outage:
    """A TCP relay in front of a real service, to take it away and bring it back.

    The service itself keeps running for the other tests; what a client of the relay
    sees on :meth:`cut` is what it sees when the server dies: every open connection
    drops, and new ones are refused until :meth:`restore`.
    """

    def __init__(self, port: int) -> None:
        self.target = port
        self.up = True
        self.port = 0
        self._server: object = None
        self._writers: set[object] = set()

    async def start(self) -> None:
        import asyncio
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def _relay(self, reader, writer) -> None:
        import asyncio
        if not self.up:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src, dst) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        self.up = False
        for writer in self._writers:
            writer.close()  # type: ignore[attr-defined]
        self._writers.clear()

    def restore(self) -> None:
        self.up = True

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()  # type: ignore[attr-defined]


class RedisServer:
    """A Redis of a test's own (Debian's redis-server, on a free port, keeping nothing on
    disk), to restart under a cluster without touching the machine's shared one."""

    def __init__(self) -> None:
        import shutil
        self.binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import subprocess
        import time
        self.proc = subprocess.Popen(  # type: ignore[assignment]
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()  # type: ignore[attr-defined]
            self.proc.wait()  # type: ignore[attr-defined]
            self.proc = None

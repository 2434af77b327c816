"""The server under test, in a process of its own, and what the benches read of it.

A bench starts ``trickroom serve`` on a temporary database (:class:`Server`) with a room
file (:data:`LOAD_CONFIG`: no robot delay, no pause between hands, every rate limit out
of the way, plus ``--setting`` lines through :func:`with_settings`), talks to it over
sockets from its own process (:func:`request`, :func:`choose`), and reads what the server
process spent from /proc (:class:`CpuClock`, :func:`rss_kib`) and its metrics over HTTP
(:func:`metric`). Every server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
LOAD_CONFIG = """\
[server]
robot_delay = 0
hand_pause = 0
turn_seconds = 600
reconnect_seconds = 600
messages_per_second = 1000000
message_burst = 1000000
messages_per_second_per_address = 1000000
message_burst_per_address = 1000000
guests_per_address = 1000000
tables_per_address = 1000000
waiting_tables_per_address = 1000000
connections_per_ip = 1000000

[[rooms]]
name = "spades"
game = "spades"
rules = { mercy = 200 }
"""


def with_settings(config: str, settings: list[str]) -> str:
    """A room file with ``KEY=VALUE`` lines (TOML) added to its ``[server]`` table: what
    ``--setting`` passes to the server under test."""
    extra = "".join(f"{line}\n" for line in settings)
    return config.replace("[server]\n", f"[server]\n{extra}", 1)


def room_file(workdir: Path, name: str, config: str = LOAD_CONFIG,
              settings: list[str] | None = None) -> Path:
    """``config`` (with ``settings``) written to ``<workdir>/<name>.toml``."""
    path = workdir / f"{name}.toml"
    path.write_text(with_settings(config, settings or []))
    return path


def raise_fd_limit() -> None:
    """As many open files as this process may have: a bench opens thousands of sockets."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def pin_apart(pinned: bool, *pids: int) -> set[int] | None:
    """Servers on the last core, this client on the others (``pids``: servers already
    running; a :class:`Server` made with the cores returned goes there too): every
    measurement then crosses cores the same way, instead of as the scheduler happens to
    place three busy processes (the idle echo alone swung 0.05-0.11 ms; an idle-class
    process that only counts moved the tables' p99 by 1.3 times when nothing was pinned,
    and not at all on the server's own core: bench/analysis.py). The servers' cores, or
    None when not pinned."""
    cores = sorted(os.sched_getaffinity(0))
    if not pinned or len(cores) < 2:
        return None
    for pid in pids:
        os.sched_setaffinity(pid, {cores[-1]})
    os.sched_setaffinity(0, set(cores[:-1]))
    return {cores[-1]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Return once ``proc`` listens on ``port``; raise if it exits or times out first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port} after {timeout}s")


class Server:
    """``trickroom serve`` in its own process on ``db`` (a SQLite path, or a
    ``postgresql://`` store) with room file ``config``; a context manager that starts and
    stops it."""

    def __init__(self, db: Path | str, config: Path, port: int | None = None,
                 cpus: set[int] | None = None, extra: tuple[str, ...] = ()) -> None:
        self.port = port or free_port()
        self.db, self.config = db, config
        self.cpus = cpus  # pin the process to these cores (None: wherever the OS likes)
        self.extra = extra  # more arguments for ``trickroom serve`` (a cluster's)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        where = "--store" if str(self.db).startswith("postgresql://") else "--db"
        logs = os.environ.get("TRICKROOM_BENCH_LOGS")  # a folder: each node logs there, at info
        argv = ["--log-level", "info" if logs else "error", "serve", "--port", str(self.port),
                where, str(self.db), "--config", str(self.config), *self.extra]
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "import resource as r; s, h = r.getrlimit(r.RLIMIT_NOFILE); "
             "r.setrlimit(r.RLIMIT_NOFILE, (h, h)); from trickroom.server.cli import main; "
             f"main({argv!r})"],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
            stderr=open(Path(logs) / f"node-{self.port}.log", "ab") if logs  # noqa: SIM115
            else subprocess.PIPE)
        if self.cpus:
            os.sched_setaffinity(self.proc.pid, self.cpus)
        try:
            wait_port(self.port, self.proc)
        except RuntimeError as exc:
            self.kill()
            said = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
            raise RuntimeError(f"trickroom serve did not start: {exc}\n{said[-2000:]}") from None

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL, and wait for it to be gone."""
        if self.proc is not None and self.alive:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.alive:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# -- what a process spent ------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (/proc: 10 ms ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuClock:
    """The CPU that processes spend from the clock's start: a bench's cost per request."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.start = self.now()

    def now(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def us_per(self, count: float) -> float:
        """CPU microseconds since the start, per one of ``count`` things done."""
        return (self.now() - self.start) * 1e6 / max(1, count)


def switches(pid: int) -> tuple[int, int]:
    """Process ``pid``'s main thread's (a server's event loop's) context switches so far:
    voluntary (it slept, and was woken: each wake costs CPU of its own beyond the work it
    wakes for, ``docs/design.md`` section 13) and involuntary (the kernel preempted it for
    another process: on a saturated machine each one costs it its caches)."""
    counts = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key.endswith("voluntary_ctxt_switches"):
            counts[key] = int(value)
    return counts.get("voluntary_ctxt_switches", 0), counts.get("nonvoluntary_ctxt_switches", 0)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def http_get(port: int, path: str) -> str:
    """The body of ``GET path`` from the server on ``port``."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
    data = await reader.read()
    writer.close()
    await writer.wait_closed()  # else the server, stopped next, waits for this socket
    return data.split(b"\r\n\r\n", 1)[1].decode()


def metric(metrics: str, name: str) -> int:
    """A counter or gauge from ``/metrics`` text (-1 when absent)."""
    found = re.search(rf"^{name} ([0-9.e+]+)$", metrics, re.MULTILINE)
    return int(float(found.group(1))) if found else -1


# -- what a bench sends --------------------------------------------------------------------

_ids = itertools.count(1)


async def request(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send one request and read until its reply (events in between are dropped); an
    error reply raises."""
    rid = f"bench-{next(_ids)}"
    await ws.send(json.dumps({**message, "id": rid}))
    while True:
        reply: dict[str, Any] = json.loads(await ws.recv())
        if reply.get("id") == rid:
            if reply["type"] == "error":
                raise RuntimeError(f"{message['type']}: {reply['message']}")
            return reply


def choose(prompt: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action for a prompt (a pass: random cards of the hand)."""
    if prompt["phase"] == "pass":
        return {"type": "pass", "cards": rng.sample(prompt["hand"], prompt["pass_count"])}
    return dict(rng.choice(prompt["legal"]))

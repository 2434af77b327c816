"""The real PostgreSQL and Redis a cluster test runs against (DESIGN section 11), and the
faults a test puts between them and the server.

**The machine's services.** Both run on every machine of this project (127.0.0.1:5432
with trust auth, and 127.0.0.1:6379). Each test gets its own PostgreSQL schema and Redis
key prefix and removes them after. Where a service does not answer, its tests are
skipped with the reason, unless ``TRICKROOM_REQUIRE_SERVICES=1`` (CI sets it), when
they fail instead: a CI run that skipped them would prove nothing. Never stop them:
other tests (and other people) use them.

**Services of a test's own**, to stop and start: :class:`RedisServer` (Debian's
``redis-server`` on a free port, keeping nothing on disk) and :class:`PostgresServer`
(``initdb`` into a temporary directory, ``postgres`` on a free port with its socket in
that directory; run as the ``postgres`` user when the tests run as root, which
PostgreSQL refuses to be). Both die with the process that started them, however it
ends (the kernel's parent-death signal), and ``close`` removes what they left on disk.
The fixtures ``own_redis`` and ``own_postgres`` (tests/conftest.py) hand them to tests.

**Faults on the wire**: :class:`FaultProxy`, a TCP relay in this process in front of a
real service: cut (the service died), delay, blackhole (a partition) and drop_replies
(the request reached the service, its answer never came back).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

POSTGRES = os.environ.get("TRICKROOM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("TRICKROOM_TEST_REDIS", "redis://127.0.0.1:6379/0")
HOST = "127.0.0.1"


@functools.cache
def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def missing(service: str) -> str | None:
    """Why ``service`` cannot be had here (None: it can): ``postgresql`` and ``redis``
    (the machine's, answering), ``nginx``, ``postgresql-client`` (pg_dump and
    pg_restore), ``postgres-server`` and ``redis-server`` (the programs, to start
    instances of a test's own)."""
    if service == "nginx":
        if shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin"):
            return None
        return "nginx is not installed (apt-get install nginx-light)"
    if service == "postgresql-client":
        tools = [t for t in ("pg_dump", "pg_restore") if shutil.which(t) is None]
        if not tools:
            return None
        return f"{' and '.join(tools)} not installed (apt-get install postgresql-client)"
    if service == "postgres-server":
        return PostgresServer.unavailable()
    if service == "redis-server":
        if redis_binary():
            return None
        return "redis-server is not installed (apt-get install redis-server)"
    host, port = {"postgresql": (HOST, 5432), "redis": (HOST, 6379)}[service]
    if answers(host, port):
        return None
    return f"{service} does not answer on {host}:{port}"


def need(service: str) -> None:
    """Skip (or, in CI, fail) a test whose service does not answer or cannot be started
    (see :func:`missing`; for nginx, the proxy in front of a cluster, .ci/run installs
    Debian's)."""
    import pytest
    reason = missing(service)
    if reason is None:
        return
    if os.environ.get("TRICKROOM_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (TRICKROOM_REQUIRE_SERVICES=1)")
    pytest.skip(reason)


def fresh_name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(6)}"


async def drop_schema(schema: str) -> None:
    import asyncpg
    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', timeout=60)
    except TimeoutError:  # another session holds a lock on it: say which, do not hang
        raise AssertionError(f"dropping schema {schema} waited 60 s on: " + "; ".join(
            f"{r['pid']} {r['state']} {r['query'][:120]!r}" for r in await conn.fetch(
                "SELECT pid, state, query FROM pg_stat_activity WHERE pid <> "
                "pg_backend_pid() AND datname = current_database()"))) from None
    finally:
        await conn.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_until_answers(port: int, proc: subprocess.Popen[bytes], what: str,
                       timeout: float = 30.0) -> None:
    """Return once something accepts TCP connections on ``port``; raise if ``proc`` exits
    first or ``timeout`` passes (a failure bound only)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before answering")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"{what} did not answer on {port} within {timeout:g} s")


# -- processes that die with their parent ---------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: the kernel kills it when the process that started it
    ends, however that ends (a test run killed by its timeout leaves no server behind).
    The kernel means the *thread* that started it: start servers from the test's own
    thread, never through ``asyncio.to_thread`` (its worker ends, and the server with it)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _spawn(argv: list[str], *, user: str | None = None, log: Path | None = None,
           env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    out = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, user=user,
                                group=user, env=env, preexec_fn=_die_with_parent,
                                start_new_session=True)
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]


def _end(proc: subprocess.Popen[bytes] | None, sig: int, grace: float = 10.0) -> None:
    """Send ``sig`` to ``proc`` and wait for it; SIGKILL if it is not gone in ``grace``."""
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(sig)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()


def _kill_group(proc: subprocess.Popen[bytes] | None, timeout: float = 10.0) -> None:
    """SIGKILL ``proc`` and every process of its group (it leads one: ``_spawn`` starts a
    session), and wait until none of them runs (a new postmaster will not start on a data
    directory whose old backends still hold its shared memory)."""
    if proc is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and _group_running(proc.pid):
        time.sleep(0.02)


def _group_running(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies do not count: they hold
    nothing)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


# -- Redis of a test's own ------------------------------------------------------------------


def redis_binary() -> str | None:
    return shutil.which("redis-server", path=f"{os.environ.get('PATH', '')}:/usr/bin:/usr/sbin")


class RedisServer:
    """A Redis of a test's own (Debian's redis-server, on a free port, keeping nothing on
    disk), to restart under a cluster without touching the machine's shared one. It keeps
    its port across restarts."""

    def __init__(self, port: int | None = None) -> None:
        self.binary = redis_binary() or "/usr/bin/redis-server"
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        self.spawn()
        self.wait_ready()

    def spawn(self) -> None:
        """The process only (from the caller's thread: see :func:`_die_with_parent`)."""
        self.proc = _spawn([self.binary, "--port", str(self.port), "--bind", HOST,
                            "--save", "", "--appendonly", "no"])

    def wait_ready(self) -> None:
        """Until it answers (in a worker thread if need be: nothing is spawned here)."""
        assert self.proc is not None
        try:
            wait_until_answers(self.port, self.proc, "redis-server", timeout=10)
        except RuntimeError:
            self.stop()
            raise

    async def start_in_loop(self) -> None:
        """:meth:`start` for a running event loop: spawned here, waited for in a worker."""
        self.spawn()
        await asyncio.to_thread(self.wait_ready)

    def stop(self) -> None:
        """Gone at once (SIGKILL), as a crashed Redis: it keeps nothing either way."""
        _end(self.proc, signal.SIGKILL)
        self.proc = None

    def restart(self, down: float = 0.0) -> None:
        """Stop, stay down ``down`` seconds, start again on the same port."""
        self.stop()
        time.sleep(down)
        self.start()

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


# -- PostgreSQL of a test's own -------------------------------------------------------------


def postgres_bindir() -> Path | None:
    """Where ``initdb`` and ``postgres`` are: on the PATH, else Debian's newest
    /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("postgres"):
        return Path(found).resolve().parent
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda d: [int(p) for p in Path(d).parent.name.split(".") if p.isdigit()])
    for d in reversed(dirs):
        if (Path(d) / "initdb").exists() and (Path(d) / "postgres").exists():
            return Path(d)
    return None


class PostgresServer:
    """A PostgreSQL of a test's own: ``initdb`` into a temporary directory (trust auth,
    superuser ``postgres``), then ``postgres`` on a free port of 127.0.0.1 with its
    Unix socket in that directory and ``fsync=off``. :meth:`stop` and :meth:`start` again
    keep the data and the port (PostgreSQL down for a while); :meth:`close` kills it and
    removes the directory. As root (PostgreSQL will not run as root) both programs run
    as the ``postgres`` user, which owns the directory."""

    def __init__(self, port: int | None = None) -> None:
        self.bindir = postgres_bindir()
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="trickroom-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.user = "postgres" if os.geteuid() == 0 else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.initialised = False
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.root.chmod(0o700)

    @staticmethod
    def unavailable() -> str | None:
        """Why no PostgreSQL of a test's own can start here (None: it can)."""
        if postgres_bindir() is None:
            return "initdb and postgres are not installed (apt-get install postgresql)"
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                return "running as root, and there is no postgres user to run PostgreSQL as"
        return None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{HOST}:{self.port}/{database}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _program(self, name: str) -> str:
        assert self.bindir is not None, self.unavailable()
        return str(self.bindir / name)

    def _env(self) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8",
                "LANG": "C.UTF-8", "HOME": str(self.root)}

    def init(self) -> None:
        proc = _spawn([self._program("initdb"), "-D", str(self.data), "-U", "postgres",
                       "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
                       "--no-instructions"], user=self.user, log=self.log, env=self._env())
        if proc.wait(120) != 0:
            raise RuntimeError(f"initdb failed:\n{self.log_tail()}")
        self.initialised = True

    def start(self, timeout: float = 60.0) -> None:
        """Start (the first time, ``initdb`` first) and return once it takes queries."""
        if not self.initialised:
            self.init()
        if self.running:
            return
        self.spawn()
        try:
            self._wait_ready(timeout)
        except RuntimeError:
            self.stop("kill")
            raise

    async def start_in_loop(self, timeout: float = 60.0) -> None:
        """:meth:`start` (after the first) for a running event loop: spawned from this
        thread (see :func:`_die_with_parent`), waited for in a worker."""
        assert self.initialised
        if self.running:
            return
        self.spawn()
        try:
            await asyncio.to_thread(self._wait_ready, timeout)
        except RuntimeError:
            self.stop("kill")
            raise

    def spawn(self) -> None:
        """The postmaster only, from the caller's thread."""
        self.proc = _spawn([self._program("postgres"), "-D", str(self.data), "-p",
                            str(self.port), "-k", str(self.root),
                            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                            "-c", "full_page_writes=off",
                            "-c", "max_connections=200", "-c", "shared_buffers=32MB"],
                           user=self.user, log=self.log, env=self._env())

    def _wait_ready(self, timeout: float) -> None:
        """Until a query answers: the port opens before recovery ends ("the database system
        is starting up")."""
        assert self.proc is not None
        wait_until_answers(self.port, self.proc, "postgres", timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.sql("SELECT 1")
                return
            except RuntimeError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        raise RuntimeError(f"postgres did not take queries:\n{self.log_tail()}")

    def stop(self, mode: str = "fast") -> None:
        """Stop: ``fast`` (SIGINT: clients cut, a clean shutdown), ``immediate`` (SIGQUIT:
        clients cut, no checkpoint: crash recovery at the next start) or ``kill`` (SIGKILL
        to the postmaster and every backend at once, as a machine that lost power: also
        crash recovery)."""
        if mode == "kill":
            _kill_group(self.proc)
        else:
            _end(self.proc, {"fast": signal.SIGINT, "immediate": signal.SIGQUIT}[mode])
        self.proc = None

    def restart(self, down: float = 0.0, mode: str = "fast") -> None:
        self.stop(mode)
        time.sleep(down)
        self.start()

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run one statement with psql over TCP; its output (raise if it fails)."""
        done = subprocess.run([self._program("psql"), "-h", HOST, "-p", str(self.port), "-U",
                               "postgres", "-d", database, "-tAq", "-v", "ON_ERROR_STOP=1",
                               "-c", statement], capture_output=True, text=True, timeout=60,
                              env={**self._env(), "PGCONNECT_TIMEOUT": "5"})
        if done.returncode != 0:
            raise RuntimeError(f"psql: {statement}: {done.stderr.strip()}")
        return done.stdout.strip()

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (a fresh name unless given): its name."""
        name = name or fresh_name("t")
        self.sql(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def log_tail(self, chars: int = 3000) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-chars:]
        return ""

    def close(self) -> None:
        """Killed, and its directory removed."""
        self.stop("kill")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class OwnDatabase:
    """A fresh database on a :class:`PostgresServer` of the test's own (the ``own_postgres``
    fixture): its URL, and the server's stop and start."""

    def __init__(self, server: PostgresServer, name: str) -> None:
        self.server, self.name = server, name

    @property
    def url(self) -> str:
        return self.server.url(self.name)

    @property
    def port(self) -> int:
        return self.server.port

    def store(self, schema: str | None = None) -> str:
        """The URL a node takes as ``--store`` (in ``schema`` if given)."""
        return f"{self.url}?schema={schema}" if schema else self.url

    def stop(self, mode: str = "fast") -> None:
        self.server.stop(mode)

    def start(self) -> None:
        self.server.start()

    def restart(self, down: float = 0.0, mode: str = "fast") -> None:
        self.server.restart(down, mode)


# -- faults on the wire ---------------------------------------------------------------------


class _Link:
    """One client's connection through the proxy, and its connection to the service."""

    def __init__(self, client: asyncio.StreamWriter) -> None:
        self.client = client
        self.upstream: asyncio.StreamWriter | None = None
        self.holed = False  # bytes were dropped: its streams cannot be mended
        self.armed = False  # drop_replies(after=...): the client has sent the marker
        self.sent_tail = b""  # the end of what the client sent, for a marker across reads
        self.tasks: list[asyncio.Task[None]] = []

    def abort(self) -> None:
        for writer in (self.client, self.upstream):
            if writer is not None:
                writer.transport.abort()
        for task in self.tasks:
            if task is not asyncio.current_task():
                task.cancel()


class FaultProxy:
    """A TCP relay in this process in front of a real service (``host:port``), to break
    the wire between a client and the service while the service itself keeps running for
    everyone else. Point the client at ``127.0.0.1:<proxy.port>`` (after :meth:`start`).

    * :meth:`cut`: what a client sees when the service dies: every open connection is
      reset, and new ones are refused (the proxy stops listening) until :meth:`restore`.
    * :meth:`delay`: every byte, both ways, arrives ``seconds`` late (order kept).
    * :meth:`blackhole`: a partition: connections stay open and new ones are accepted,
      but nothing goes through either way. What was sent waits, as TCP would retransmit
      it, and arrives after :meth:`restore` if both ends still hold the connection.
    * :meth:`drop_replies`: what the client sends reaches the service, what the service
      answers is thrown away (a commit that was stored, whose acknowledgement never came).
      With ``after=b"..."``, a connection's replies are dropped only once its client has
      sent those bytes (a protocol of several round trips a request, as PostgreSQL's
      prepare then execute, gets as far as the marked one). On :meth:`restore` the
      connections that lost replies are reset: their replies have a hole.
    * :meth:`restore`: back to a plain relay.

    Each call sets the mode whole (``delay`` after ``blackhole`` lets bytes through,
    late). ``accepted``, ``open`` and ``dropped`` count connections and dropped bytes."""

    def __init__(self, port: int, host: str = HOST) -> None:
        self.target_host, self.target = host, port
        self.port = 0
        self.mode = "up"
        self.accepted = 0
        self.dropped = 0  # bytes from the service thrown away (drop_replies)
        self._delay = 0.0
        self._marker: bytes | None = None
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._listening: asyncio.Task[None] | None = None
        self._links: set[_Link] = set()

    @property
    def open(self) -> int:
        return len(self._links)

    @property
    def address(self) -> tuple[str, int]:
        return HOST, self.port

    async def start(self) -> FaultProxy:
        self._server = await asyncio.start_server(self._accept, HOST, self.port or 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aenter__(self) -> FaultProxy:
        return await self.start()

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()

    # -- modes ------------------------------------------------------------------------------

    def cut(self) -> None:
        self._set("cut", flowing=True)
        if self._server is not None:
            self._server.close()  # the listening socket: new connections are refused
            self._server = None
        for link in list(self._links):
            link.abort()
        self._links.clear()

    def restore(self) -> None:
        for link in [link for link in self._links if link.holed]:
            link.abort()
            self._links.discard(link)
        self._set("up", flowing=True)

    def delay(self, seconds: float) -> None:
        self._set("delay" if seconds > 0 else "up", flowing=True, delay=seconds)

    def blackhole(self) -> None:
        self._set("blackhole", flowing=False)

    def drop_replies(self, after: bytes | None = None) -> None:
        self._marker = after
        for link in self._links:
            link.armed, link.sent_tail = False, b""
        self._set("drop_replies", flowing=True)

    def _set(self, mode: str, flowing: bool, delay: float = 0.0) -> None:
        self.mode, self._delay = mode, delay
        if flowing:
            self._flowing.set()
        else:
            self._flowing.clear()
        if mode != "cut" and self._server is None and self.port:
            self._listen_again()

    def _listen_again(self) -> None:
        """Listen on the same port again, at once (the kernel queues connections from now),
        accepting them from the loop's next turn."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, self.port))
        sock.listen(128)
        sock.setblocking(False)

        async def serve() -> None:
            self._server = await asyncio.start_server(self._accept, sock=sock)

        self._server = None
        self._listening = asyncio.get_running_loop().create_task(serve())

    async def stop(self) -> None:
        self.cut()
        if self._listening is not None:
            with contextlib.suppress(Exception):
                await self._listening
            if self._server is not None:
                self._server.close()
                self._server = None

    # -- the relay --------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "cut":
            writer.transport.abort()
            return
        self.accepted += 1
        link = _Link(writer)
        self._links.add(link)
        try:
            await self._flowing.wait()  # a partition holds a new connection too
            if link not in self._links:
                return
            up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target)
        except (OSError, asyncio.CancelledError):
            link.abort()
            self._links.discard(link)
            return
        if link not in self._links:  # cut while connecting
            up_writer.transport.abort()
            return
        link.upstream = up_writer
        link.tasks = [asyncio.ensure_future(self._pump(link, reader, up_writer, reply=False)),
                      asyncio.ensure_future(self._pump(link, up_reader, writer, reply=True))]
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*link.tasks, return_exceptions=True)
        self._links.discard(link)

    async def _pump(self, link: _Link, src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                    reply: bool) -> None:
        """One direction: a reader of ``src`` and a writer to ``dst``, joined by a queue of
        (due time, bytes), so that a delay holds back bytes without slowing the stream."""
        queue: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def read() -> None:
            try:
                while True:
                    await self._flowing.wait()
                    data = await src.read(65536)
                    if not data:
                        break
                    if self.mode == "drop_replies":
                        if reply and (self._marker is None or link.armed):
                            link.holed = True
                            self.dropped += len(data)
                            continue
                        if not reply and self._marker is not None and not link.armed:
                            seen = link.sent_tail + data
                            link.armed = self._marker in seen
                            link.sent_tail = seen[-len(self._marker):]
                    queue.put_nowait((loop.time() + self._delay, data))
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                queue.put_nowait(None)

        async def write() -> None:
            try:
                while (item := await queue.get()) is not None:
                    due, data = item
                    if due > loop.time():
                        await asyncio.sleep(due - loop.time())
                    await self._flowing.wait()
                    dst.write(data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()  # the other direction sees its end, and ends too

        reader = asyncio.ensure_future(read())
        try:
            await write()
        finally:
            reader.cancel()


Outage = FaultProxy  # the name the first tests knew it by: cut() and restore()

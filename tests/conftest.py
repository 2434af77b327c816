"""Every message a server sends in any test is checked against the protocol's schema.

The server builds its hottest messages (events, prompts) as JSON text straight from
the engines' wire dicts, not through the models: so the schema could drift from
what is sent. This fixture records what every connection sends during a test and
validates each message with the models (``server_adapter``), and the first of each
kind with the JSON Schema ``trickroom schema`` prints (``jsonschema``), so a bot
author who validates against that file never sees a message it rejects.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from trickroom.server import sessions
from trickroom.server.protocol import json_schema, server_adapter

_SCHEMA = json_schema()
_VALIDATOR = jsonschema.Draft202012Validator(_SCHEMA["server_to_client"])
_CHECKED_BY_SCHEMA: set[str] = set()  # kinds already checked with jsonschema (once each)


def _kind(message: dict[str, Any]) -> str:
    """A message's kind, fine enough that each shape is checked once with jsonschema: an
    event by its type, a prompt or snapshot by its game and phase."""
    kind = str(message.get("type"))
    if kind == "event" and isinstance(message.get("event"), dict):
        kind += ":" + str(message["event"].get("type"))
    view = message.get("view")
    if isinstance(view, dict):
        kind += f":{view.get('game')}:{view.get('phase')}:{view.get('seat') is None}"
    return kind


def check_message(text: str) -> None:
    """Raise if ``text`` is not a message of the protocol as the schema gives it."""
    server_adapter.validate_json(text, strict=True)  # no coercion: false is not 0
    message = json.loads(text)
    kind = _kind(message)
    if kind not in _CHECKED_BY_SCHEMA:
        _VALIDATOR.validate(message)
        _CHECKED_BY_SCHEMA.add(kind)


@pytest.fixture(autouse=True)
def sent_messages_match_the_schema(request: pytest.FixtureRequest,
                                   monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    sent: list[str] = []
    if request.node.get_closest_marker("raw_messages"):  # a test of the transport itself
        yield sent
        return
    original = sessions.Connection.send_text
    original_many = sessions.Connection.send_many

    def recording(self: Any, text: Any) -> None:
        sent.append(text if isinstance(text, str) else text.text)
        original(self, text)

    def recording_many(self: Any, messages: Any) -> None:
        sent.extend(m if isinstance(m, str) else m.text for m in messages)
        original_many(self, messages)

    monkeypatch.setattr(sessions.Connection, "send_text", recording)
    monkeypatch.setattr(sessions.Connection, "send_many", recording_many)
    yield sent
    seen: set[bytes | str] = set()
    for text in sent:
        if text in seen:
            continue  # one message to many connections: checked once
        seen.add(text)
        try:
            check_message(text)
        except Exception as exc:
            pytest.fail(f"the server sent a message its schema rejects: {exc}\n{text[:500]}")


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say once which real services the cluster tests will find (tests/services.py)."""
    from tests.services import answers
    found = {name: answers("127.0.0.1", port)
             for name, port in (("postgresql", 5432), ("redis", 6379))}
    missing = [name for name, ok in found.items() if not ok]
    if not missing:
        return ["services: postgresql and redis answer; the cluster tests run"]
    return [f"services: {', '.join(missing)} not answering on 127.0.0.1: their tests skip "
            "(TRICKROOM_REQUIRE_SERVICES=1 makes them fail)"]


# -- services of a test's own, to stop and start (tests/services.py) ------------------------


@pytest.fixture
def own_redis() -> Iterator[Any]:
    """A Redis of the test's own on a free port, to restart (never the machine's), stopped
    however the test ends."""
    from tests.services import RedisServer, need
    need("redis-server")
    redis = RedisServer()
    try:
        redis.start()
        yield redis
    finally:
        redis.stop()


@pytest.fixture(scope="session")
def own_postgres_server() -> Iterator[Any]:
    """One PostgreSQL of the session's own (``initdb`` and a start cost about a second),
    killed and removed at the end of the session; tests take a database each on it
    (``own_postgres``)."""
    from tests.services import PostgresServer, need
    need("postgres-server")
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def own_postgres(own_postgres_server: Any) -> Iterator[Any]:
    """A fresh database on the session's own PostgreSQL (an ``OwnDatabase``: ``.url``,
    ``.store(schema)``, ``.stop(mode)``, ``.start()``, ``.restart(down)``), which the test
    may stop and start: it is running again, and the database dropped, however the test
    ends."""
    from tests.services import OwnDatabase
    server = own_postgres_server
    if not server.running:
        server.start()
    name = server.create_database()
    try:
        yield OwnDatabase(server, name)
    finally:
        if not server.running:
            server.start()
        server.drop_database(name)


@pytest.fixture
async def fault_proxy() -> AsyncIterator[Any]:
    """Makes started ``FaultProxy``s in front of a port (``await fault_proxy(5432)``: cut,
    delay, blackhole, drop_replies, restore), every one stopped at the end."""
    from tests.services import HOST, FaultProxy
    made: list[FaultProxy] = []

    async def make(port: int, host: str = HOST) -> FaultProxy:
        proxy = await FaultProxy(port, host).start()
        made.append(proxy)
        return proxy

    yield make
    for proxy in made:
        await proxy.stop()


# -- several workers at once (pytest-xdist: `make test` runs -n 2) ------------------------

# Tests that measure time, race leases or stop processes (the cluster's faults, SIGSTOP,
# the benches' short runs): they run alone, no other test of the run beside them.
SERIAL = ("tests/server/hub/redis/", "tests/load/", "tests/server/test_postgres.py")
ROOT = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(item.path).relative_to(ROOT).as_posix().startswith(SERIAL):
            item.add_marker(pytest.mark.serial)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Under xdist, a ``serial`` test holds the run's lock alone (set-up to teardown) and
    every other test shares it, so a serial test waits for the tests in progress and no
    test starts beside it. The serial test takes a gate first, which the others pass
    through on their way in: tests that keep coming cannot starve it."""
    base = getattr(item.config.option, "basetemp", None)
    if not os.environ.get("PYTEST_XDIST_WORKER") or not base:
        return (yield)
    run = Path(base).parent  # the run's own directory (pytest-of-<user>/pytest-<n>)
    serial = item.get_closest_marker("serial") is not None
    with open(run / "trickroom-gate.lock", "a+") as gate, \
            open(run / "trickroom-run.lock", "a+") as lock:
        fcntl.flock(gate, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        fcntl.flock(lock, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            return (yield)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)

"""A real server on an ephemeral port, with short timers, and helpers for socket players."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.services import POSTGRES, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.client import ServerError, TrickroomClient
from trickroom.server.config import load_config

FAST = dict(robot_delay=0.0, hand_pause=0.0, turn_seconds=30.0, reconnect_seconds=60.0)


@pytest.fixture
async def app(tmp_path):
    server = App(load_config(**FAST), tmp_path / "trickroom.sqlite3")
    await server.start("127.0.0.1", 0)
    yield server
    await server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
async def db(request, tmp_path):
    """Where a server's store lives, each engine in turn: an SQLite file, or a PostgreSQL
    schema of its own."""
    if request.param == "sqlite":
        yield tmp_path / "trickroom.sqlite3"
        return
    need("postgresql")
    schema = fresh_name("t_app")
    yield f"{POSTGRES}?schema={schema}"
    await drop_schema(schema)


@pytest.fixture
async def make_app(tmp_path):
    """An app with some settings changed (the limits under test, made small)."""
    apps: list[App] = []

    async def make(**settings: Any) -> App:
        app = App(load_config(**{**FAST, **settings}), tmp_path / f"db{len(apps)}.sqlite3")
        await app.start("127.0.0.1", 0)
        apps.append(app)
        return app

    yield make
    for app in apps:
        await app.stop()


def url(app: App) -> str:
    return f"ws://127.0.0.1:{app.port}/ws"


def choose(prompt: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A random legal action from a prompt; for a pass, three random cards of the hand."""
    if prompt["phase"] == "pass":
        return {"type": "pass", "cards": rng.sample(prompt["hand"], prompt["pass_count"])}
    return rng.choice(prompt["legal"])


async def play_until_over(client: TrickroomClient, table: str, rng: random.Random,
                          stop_after: int | None = None) -> dict[str, Any]:
    """Answer prompts with random legal actions until the game_over event (returned)."""
    acted = 0
    answered = -1
    async for message in client.messages():
        if message["type"] == "event" and message["event"]["type"] == "game_over":
            return message
        if message["type"] == "prompt" and message["table"] == table:
            if message["seq"] <= answered:
                continue  # a repeated prompt for a turn already answered
            answered = message["seq"]
            if stop_after is not None and acted >= stop_after:
                return message
            try:
                await client.act(table, choose(message, rng))
                acted += 1
            except ServerError as exc:
                assert exc.code in ("not_your_turn", "wrong_phase"), exc.reply
    raise AssertionError("the connection closed before the game ended")


async def seat_four(app: App, room: str, rules: dict[str, Any], clients: list[TrickroomClient]):
    """Four guests: the first creates a table, all sit; returns the table id and seat tokens."""
    for i, client in enumerate(clients):
        await client.request({"type": "guest", "name": f"p{i}"})
    reply = await clients[0].request({"type": "create_table", "room": room, "rules": rules})
    table = reply["table"]["id"]
    tokens = []
    for i, client in enumerate(clients):
        seated = await client.request({"type": "sit", "table": table, "seat": i})
        tokens.append(seated["seat_token"])
    return table, tokens


async def guests(stack: AsyncExitStack, app: App, *names: str) -> list[TrickroomClient]:
    """A connected guest for each of ``names``, in order, closed with ``stack``."""
    clients = []
    for name in names:
        client = await stack.enter_async_context(TrickroomClient.connect(url(app)))
        await client.request({"type": "guest", "name": name})
        clients.append(client)
    return clients


async def wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


async def seq_after_restart(db, table_id: str) -> int:
    """Start a server on ``db`` and return the seq its resumed table numbers events from."""
    again = App(load_config(**FAST), db)
    await again.start("127.0.0.1", 0)
    try:
        return again.lobby.tables[table_id].machine.log.seq
    finally:
        await again.stop()


async def http_get(app: App, path: str) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", app.port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, headers, body


@pytest.fixture
async def schema():
    """A PostgreSQL schema of the test's own on the machine's server, dropped after."""
    from tests.services import drop_schema, fresh_name, need
    need("postgresql")
    name = fresh_name("t_app")
    yield name
    await drop_schema(name)


async def next_pushed(client: TrickroomClient, kind: str,
                      wanted: Callable[[dict[str, Any]], bool] | None = None,
                      timeout: float = 10.0) -> dict[str, Any]:
    """The next message of ``kind`` (that ``wanted`` picks) the server pushed to the client,
    taken from what it received, so that the one after it is the next one found."""
    async with asyncio.timeout(timeout):
        while True:
            for i, message in enumerate(client.received):
                if message.get("type") == kind and (wanted is None or wanted(message)):
                    del client.received[i]
                    return message
            await asyncio.sleep(0.005)

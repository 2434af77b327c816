"""Make the databases an earlier release of trickroom left behind (run once per release; the
files are then pinned, and test_released_schemas.py migrates them).

Run it with the old release's code, from a checkout of that commit, so that its own server
writes the data the way it did::

    git worktree add --detach /tmp/old-f4b8ed6 f4b8ed6
    cd /tmp/old-f4b8ed6 && PYTHONPATH=/tmp/old-f4b8ed6 \\
        python /path/to/tests/server/store/make_fixtures.py f4b8ed6
    git worktree remove /tmp/old-f4b8ed6

It starts that release's server twice, on an SQLite file and on a PostgreSQL schema,
and plays through its socket as players do: four registered players finish a ranked
Spades game of one hand (rated: ratings, their history, who played), then sit at a
casual Spades table and make a few moves, and the server stops with that game in play.
What the server said over the socket (game ids, scores, the ratings shown, the moves it
acknowledged) goes to ``fixtures/<commit>.json``, for the test to read back. The SQLite
file is saved with small pages and no write-ahead log (the layout, not the schema, is
changed: a store opening it turns WAL on again); the PostgreSQL schema as ``pg_dump``
writes it in plain SQL, without owners or grants, its schema named ``fixture_<commit>``.

This file must import nothing of today's trickroom: it runs on the old release's code
(``server.*`` before the package moved under ``trickroom``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import json
import random
import sqlite3
import subprocess
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"
NAMES = ["ann", "bob", "cat", "dan"]
FAST = dict(robot_delay=0.0, hand_pause=0.0, turn_seconds=30.0, reconnect_seconds=60.0)
# Rules for a short game that is still a whole game: one hand (a few KB of fixture).
ONE_HAND = {"spades": {"target": 1, "mercy": 1}, "hearts": {"target": 1}}
MOVES_IN_PLAY = 10  # the game left in play: four bids and six cards
TURN = asyncio.Lock()


def old(module: str) -> Any:
    """A module of the release checked out here (the current directory), never the
    installed trickroom's."""
    root = Path.cwd()
    prefix = "trickroom.server" if (root / "trickroom" / "server").is_dir() else "server"
    loaded = importlib.import_module(f"{prefix}.{module}")
    assert Path(loaded.__file__).resolve().is_relative_to(root), (loaded.__file__, root)
    return loaded


def config() -> Any:
    """The release's default rooms, the ranked ones playing one hand."""
    base = old("config").load_config(**FAST)
    rooms = {name: dataclasses.replace(room, rules={**room.rules, **ONE_HAND[room.game]})
             if room.rated else room for name, room in base.rooms.items()}
    return dataclasses.replace(base, rooms=rooms)


async def play(client: Any, table: str, seed: int, acked: list[int],
               stop_at: int | None = None) -> dict[str, Any] | None:
    """Answer prompts with random legal actions until game over (its event, returned), or
    until the table has ``stop_at`` acknowledged moves (None)."""
    rng = random.Random(seed)
    answered = -1
    async for message in client.messages():
        if message.get("type") == "event" and message["event"]["type"] == "game_over" \
                and message.get("table") in (None, table):
            return dict(message["event"])
        if message.get("type") != "prompt" or message["table"] != table:
            continue
        if message["seq"] <= answered:
            continue
        answered = message["seq"]
        if message["phase"] == "pass":
            action = {"type": "pass", "cards": rng.sample(message["hand"],
                                                           message["pass_count"])}
        else:
            action = rng.choice(message["legal"])
        async with TURN:  # one move at a time: the count is exact when play stops
            if stop_at is not None and acked[0] >= stop_at:
                return None
            try:
                await client.act(table, action)
                acked[0] += 1
            except old("client").ServerError as exc:
                assert exc.code in ("not_your_turn", "wrong_phase"), exc.reply
    raise AssertionError("the connection closed during the game")


def game_id(client: Any, table: str) -> str:
    return str(next(m["event"]["game_id"] for m in reversed(client.received)
                    if m.get("type") == "event" and m["event"]["type"] == "game_started"
                    and m.get("table") in (None, table)))


async def table_for(clients: list[Any], room: str, rules: dict[str, Any] | None) -> str:
    request: dict[str, Any] = {"type": "create_table", "room": room}
    if rules is not None:
        request["rules"] = rules
    table = str((await clients[0].request(request))["table"]["id"])
    for seat, client in enumerate(clients):
        await client.request({"type": "sit", "table": table, "seat": seat})
    return table


async def games(target: str) -> dict[str, Any]:
    """Play the games on a server of the old release storing in ``target``; what it said."""
    app = old("app").App(config(), target)
    await app.start("127.0.0.1", 0)
    said: dict[str, Any] = {"users": NAMES}
    try:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(old("client").TrickroomClient.connect(
                f"ws://127.0.0.1:{app.port}/ws")) for _ in NAMES]
            for name, client in zip(NAMES, clients, strict=True):
                await client.request({"type": "register", "name": name,
                                      "password": f"secret-{name}"})
                await app.store.set_casual_games(name, 5)  # may sit at a ranked table
            table = await table_for(clients, "spades-zone", None)
            ends = await asyncio.wait_for(asyncio.gather(
                *(play(c, table, i, [0]) for i, c in enumerate(clients))), 120)
            end = ends[0]
            assert end is not None
            said["finished"] = {
                "id": game_id(clients[0], table), "table": table, "room": "spades-zone",
                "scores": end["scores"],
                "ratings": [{k: c[k] for k in ("player", "delta", "after")}
                            for c in end["ratings"]]}
            table = await table_for(clients, "spades", {"target": 500, "mercy": 500})
            acked = [0]
            players = [asyncio.create_task(play(c, table, 10 + i, acked, MOVES_IN_PLAY))
                       for i, c in enumerate(clients)]
            # The seat prompted after the last move stops; the others wait for none.
            await asyncio.wait(players, timeout=60, return_when=asyncio.FIRST_COMPLETED)
            for player in players:
                player.cancel()
            await asyncio.gather(*players, return_exceptions=True)
            assert acked[0] == MOVES_IN_PLAY, acked
            said["in_play"] = {"id": game_id(clients[0], table), "table": table,
                               "room": "spades", "actions": acked[0]}
            # Stopped with its players still there: a dropped seat's robot would play on.
            await app.stop()
    except BaseException:
        await app.stop()
        raise
    return said


def compact(path: Path) -> None:
    """The file with small pages and no write-ahead log: a few KB in the repository."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA page_size=512")
    conn.execute("VACUUM")
    conn.close()


async def drop_schema(schema: str) -> None:
    import asyncpg
    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


async def main(commit: str) -> None:
    FIXTURES.mkdir(exist_ok=True)
    said: dict[str, Any] = {"commit": commit}
    sqlite_file = FIXTURES / f"{commit}.sqlite"
    for leftover in FIXTURES.glob(f"{commit}.sqlite*"):
        leftover.unlink()
    said["sqlite"] = await games(str(sqlite_file))
    compact(sqlite_file)
    schema = f"fixture_{commit}"
    await drop_schema(schema)
    try:
        said["postgresql"] = await games(f"{POSTGRES}?schema={schema}")
        subprocess.run(["pg_dump", "--dbname", POSTGRES, "--schema", schema, "--no-owner",
                        "--no-privileges", "--file", str(FIXTURES / f"{commit}.sql")],
                       check=True)
    finally:
        await drop_schema(schema)
    (FIXTURES / f"{commit}.json").write_text(json.dumps(said, indent=1) + "\n")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

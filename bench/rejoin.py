"""A rejoin that replays the events missed: its cost to the server, by how far back.

A seated player who rejoins with its last ``seq`` gets every event since, each its own
frame (docs/protocol.md, "Drops and reconnects"); a table keeps ``event_log_size`` of
them (1,000). The server runs in its own process (:mod:`bench.harness`'s room file, a
Spades game long enough not to end); one guest opens a table, sits, fills it with
robots and leaves, so that the robots play on (its seat's robot too) until the table
holds ``--back`` events past a point; the guest comes back and rejoins ``--rejoins``
times from that point, each time reading to the end of the replay. Prints the server's
CPU microseconds a rejoin (from /proc) and a replayed event. Targets 127.0.0.1 only;
bounded in count and time. Ends with::

    rejoin back=<n> cpu_us_per_rejoin=<c> cpu_us_per_event=<e>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import connect

from bench.figures import command_line
from bench.harness import LOAD_CONFIG, CpuClock, Server, raise_fd_limit, request, room_file

LONG_GAME = LOAD_CONFIG.replace("rules = { mercy = 200 }",
                                "rules = { target = 1000, mercy = 1000, hand_limit = 200 }")


async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="trickroom-rejoin-") as tmp:
        config = room_file(Path(tmp), "rejoin", LONG_GAME)
        with Server(Path(tmp) / "rejoin.sqlite3", config) as server:
            ws = await connect(server.url, max_size=None, max_queue=None)
            session = (await request(ws, {"type": "guest", "name": "rejoiner"}))["session"]
            table = (await request(ws, {"type": "create_table", "room": "spades"}))["table"]
            token = (await request(ws, {"type": "sit", "table": table["id"],
                                        "seat": 0}))["seat_token"]
            await request(ws, {"type": "fill_robots", "table": table["id"], "level": "random"})
            await ws.close()  # away: the seat's robot plays on with the others
            # (Every socket here reads without bound, max_queue=None: one whose frames pile
            # up unread would wait out its closing handshake's timeout.)
            # A watcher, until the table holds enough events.
            async with connect(server.url, max_size=None, max_queue=None) as watcher:
                await request(watcher, {"type": "guest", "name": "watcher"})
                seq = int((await request(watcher, {"type": "watch",
                                                   "table": table["id"]}))["seq"])
                deadline = time.monotonic() + 60
                while seq <= args.back + 10 and time.monotonic() < deadline:
                    seq = max(seq, int(json.loads(await watcher.recv()).get("seq", 0)))
            ws = await connect(server.url, max_size=None, max_queue=None)
            await request(ws, {"type": "resume", "token": session})
            rejoin = {"type": "rejoin", "table": table["id"], "seat_token": token}
            seq = int((await request(ws, {**rejoin, "last_seq": 0}))["seq"])  # back: it waits
            back = min(args.back, seq - 1)
            cpu, events = CpuClock(server.pid), 0
            for _ in range(args.rejoins):
                await ws.send(json.dumps({**rejoin, "last_seq": seq - back, "id": 8}))
                await ws.send(json.dumps({"type": "ping", "id": 9}))
                while json.loads(await ws.recv()).get("type") != "pong":
                    events += 1
            cost = cpu.us_per(args.rejoins)
            await ws.close()
    per_event = cost / max(1, events / args.rejoins)
    print(f"{args.rejoins} rejoins replaying {back} events each ({events / args.rejoins:.0f} "
          f"frames): {cost:.0f} us of server CPU a rejoin, {per_event:.2f} us an event")
    print(f"rejoin back={back} cpu_us_per_rejoin={cost:.0f} cpu_us_per_event={per_event:.2f}")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = command_line(__doc__)
    parser.add_argument("--back", type=int, default=900,
                        help="events each rejoin replays (default 900; the log holds 1,000)")
    parser.add_argument("--rejoins", type=int, default=50, help="rejoins (default 50)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))

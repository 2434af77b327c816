"""A rejoin that replays the events missed: its cost to the server, by how far back.

A seated player who rejoins with its last ``seq`` gets every event since, each its own
frame (docs/protocol.md, "Drops and reconnects"); a table keeps ``event_log_size`` of
them (1,000). The server runs in its own process (``bench/load.py``'s room file, a
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

from load import LOAD_CONFIG, Server, cpu_seconds, raise_fd_limit, request
from websockets.asyncio.client import connect

LONG_GAME = LOAD_CONFIG.replace("rules = { mercy = 200 }",
                                "rules = { target = 5000, mercy = 5000 }")



async def main(args: argparse.Namespace) -> int:
    raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="trickroom-rejoin-") as tmp:
        config = Path(tmp) / "rejoin.toml"
        config.write_text(LONG_GAME)
        server = Server(Path(tmp) / "rejoin.sqlite3", config)
        server.start()
        try:
            ws = await connect(server.url, max_size=None)
            session = (await request(ws, {"type": "guest", "name": "rejoiner"}))["session"]
            table = (await request(ws, {"type": "create_table", "room": "spades"}))["table"]
            token = (await request(ws, {"type": "sit", "table": table["id"],
                                        "seat": 0}))["seat_token"]
            await request(ws, {"type": "fill_robots", "table": table["id"], "level": "random"})
            await ws.close()  # away: the seat's robot plays on with the others
            async with connect(server.url, max_size=None) as watcher:  # until enough events
                await request(watcher, {"type": "guest", "name": "watcher"})
                seq = int((await request(watcher, {"type": "watch",
                                                   "table": table["id"]}))["seq"])
                deadline = time.monotonic() + 60
                while seq <= args.back + 10 and time.monotonic() < deadline:
                    seq = max(seq, int(json.loads(await watcher.recv()).get("seq", 0)))
            ws = await connect(server.url, max_size=None)
            await request(ws, {"type": "resume", "token": session})
            rejoin = {"type": "rejoin", "table": table["id"], "seat_token": token}
            seq = int((await request(ws, {**rejoin, "last_seq": 0}))["seq"])  # back: it waits
            back = min(args.back, seq - 1)
            cpu0, events = cpu_seconds(server.pid), 0
            for _ in range(args.rejoins):
                await ws.send(json.dumps({**rejoin, "last_seq": seq - back, "id": 8}))
                await ws.send(json.dumps({"type": "ping", "id": 9}))
                while json.loads(await ws.recv()).get("type") != "pong":
                    events += 1
            cost = (cpu_seconds(server.pid) - cpu0) * 1e6 / args.rejoins
            await ws.close()
        finally:
            server.stop()
    per_event = cost / max(1, events / args.rejoins)
    print(f"{args.rejoins} rejoins replaying {back} events each ({events / args.rejoins:.0f} "
          f"frames): {cost:.0f} us of server CPU a rejoin, {per_event:.2f} us an event")
    print(f"rejoin back={back} cpu_us_per_rejoin={cost:.0f} cpu_us_per_event={per_event:.2f}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--back", type=int, default=900,
                        help="events each rejoin replays (default 900; the log holds 1,000)")
    parser.add_argument("--rejoins", type=int, default=50, help="rejoins (default 50)")
    sys.exit(asyncio.run(main(parser.parse_args())))

"""How soon ``/readyz`` follows the database or Redis going away and coming back.

A cluster node (``trickroom serve --store ... --cluster ...`` in its own process) reaches
the machine's PostgreSQL and Redis each through a fault proxy (``tests/services.py``'s
:class:`FaultProxy`); a probe asks ``/readyz`` every 50 ms, as a quick proxy would. Each
service is cut ``cycles`` times: the seconds from the cut until the node answers 503, and
from the restore until it answers 200 again. The last line::

    readiness unready_max_s=<a> ready_again_max_s=<b> cycles=<n>

The issue's bound is 2 s each way (``trickroom/server/readiness.py``: a check's bound plus
how long an answer is kept).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from rich.console import Console

from bench.faults import Services
from bench.figures import command_line
from bench.harness import HOST, Server, free_port, room_file
from tests.services import FaultProxy

PROBE = 0.05  # seconds between probes


def ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/readyz", timeout=5) as answer:
            return bool(answer.status == 200)
    except urllib.error.HTTPError as exc:
        return exc.code != 503
    except OSError:
        return False


async def until(port: int, want: bool, limit: float = 30.0) -> float:
    """Seconds until ``/readyz`` says ``want``."""
    started = time.monotonic()
    while await asyncio.to_thread(ready, port) != want:
        if time.monotonic() - started > limit:
            return float("inf")
        await asyncio.sleep(PROBE)
    return time.monotonic() - started


async def main(cycles: int) -> int:
    console = Console()
    services = Services()
    postgres, redis = FaultProxy(5432), FaultProxy(6379)
    await postgres.start()
    await redis.start()
    unready: list[float] = []
    again: list[float] = []
    with tempfile.TemporaryDirectory(prefix="trickroom-readiness-") as tmp:
        config = room_file(Path(tmp), "readiness", settings=[])
        port = free_port()
        node = Server(f"postgresql://postgres@{HOST}:{postgres.port}/test?schema="
                      f"{services.schema}", config, port=port,
                      extra=("--cluster", f"redis://{HOST}:{redis.port}/0", "--cluster-prefix",
                             services.prefix))
        try:
            await asyncio.to_thread(node.start)  # (the proxies run on this loop)
            await until(port, True)
            for cycle in range(cycles):
                for name, proxy in (("PostgreSQL", postgres), ("Redis", redis)):
                    proxy.cut()
                    unready.append(await until(port, False))
                    proxy.restore()
                    again.append(await until(port, True))
                    console.print(f"  {cycle + 1}: {name} cut: unready after "
                                  f"{unready[-1]:.2f} s; restored: ready after {again[-1]:.2f} s")
        finally:
            await asyncio.to_thread(node.stop)
            await postgres.stop()
            await redis.stop()
            await services.clean()
    print(f"readiness unready_max_s={max(unready):.2f} ready_again_max_s={max(again):.2f} "
          f"cycles={cycles}", flush=True)
    return 0


if __name__ == "__main__":
    parser = command_line(__doc__)
    parser.add_argument("--cycles", type=int, default=5)
    sys.exit(asyncio.run(main(parser.parse_args().cycles)))

"""Redis restarts under load: it keeps nothing, so every lease, listing and subscription is
gone; the nodes take their leases and subscriptions again, and the players see a pause at
most: no error, no lost action. (A table's events in flight while Redis restarts may be
lost to clients of other nodes: their node makes them rejoin when its subscription comes
back, or, as a player's client does, they rejoin after hearing nothing for a while.)"""

from __future__ import annotations

import time
from pathlib import Path

from tests.load.conftest import bench_module
from tests.services import RedisServer, need


async def test_a_redis_restart_under_load_costs_no_error_and_no_action(tmp_path):
    need("postgresql")
    cluster = bench_module("cluster")
    load = bench_module("load")
    redis = RedisServer()
    redis.start()

    def restart() -> None:
        redis.stop()
        time.sleep(0.2)  # down for a moment: writes and relays wait for it
        redis.start()

    services = cluster.Services(redis.url)
    config = Path(tmp_path) / "cluster.toml"
    config.write_text(load.with_settings(load.LOAD_CONFIG, cluster.CLUSTER_SETTINGS))
    try:
        out = await cluster.fault_phase(services, config, tables=4, kills=2, gap=2.5, seed=5,
                                        console=cluster.Console(quiet=True),
                                        restart_redis=restart)
    finally:
        await services.clean()
        redis.stop()
    assert out["acked"] > 100, out
    assert out["acked_lost"] == 0, out
    assert out["errors"] == {}, out  # a pause, never an error

"""Real faults under load, the short form of bench/cluster.py's: nodes die (SIGKILL) and
their tables run again on the others; Redis restarts, keeping nothing, and the nodes take
their leases and subscriptions again. No action a player saw acknowledged is lost, and a
Redis restart costs the players a pause at most, never an error. (A table's events in
flight while Redis restarts may be lost to clients of other nodes: their node makes them
rejoin when its subscription comes back, or, as a player's client does, they rejoin after
hearing nothing for a while.)"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console

from bench.faults import CLUSTER_SETTINGS, Services, fault_phase
from bench.harness import LOAD_CONFIG, with_settings
from tests.services import need


def cluster_config(tmp_path: Path) -> Path:
    """The load bench's rooms, with the cluster's short leases."""
    config = tmp_path / "cluster.toml"
    config.write_text(with_settings(LOAD_CONFIG, CLUSTER_SETTINGS))
    return config


async def test_sigkilled_nodes_lose_no_acknowledged_action_and_their_tables_move(tmp_path):
    need("postgresql")
    need("redis")
    services = Services()
    try:
        out = await fault_phase(services, cluster_config(tmp_path), tables=4, kills=3, gap=2.0,
                                seed=3, console=Console(quiet=True))
    finally:
        await services.clean()
    assert out["acked"] > 100  # the bots did play between the kills
    assert out["acked_lost"] == 0, out
    assert out["moved"] > 0, out  # some kill did land on a node that owned tables
    assert out["unfinished"] == 0, out  # every game finished, on whichever node


async def test_a_redis_restart_under_load_costs_no_error_and_no_action(tmp_path, own_redis):
    # own_redis: tests/conftest.py
    need("postgresql")

    def restart() -> None:
        own_redis.stop()
        time.sleep(0.2)  # down for a moment: writes and relays wait for it
        own_redis.start()

    services = Services(own_redis.url)
    try:
        out = await fault_phase(services, cluster_config(tmp_path), tables=4, kills=2, gap=2.5,
                                seed=5, console=Console(quiet=True), restart_redis=restart)
    finally:
        await services.clean()
    assert out["acked"] > 100, out
    assert out["acked_lost"] == 0, out
    assert out["errors"] == {}, out  # a pause, never an error

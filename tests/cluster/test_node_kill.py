"""Nodes die under load (SIGKILL): their tables run again on the others within seconds, and
no action a player saw acknowledged is lost (the short form of bench/cluster.py's faults)."""

from __future__ import annotations

from pathlib import Path

from tests.load.conftest import bench_module
from tests.services import need


async def test_sigkilled_nodes_lose_no_acknowledged_action_and_their_tables_move(tmp_path):
    need("postgresql")
    need("redis")
    cluster = bench_module("cluster")
    load = bench_module("load")
    services = cluster.Services()
    config = Path(tmp_path) / "cluster.toml"
    config.write_text(load.with_settings(load.LOAD_CONFIG, cluster.CLUSTER_SETTINGS))
    try:
        out = await cluster.fault_phase(services, config, tables=4, kills=3, gap=2.0, seed=3,
                                        console=cluster.Console(quiet=True))
    finally:
        await services.clean()
    assert out["acked"] > 100  # the bots did play between the kills
    assert out["acked_lost"] == 0, out
    assert out["moved"] > 0, out  # some kill did land on a node that owned tables
    assert out["failover_max"] < 5.0, out
    assert out["unfinished"] == 0, out  # every game finished, on whichever node

"""One PostgreSQL database serves one cluster. A node started on it with another
``--cluster-prefix`` (or another Redis database) sees none of the cluster's leases, so it
would take every table of the cluster over: it refuses to start instead, saying which
cluster the database belongs to and what to do."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from tests.server.conftest import FAST, url, wait_for
from tests.server.hub.conftest import LEASE, drop_keys
from tests.server.test_seats import solo_table
from tests.services import POSTGRES, REDIS, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.client import TrickroomClient
from trickroom.server.config import load_config
from trickroom.server.store import StoreError
from trickroom.server.store.postgres import OtherCluster, PostgresStore


@pytest.fixture
async def one_schema():
    """Nodes on one PostgreSQL schema, each with the Redis prefix it is given; every
    prefix's keys and the schema are dropped at the end."""
    need("postgresql")
    need("redis")
    schema = fresh_name("t_prefix")
    prefixes: set[str] = set()
    apps: list[App] = []

    def node(prefix: str) -> App:
        prefixes.add(prefix)
        app = App(load_config(**FAST, **LEASE), f"{POSTGRES}?schema={schema}", cluster=REDIS,
                  cluster_prefix=prefix)
        apps.append(app)
        return app

    yield node
    for app in apps:
        with contextlib.suppress(Exception):
            await app.stop()
        with contextlib.suppress(Exception):
            await app.store.close()
        with contextlib.suppress(Exception):
            await app.hub.bus.redis.aclose()
    for prefix in prefixes:
        await drop_keys(prefix)
    await drop_schema(schema)


async def test_a_node_with_another_prefix_refuses_the_database_and_takes_no_table(one_schema):
    real, stray = fresh_name("trreal"), fresh_name("trstray")
    owner = one_schema(real)
    await owner.start("127.0.0.1", 0)
    async with TrickroomClient.connect(url(owner)) as player:
        table, _ = await solo_table(player, rules={"target": 100, "mercy": 100},
                                    level="heuristic", name="p")
        machine = owner.lobby.tables[table].machine
        await wait_for(lambda: machine.state.game is not None)

        other = one_schema(stray)
        with pytest.raises(StoreError) as refused:
            await other.start("127.0.0.1", 0)
        said = str(refused.value)
        assert real in said and stray in said and "--cluster-prefix" in said
        assert "\n" not in said  # one line, for the host's terminal

        # Two scans and more, the time a take-over would need: the table stays its owner's.
        await asyncio.sleep(LEASE["lease_seconds"] * 2)
        assert table not in other.lobby.tables and other.hub.leases.takeovers == 0
        assert table in owner.lobby.tables and owner.hub.leases.epochs[table] == 1

    # The cluster's own prefix still joins it.
    again = one_schema(real)
    await again.start("127.0.0.1", 0)


async def test_of_nodes_of_three_clusters_starting_at_once_only_the_first_cluster_s_join():
    """Another prefix, or the same prefix on another Redis database (whose leases the
    cluster does not see either), is another cluster."""
    need("postgresql")
    schema = fresh_name("t_prefix")
    clusters = [("tra", 0), ("trb", 0), ("tra", 1), ("tra", 0), ("trb", 0), ("tra", 1)]
    stores = [PostgresStore(f"{POSTGRES}?schema={schema}") for _ in clusters]
    try:
        for store in stores:
            await store.open()
        joined = await asyncio.gather(*(store.join_cluster(prefix, db) for store, (prefix, db)
                                        in zip(stores, clusters, strict=True)),
                                      return_exceptions=True)
        first = {cluster for cluster, result in zip(clusters, joined, strict=True)
                 if result is None}
        assert len(first) == 1 and sum(result is None for result in joined) == 2
        refusals = [result for result in joined if result is not None]
        assert all(isinstance(result, OtherCluster) for result in refusals)
        if first != {("tra", 1)}:
            assert any("on Redis database 1" in str(result) for result in refusals)
    finally:
        for store in stores:
            await store.close()
        await drop_schema(schema)

"""Servers to run the hub's tests on: one process (``LocalHub``), or nodes of a cluster
(``RedisHub``), each an App of its own, on one real PostgreSQL schema and one real Redis
key prefix made for the test and removed after it (tests/services.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.server.conftest import FAST
from tests.services import POSTGRES, REDIS, drop_schema, fresh_name, need
from trickroom.server.app import App
from trickroom.server.config import load_config

LEASE = dict(lease_seconds=2.0, forward_seconds=3.0)  # a loaded 2-core machine renews late


async def drop_keys(prefix: str) -> None:
    import redis.asyncio as aioredis
    client = aioredis.from_url(REDIS)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


class Cluster:
    """Starts nodes on one store and one Redis prefix; stops every one left at the end."""

    def __init__(self, schema: str, prefix: str) -> None:
        self.store = f"{POSTGRES}?schema={schema}"
        self.prefix = prefix
        self.nodes: list[App] = []

    async def node(self, redis: str = REDIS, store: str | None = None, **settings) -> App:
        """A node (its Redis or its store may be reached through a fault proxy: the URL
        of one in front of the same service)."""
        app = App(load_config(**FAST, **LEASE, **settings), store or self.store,
                  cluster=redis, cluster_prefix=self.prefix)
        await app.start("127.0.0.1", 0)
        self.nodes.append(app)
        return app

    async def stop(self) -> None:
        for app in self.nodes:
            try:
                await asyncio.wait_for(app.stop(), 60)
            except TimeoutError:  # a node that does not stop: say where each task waits
                stacks = "\n".join(f"{t.get_name()}: {t.get_stack(limit=8)}"
                                    for t in asyncio.all_tasks())
                raise AssertionError(f"a node did not stop within 60 s; tasks:\n{stacks}") from None
            except Exception:
                pass


@pytest.fixture
async def cluster():
    need("postgresql")
    need("redis")
    schema, prefix = fresh_name("t_cluster"), fresh_name("trt")
    made = Cluster(schema, prefix)
    yield made
    await made.stop()
    await drop_keys(prefix)
    await drop_schema(schema)


class OneProcess:
    """A server of one process: every node of it is the one App (a cluster of one)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.apps: list[App] = []

    async def nodes(self, count: int = 2, **settings) -> list[App]:
        app = App(load_config(**{**FAST, **settings}), self.db / f"db{len(self.apps)}.sqlite3")
        await app.start("127.0.0.1", 0)
        self.apps.append(app)
        return [app] * count

    async def stop(self) -> None:
        for app in self.apps:
            await app.stop()


class Nodes:
    """A server of several nodes, each its own App, joined by Redis."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    async def nodes(self, count: int = 2, **settings) -> list[App]:
        return [await self.cluster.node(**settings) for _ in range(count)]


@pytest.fixture(params=["local", "redis"])
async def server(request, tmp_path):
    """What the hub contract runs on: ``await server.nodes(2, **settings)`` gives two nodes
    of one server, the same App twice for "local" and two Apps for "redis"."""
    if request.param == "local":
        made = OneProcess(tmp_path)
        yield made
        await made.stop()
        return
    need("postgresql")
    need("redis")
    schema, prefix = fresh_name("t_hub"), fresh_name("trh")
    cluster = Cluster(schema, prefix)
    yield Nodes(cluster)
    await cluster.stop()
    await drop_keys(prefix)
    await drop_schema(schema)

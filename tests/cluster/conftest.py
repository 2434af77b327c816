"""Nodes of a cluster in one test: each an App of its own, on one real PostgreSQL schema and
one real Redis key prefix made for the test and removed after it (tests/services.py)."""

from __future__ import annotations

import contextlib

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

    async def node(self, **settings) -> App:
        app = App(load_config(**FAST, **LEASE, **settings), self.store, cluster=REDIS,
                  cluster_prefix=self.prefix)
        await app.start("127.0.0.1", 0)
        self.nodes.append(app)
        return app

    async def stop(self) -> None:
        for app in self.nodes:
            with contextlib.suppress(Exception):
                await app.stop()


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

"""``/readyz`` on a cluster node: unready while Redis does not answer, ready again once it
does (issue 34); the database's side is tests/server/test_readiness.py."""

from __future__ import annotations

from tests.server.hub.redis.test_partitions import through
from tests.server.test_readiness import until_status


async def test_a_node_cut_off_from_redis_is_unready_until_redis_answers(cluster, fault_proxy):
    redis = await fault_proxy(6379)
    node = await cluster.node(redis=through(redis, "redis"))
    other = await cluster.node()
    await until_status(node, 200)
    redis.cut()
    body = await until_status(node, 503)
    assert [p.split(":")[0] for p in body["problems"]] == ["the cluster"]
    await until_status(other, 200)  # the others serve on
    redis.restore()
    await until_status(node, 200)

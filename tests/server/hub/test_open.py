"""The app picks its hub once, at start: one process's, or a cluster node's on a store the
nodes can share."""

from __future__ import annotations

import pytest

from trickroom.server.app import App
from trickroom.server.config import load_config
from trickroom.server.hub.local import LocalHub


def test_a_server_without_a_cluster_is_a_cluster_of_one(tmp_path):
    app = App(load_config(), tmp_path / "one.sqlite3")
    assert isinstance(app.hub, LocalHub) and app.hub.description() == "one process"


def test_a_cluster_on_an_sqlite_file_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="share one PostgreSQL store"):
        App(load_config(), tmp_path / "node.sqlite3", cluster="redis://127.0.0.1:6379/0")


def test_a_node_names_its_redis_in_the_start_up_line_without_the_password():
    from trickroom.server.hub.redis.hub import RedisHub
    from trickroom.server.store import open_store

    settings = load_config().settings
    hub = RedisHub("redis://:s3cret@127.0.0.1:6379/0", "trickroom",
                   open_store("postgresql://nobody@127.0.0.1/none"), settings)
    said = hub.description()
    assert "s3cret" not in said and "127.0.0.1:6379" in said


async def test_a_node_whose_redis_never_answered_stops_cleanly(cluster):
    """Its start failed before it had a number: stopping it lets go of its connections
    and raises nothing (the command stops whatever had started, then says why)."""
    from tests.services import free_port
    from trickroom.server.hub.redis.bus import ClusterUnavailable

    app = App(load_config(), cluster.store, cluster=f"redis://127.0.0.1:{free_port()}/0",
              cluster_prefix=cluster.prefix)
    with pytest.raises(ClusterUnavailable):
        await app.start("127.0.0.1", 0)
    await app.stop()

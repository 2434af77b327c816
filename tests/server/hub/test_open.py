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

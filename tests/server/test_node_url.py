"""Where a node says its players reach it (``node_url``): nowhere once it has stopped
serving. A lease renewal at shutdown asked it, and ``App.port`` failed on the closed
server's empty socket list (an IndexError in the node's log at every stop)."""

from __future__ import annotations

from tests.server.conftest import FAST
from trickroom.server.app import App, _Node
from trickroom.server.config import load_config


async def test_a_stopped_node_says_it_is_nowhere(tmp_path):
    app = App(load_config(**FAST, node_url="ws://127.0.0.1:{port}/ws"), tmp_path / "n.sqlite3")
    await app.start("127.0.0.1", 0)
    host = _Node(app)
    assert host.url() == f"ws://127.0.0.1:{app.port}/ws"
    await app.stop()
    assert host.url() is None

"""Every log line is one JSON object naming its node, with URLs masked (issue 34)."""

from __future__ import annotations

import json
import logging

from trickroom.server import logs


def test_a_log_line_is_json_naming_its_node_with_secrets_masked(monkeypatch):
    monkeypatch.setitem(logs.NODE, "id", "417")
    record = logging.LogRecord("trickroom.cluster", logging.WARNING, __file__, 1,
                               "cannot reach %s", ("postgresql://app:hunter2@db/trickroom",),
                               None)
    line = json.loads(logs.JsonFormatter().format(record))
    assert line["node"] == "417" and line["level"] == "warning"
    assert line["logger"] == "trickroom.cluster"
    assert "hunter2" not in line["msg"] and "postgresql://" in line["msg"]


async def test_a_server_names_itself_in_its_logs_once_started(app):
    assert logs.NODE["id"] == "single"  # a cluster node: its number (hub.node_name)

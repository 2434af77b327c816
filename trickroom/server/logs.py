"""Structured logs: one JSON object a line on standard error, each naming the node that
wrote it (a cluster's logs are read together), every URL in it masked (ours are masked
where they are written; this catches a library's message that quotes one)."""

from __future__ import annotations

import json
import logging
import sys

from trickroom.server.urls import masked

NODE = {"id": "-"}  # this process's node, once it has one (``Hub.node_name``)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": round(record.created, 3), "level": record.levelname.lower(),
               "node": NODE["id"], "logger": record.name, "msg": masked(record.getMessage())}
        if record.exc_info:
            out["exc"] = masked(self.formatException(record.exc_info))
        return json.dumps(out)


def setup_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler])

"""What the nodes of one server share, behind one port (DESIGN section 11).

:mod:`.port` declares it; :class:`.local.LocalHub` is a server of one process (a
cluster of one) and :class:`.redis.hub.RedisHub` a node of a cluster joined by
Redis. The application picks one at start with :func:`open_hub`; nothing else
asks which it has.
"""

from __future__ import annotations

from trickroom.server.config import ServerSettings
from trickroom.server.hub.local import LocalHub
from trickroom.server.hub.port import Hub
from trickroom.server.hub.redis.hub import RedisHub
from trickroom.server.store import Store


def open_hub(cluster: str | None, prefix: str, store: Store, settings: ServerSettings) -> Hub:
    """The hub of a node of the cluster on Redis ``cluster``, or of one process (None).

    Raises ``ValueError`` for a cluster on a store its nodes cannot share (SQLite)."""
    if cluster is None:
        return LocalHub(store, settings)
    if not store.shared:
        raise ValueError("a cluster's nodes share one PostgreSQL store: give a "
                         "postgresql:// store with the cluster's Redis")
    return RedisHub(cluster, prefix, store, settings)

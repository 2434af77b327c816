"""Prometheus metrics, served as text at ``GET /metrics``."""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.connections = Gauge("trickroom_connections", "open WebSocket connections",
                                 registry=r)
        self.tables = Gauge("trickroom_tables", "tables open", registry=r)
        self.actions = Counter("trickroom_actions", "game actions accepted", registry=r)
        self.action_seconds = Histogram(
            "trickroom_action_seconds", "apply, persist and broadcast one action", registry=r,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0))
        self.errors = Counter("trickroom_errors", "errors sent to clients", ["code"],
                              registry=r)
        self.games_started = Counter("trickroom_games_started", "games started", registry=r)
        self.games_finished = Counter("trickroom_games_finished", "games finished", registry=r)
        self.logged_events = Gauge("trickroom_logged_events",
                                   "events the open tables keep for rejoins (bounded per table)",
                                   registry=r)
        self.tables_closed = Counter("trickroom_tables_closed", "tables closed", registry=r)
        self.messages_delayed = Counter("trickroom_messages_delayed",
                                        "messages read late: their socket or address was over "
                                        "its message rate", registry=r)
        self.passwords_checked = Counter("trickroom_passwords_checked",
                                         "passwords hashed to check a login", registry=r)
        self.logins_throttled = Counter("trickroom_logins_throttled",
                                        "logins refused by the back-off, unchecked", registry=r)
        self.robot_moves = Counter("trickroom_robot_moves", "searching robots' moves: "
                                   "searched, or the heuristic's (over a budget, the queue "
                                   "full)", ["how"], registry=r)
        self.robot_seconds = Counter("trickroom_robot_seconds", "processor seconds "
                                     "searching robots thought", registry=r)
        self.reviews_built = Counter("trickroom_reviews_built", "game reviews replayed and "
                                     "encoded (each finished game's once, while it stays "
                                     "in the cache)", registry=r)
        self.review_cache_bytes = Gauge("trickroom_review_cache_bytes",
                                        "encoded game reviews kept for the next request",
                                        registry=r)

        # What a cluster node does for the others (all zero on a server of one process).
        self.leases = Gauge("trickroom_cluster_leases", "tables this node holds the lease of",
                            registry=r)
        self.takeovers = Counter("trickroom_cluster_takeovers", "tables this node took over "
                                 "(a failover, or handed to it)", registry=r)
        self.handed_over = Counter("trickroom_cluster_handed_over", "tables this node handed "
                                   "to another between two moves (a drain)", registry=r)
        self.tables_lost = Counter("trickroom_cluster_tables_lost", "tables this node found "
                                   "another had taken (it was paused or cut off)", registry=r)
        self.forwards = Counter("trickroom_cluster_forwards", "requests forwarded to the "
                                "node of their table over Redis", registry=r)
        self.renew_seconds = Histogram(
            "trickroom_cluster_renew_seconds", "one renewal of every lease: a round trip to "
            "Redis", registry=r, buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.25, 1.0))
        self.draining = Gauge("trickroom_draining", "1 while this node hands its tables over "
                              "before it stops", registry=r)
        self.commit_seconds = Histogram(
            "trickroom_store_commit_seconds", "one group commit of the store", registry=r,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 2.0))
        self.heap_trim_seconds = Histogram(
            "trickroom_heap_trim_seconds", "one hand-back of the C allocator's free pages "
            "(server/heap.py), in a worker thread", registry=r,
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.25, 1.0))

    def render(self) -> bytes:
        return generate_latest(self.registry)


METRICS = Metrics()

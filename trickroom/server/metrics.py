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

    def render(self) -> bytes:
        return generate_latest(self.registry)


METRICS = Metrics()

"""The lobby: rooms, their tables, who is subscribed to which room, and chat ignores."""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from game.engine import ENGINES
from server.config import Config, ConfigError
from server.metrics import METRICS
from server.protocol import ProtocolError
from server.ranked import Ranked
from server.ranked_table import RankedTable
from server.store import SqliteStore
from server.table import Client, Shared, Table

log = logging.getLogger("trickroom.lobby")


class Lobby:
    def __init__(self, config: Config, store: SqliteStore, ranked: Ranked,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.settings = config.settings
        self.rooms = config.rooms
        self.store = store
        self.clock = clock
        self.tables: dict[str, Table] = {}
        self.subscribers: dict[str, set[Client]] = defaultdict(set)
        self.ignores: dict[str, set[str]] = defaultdict(set)
        self.ranked = ranked
        self.queues: dict[str, list[Any]] = defaultdict(list)  # room -> queued connections
        self.queue_joins: dict[str, list[float]] = defaultdict(list)

    def room(self, name: str) -> Any:
        room = self.rooms.get(name)
        if room is None:
            raise ProtocolError("not_found",
                                f"no room {name!r}; rooms: {', '.join(sorted(self.rooms))}")
        return room

    def table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("not_found", f"no table {table_id!r}")
        return table

    def rooms_info(self) -> list[dict[str, Any]]:
        return [{"name": r.name, "game": r.game, "rated": r.rated, "system": r.system,
                 "rules": json.loads(json.dumps(r.make_rules().__dict__)),
                 "tables": sum(1 for t in self.tables.values() if t.room.name == r.name)}
                for r in self.rooms.values()]

    def tables_info(self, room: str) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.room.name == room]

    def new_table(self, room_name: str, rules: dict[str, Any], seating: str,
                  table_id: str | None = None) -> Table:
        room = self.room(room_name)
        try:
            made = room.make_rules(rules)
        except ConfigError as exc:
            raise ProtocolError("invalid_field", f"rules: {exc}") from None
        args = (table_id or secrets.token_urlsafe(6), room, self.settings, self.store, made,
                seating, self.on_change, self.clock)
        table = RankedTable(*args, ranked=self.ranked) if room.rated else Table(*args)
        self.tables[table.id] = table
        table.start()
        METRICS.tables.set(len(self.tables))
        self.on_change(table)
        return table

    def on_change(self, table: Table) -> None:
        """Push a table's new state to everyone subscribed to its room."""
        subscribers = self.subscribers.get(table.room.name)
        if not subscribers:
            return
        update = Shared(json.dumps({"type": "table_update", "table": table.info()}))
        for client in subscribers:
            client.send_text(update)

    def unsubscribe(self, client: Client) -> None:
        for subs in self.subscribers.values():
            subs.discard(client)
        for room, queue in self.queues.items():
            if client in queue:
                queue.remove(client)
                self._queue_status(room)

    # -- the random queue ------------------------------------------------------------------------

    async def queue_join(self, client: Any, room_name: str, request_id: Any) -> None:
        """Queue for a ranked room; four eligible players are seated at random."""
        room = self.room(room_name)
        if not room.rated:
            raise ProtocolError("invalid_field", "the random queue is for ranked rooms; "
                                                 "casual tables are in the table list")
        await self.ranked.check_eligible(client.name, client.guest)
        queue = self.queues[room_name]
        if any(c.name == client.name for c in queue):
            raise ProtocolError("invalid_field", "you are already in this queue")
        queue.append(client)
        joins = self.queue_joins[room_name]
        joins.append(self.clock())
        del joins[:-20]
        if len(queue) >= 4:
            await self._match(room_name)
        self._queue_status(room_name, client, request_id)

    def queue_leave(self, client: Any, room_name: str, request_id: Any) -> None:
        queue = self.queues[room_name]
        if client in queue:
            queue.remove(client)
        self._queue_status(room_name, client, request_id)

    async def _match(self, room_name: str) -> None:
        queue = self.queues[room_name]
        players = secrets.SystemRandom().sample(queue, 4)
        for player in players:
            queue.remove(player)
        table = self.new_table(room_name, {}, "random_queue")
        seats = secrets.SystemRandom().sample(range(4), 4)
        for player, seat in zip(players, seats, strict=True):
            index, token = await table.call(table.do_sit_reserved, player, seat)
            player.tables.add(table.id)
            player.send({"type": "seated", "id": None, "table": table.id, "seat": index,
                         "seat_token": token})
        await table.call(table.do_start_if_full)

    def _queue_status(self, room_name: str, asker: Any = None, request_id: Any = None) -> None:
        queue = self.queues[room_name]
        joins = self.queue_joins[room_name]
        expected = None
        if len(joins) >= 2 and joins[-1] > joins[0]:
            gap = (joins[-1] - joins[0]) / (len(joins) - 1)
            expected = round(gap * max(0, 4 - len(queue)), 1)
        for client in {*queue, *([asker] if asker else [])}:
            client.send({"type": "queue_status", "id": request_id if client is asker else None,
                         "room": room_name, "queued": client in queue, "length": len(queue),
                         "expected_wait": expected})

    def room_chat(self, client: Client, room: str, text: str) -> None:
        self.room(room)
        message = Shared(json.dumps({"type": "chat", "name": client.name, "text": text,
                                     "room": room}))
        for other in self.subscribers.get(room, ()):
            if client.name not in self.ignores.get(other.name, set()):
                other.send_text(message)

    async def restore(self) -> int:
        """Load unfinished games and resume their tables (DESIGN section 9)."""
        stored_games = await self.store.unfinished_games()
        for stored in stored_games:
            if stored.room not in self.rooms:
                log.warning("game %s: room %s is no longer configured; left as is",
                            stored.id, stored.room)
                continue
            engine = ENGINES[stored.kind]
            game = engine.replay({"game": stored.kind, "rules": stored.rules,
                                  "seed": stored.seed, "dealer": stored.dealer,
                                  "actions": stored.actions})
            table = self.new_table(stored.room, {}, stored.seating, stored.table_id)
            table.rules = game.rules
            table.restore(game, stored.id, stored.seats)
            table.resume()
            log.info("resumed table %s game %s at action %d", table.id, stored.id,
                     len(stored.actions))
        return len(stored_games)

    async def stop(self) -> None:
        for table in self.tables.values():
            await table.stop()

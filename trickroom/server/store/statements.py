"""A table's records as SQL: what each record writes, in the SQL both engines read.

A record becomes a list of :data:`~.values.Statement` (:func:`statements`): plain
SQL, or a function of the open transaction where the write must read first (a
rating moves from the value stored now). A fenced write opens with a
:class:`FenceCheck`, which an engine may check for a whole group commit at once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from trickroom.i18n.message import to_data
from trickroom.ratings import PlayerStats, Rating, Standing
from trickroom.server.names import account_name_refusal
from trickroom.server.store.archive import pack
from trickroom.server.store.values import Fence, StaleOwner, Statement, Tx
from trickroom.server.tables.records import (
    ActionTaken,
    Banned,
    BoardDealt,
    BoardFinished,
    BoardRated,
    BoardStarted,
    GameCreated,
    GameEnded,
    OptionsChanged,
    Rated,
    Record,
    SeatsChanged,
)

FENCE_SQL = ("INSERT INTO table_owners (table_id, epoch) VALUES (?, ?) ON CONFLICT (table_id) "
             "DO UPDATE SET epoch = excluded.epoch WHERE table_owners.epoch <= excluded.epoch "
             "RETURNING epoch")


@dataclass(frozen=True, slots=True)
class FenceCheck:
    """The statement that opens a fenced write: move the table's epoch up to the writer's,
    or refuse the write (a newer owner). A class, not a closure, so that an engine may
    check the fences of a whole group commit in one round trip (server/store/postgres.py)."""

    fence: Fence

    async def __call__(self, tx: Tx) -> None:
        row = await tx.fetchone(FENCE_SQL, (self.fence.table_id, self.fence.epoch))
        if row is None:
            raise stale(self.fence)


def stale(fence: Fence) -> StaleOwner:
    return StaleOwner(f"table {fence.table_id!r} has a newer owner than epoch {fence.epoch}")


def fenced(fence: Fence) -> Statement:
    return FenceCheck(fence)


def ban(name: str, until: float, reason: str) -> Statement:
    """A ban keeps the later of its end and any it already has."""
    return ("UPDATE users SET banned_until = CASE WHEN banned_until > ? THEN banned_until "
            "ELSE ? END, ban_reason = ? WHERE name = ?", (until, until, reason, name))


# A move: by far the commonest write (an engine may write a group commit of them at once).
ACTION_SQL = "INSERT INTO actions (game_id, idx, seat, action) VALUES (?, ?, ?, ?)"


def statements(record: Record) -> list[Statement]:
    """The SQL of one table record."""
    now = time.time()
    if isinstance(record, ActionTaken):
        # orjson, in C: the standard library's encoder cost a move about 27 µs of the
        # profiled server's time (bench/profile.py), for a dict of two short strings.
        return [(ACTION_SQL, (record.game_id, record.idx, record.seat,
                              orjson.dumps(record.action).decode()))]
    if isinstance(record, GameCreated):
        return [("INSERT INTO games (id, table_id, room, kind, rules, seed, dealer, seats, "
                 "seating, started, spectator_chat, creator, private) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (record.game_id, record.table_id, record.room, record.kind,
                  json.dumps(record.rules), record.seed, record.dealer,
                  json.dumps(list(record.seats)), record.seating, now,
                  int(record.spectator_chat), record.creator, _json_or_null(record.private)))]
    if isinstance(record, OptionsChanged):
        return [("UPDATE games SET spectator_chat = ?, private = ? WHERE id = ?",
                 (int(record.spectator_chat), _json_or_null(record.private),
                  record.game_id))]
    if isinstance(record, SeatsChanged):
        return [("UPDATE games SET seats = ? WHERE id = ?",
                 (json.dumps(list(record.seats)), record.game_id))]
    if isinstance(record, GameEnded):
        # Each change keeps its breakdown's texts as templates and values too ("said"), for
        # a review in another language (store.game drops them, but for a review).
        ratings = json.dumps([{**c, "said": [to_data(t["text"]) for t in c["breakdown"]]}
                              for c in record.ratings]) if record.ratings is not None else None
        # A private table's invite is a key: it is not kept once its game is over; only
        # that it was a sandbox's is (store.game says so, and the review waits for it).
        return [("UPDATE games SET finished = ?, result = ?, record = ?, ratings = ?, "
                 "private = ? WHERE id = ?",
                 (now, json.dumps(record.result), pack(record.record), ratings,
                  '{"sandbox": true}' if record.sandbox else None, record.game_id)),
                lambda tx: _index_players(tx, record.game_id, now),
                *(("UPDATE users SET casual_games = casual_games + 1 WHERE name = ?", (name,))
                  for name in record.casual_players)]
    if isinstance(record, Rated):
        return [lambda tx: _rate(tx, record, now)]
    if isinstance(record, Banned):
        return [ban(record.player, record.until, record.reason)]
    if isinstance(record, BoardStarted):
        return [("UPDATE board_tables SET game_id = ? WHERE set_id = ? AND slot = ?",
                 (record.game_id, record.set_id, record.slot))]
    if isinstance(record, BoardDealt):
        return [("INSERT INTO board_deals (set_id, slot, deal, result) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT DO NOTHING",
                 (record.set_id, record.slot, record.deal, json.dumps(record.result)))]
    if isinstance(record, BoardFinished):
        return [("UPDATE board_tables SET finished = ? WHERE set_id = ? AND slot = ? AND "
                 "finished IS NULL", (now, record.set_id, record.slot))]
    if isinstance(record, BoardRated):
        return [lambda tx: _rate_board(tx, record, now)]
    raise TypeError(f"no SQL for {record!r}")


def players_of(seats: Sequence[dict[str, Any]]) -> list[tuple[str, int]]:
    """The registered players of a game's seats, each with its seat: who sat at the start
    and any substitute after them. Robots (``Bot Hazel``, ``ann (robot)``) and guests
    (``guest-...``) have names no account may take, so a name check leaves them out."""
    out: dict[str, tuple[str, int]] = {}
    for s in seats:
        names = [s.get("starter")]
        if s.get("kind") == "human" and not s.get("guest"):
            names.append(s.get("account"))
        for name in names:
            if name and account_name_refusal(name) is None:
                out.setdefault(name.lower(), (name, s["seat"]))
    return list(out.values())


INDEX_PLAYER = ("INSERT INTO game_players (player, game_id, seat, finished) VALUES (?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING")


async def _index_players(tx: Tx, game_id: str, now: float) -> None:
    """Note who played an ended game, from its seats as stored (for recent games)."""
    row = await tx.fetchone("SELECT seats FROM games WHERE id = ?", (game_id,))
    if row is None:
        return
    await tx.executemany(INDEX_PLAYER, [(player, game_id, seat, now) for player, seat in
                                        players_of(json.loads(row["seats"]))])


async def _rate(tx: Tx, record: Rated, now: float) -> None:
    """Move each player's standing by its change, from the value stored now (inside the
    transaction, so two tables rating the same player never lose an update). A player
    without one starts where the table rated them from: their start in the room's system,
    constants and all. The history keeps sigma, which Weng-Lin's shown value needs."""
    result = record.result
    for change in record.changes:
        row = await tx.fetchone("SELECT value, sigma, stats FROM ratings WHERE player = ? AND "
                                "kind = ? AND system = ?",
                                (change.player, result.kind, result.system))
        current = (standing(row["value"], row["sigma"], row["stats"]) if row
                   else Standing(change.before))
        after = current.after(result, change)
        stats = asdict(after.stats)
        stats["history"] = list(stats["history"])
        await tx.execute(
            "INSERT INTO ratings (player, kind, system, value, sigma, stats) VALUES "
            "(?, ?, ?, ?, ?, ?) ON CONFLICT (player, kind, system) DO UPDATE SET "
            "value = excluded.value, sigma = excluded.sigma, stats = excluded.stats",
            (change.player, result.kind, result.system, after.rating.value,
             after.rating.sigma, json.dumps(stats)))
        if change.rated:
            await tx.execute("INSERT INTO rating_history (player, kind, system, game_id, time, "
                             "value, sigma, delta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (change.player, result.kind, result.system, record.game_id, now,
                              change.after.value, change.after.sigma, change.delta))


async def _rate_board(tx: Tx, record: BoardRated, now: float) -> None:
    """A complete board set's duplicate ratings, once: the first table to write them marks
    the set (a second, on another node at the same moment, waits for that row and then
    finds it marked) and moves each rated player's standing."""
    shown = json.dumps([{**c.to_wire(), "said": [to_data(t.text) for t in c.breakdown]}
                        for c in record.changes])
    await tx.execute("UPDATE board_sets SET rated_by = ?, ratings = ? WHERE id = ? AND "
                     "rated_by IS NULL", (record.table_id, shown, record.set_id))
    row = await tx.fetchone("SELECT rated_by FROM board_sets WHERE id = ?", (record.set_id,))
    if row is None or row["rated_by"] != record.table_id:
        return
    for change in record.changes:
        if not change.rated:
            continue
        found = await tx.fetchone("SELECT value, sigma, stats FROM ratings WHERE player = ? "
                                  "AND kind = ? AND system = ?",
                                  (change.player, record.kind, record.system))
        stats = json.loads(found["stats"]) if found else asdict(PlayerStats())
        stats["games"] = stats.get("games", 0) + 1
        key = {"win": "wins", "loss": "losses", "tie": "ties"}.get(change.outcome or "", "")
        if key:
            stats[key] = stats.get(key, 0) + 1
        stats["history"] = [*stats.get("history", ()), change.after.value]
        await tx.execute(
            "INSERT INTO ratings (player, kind, system, value, sigma, stats) VALUES "
            "(?, ?, ?, ?, ?, ?) ON CONFLICT (player, kind, system) DO UPDATE SET "
            "value = excluded.value, sigma = excluded.sigma, stats = excluded.stats",
            (change.player, record.kind, record.system, change.after.value,
             change.after.sigma, json.dumps(stats)))
        await tx.execute("INSERT INTO rating_history (player, kind, system, game_id, time, "
                         "value, sigma, delta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (change.player, record.kind, record.system, record.set_id, now,
                          change.after.value, change.after.sigma, change.delta))


def standing(value: float, sigma: float, stats_json: str) -> Standing:
    stats = json.loads(stats_json)
    stats["history"] = tuple(stats.get("history", ()))
    return Standing(Rating(value, sigma), PlayerStats(**stats))


def _json_or_null(value: Any) -> str | None:
    return None if value is None else json.dumps(value)

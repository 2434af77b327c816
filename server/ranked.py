"""Ranked play: who may sit, and handing every ranked game to the ratings.

The rules come from the seed pages through DESIGN section 7: only registered,
experienced players with "rank me" on and no ban may sit at a ranked table;
a finished or abandoned game becomes a ratings ``GameResult`` and is rated by
the room's system, and the changes are stored in the same transaction as the
game's end. This module is the bridge: ``game`` and ``ratings`` never meet
anywhere else.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from game.outcome import Outcome
from ratings import (
    Departure,
    GameResult,
    NilRecord,
    PlayerStats,
    Rating,
    RatingChange,
    Seat,
    Standing,
    rate,
    rate_quit,
    system_named,
)
from server.protocol import ProtocolError
from server.store import SqliteStore

WEEK = 7 * 24 * 3600.0
HOUR = 3600.0

# The drop policy of each rating system's room (DESIGN section 7).
POLICIES = {"zone": "zone", "zone_tuned": "zone", "wocg": "wocg", "wocg_tuned": "wocg",
            "points_en": "points", "points_el": "points"}


def policy_of(system: str | None) -> str:
    return POLICIES.get(system or "", "zone")


def when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


class Ranked:
    """Eligibility and rating for one server; ``clock`` is wall time (tests move it)."""

    def __init__(self, store: SqliteStore, min_games: int,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.min_games = min_games
        self.clock = clock

    async def check_eligible(self, name: str, guest: bool) -> None:
        """Raise ``not_eligible`` saying why (and until when) a player may not sit."""
        if guest:
            raise ProtocolError("not_eligible", "ranked tables are for registered players: "
                                                "register or log in first")
        account = await self.store.account(name)
        if account is None:
            raise ProtocolError("not_eligible", "ranked tables are for registered players")
        if account["casual_games"] < self.min_games:
            raise ProtocolError(
                "not_eligible",
                f"not experienced yet: finish {self.min_games} casual games first "
                f"({account['casual_games']} so far)")
        if not account["rank_me"]:
            raise ProtocolError("not_eligible", "\"rank me\" is off in your settings")
        if account["banned_until"] and account["banned_until"] > self.clock():
            reason = account["ban_reason"] or "a ban"
            raise ProtocolError("not_eligible", f"banned from ranked play until "
                                                f"{when(account['banned_until'])} ({reason})")

    async def set_rank_me(self, name: str, on: bool) -> float | None:
        """Turn "rank me" on or off; off bans for a week and resets ratings. Returns the ban end."""
        ban = self.clock() + WEEK if not on else None
        await self.store.set_rank_me(name, on, ban)
        return ban

    async def ban_quitter(self, name: str) -> float:
        until = self.clock() + HOUR
        await self.store.ban(name, until, "quit a ranked game")
        return until

    # -- rating -------------------------------------------------------------------------------

    async def current(self, players: list[str], kind: str,
                      system: str) -> dict[str, Standing]:
        """Each player's standing now; a player without one starts at the system's start."""
        start = system_named(system).start_rating
        stored = await self.store.standings(players, kind, system)
        out = {}
        for player in players:
            if player in stored:
                value, sigma, stats = stored[player]
                stats["history"] = tuple(stats.get("history", ()))
                out[player] = Standing(Rating(value, sigma), PlayerStats(**stats))
            else:
                out[player] = Standing(start)
        return out

    async def rate_quit(self, result: GameResult, start: dict[str, Standing], player: str,
                        game_id: str) -> RatingChange | None:
        """WoCG: a quitter is rated at once as losing to both opponents, and stored now."""
        ratings = {p: s.rating for p, s in start.items()}
        change = rate_quit(result, ratings, player)
        if change is None:
            return None
        now = await self.current([player], result.kind, result.system)
        after = now[player].after(result, change)
        await self.store.save_ratings(game_id, result.kind, result.system,
                                      {player: _row(after)}, [change.to_wire()])
        return change

    async def finish(self, game_id: str, result: GameResult, start: dict[str, Standing],
                     outcome: Outcome, record: dict[str, Any],
                     already_rated: set[str]) -> list[dict[str, Any]]:
        """Rate the game and store its end with the changes in one transaction."""
        ratings = {p: s.rating for p, s in start.items()}
        changes = [c for c in rate(result, ratings) if c.player not in already_rated]
        players = [c.player for c in changes]
        now = await self.current(players, result.kind, result.system)
        updates = {c.player: _row(now[c.player].after(result, c)) for c in changes}
        wire = [c.to_wire() for c in changes]
        await self.store.finish_ranked_game(game_id, outcome.to_wire(), record, result.kind,
                                            result.system, updates, wire)
        return wire


def _row(standing: Standing) -> tuple[float, float, dict[str, Any]]:
    stats = asdict(standing.stats)
    stats["history"] = list(stats["history"])
    return standing.rating.value, standing.rating.sigma, stats


def game_result(kind: str, system: str, seating: str, starters: list[str],
                substitutes: list[tuple[int, str]], outcome: Outcome,
                departures: list[Departure], first_disconnect: str | None) -> GameResult:
    """The ratings' view of a game: starters, substitutes, scores, leavers, nil records."""
    seats = [Seat(i, name, "human", True, NilRecord(**asdict(outcome.nil[i])))
             for i, name in enumerate(starters)]
    seats += [Seat(i, name, "substitute", False) for i, name in substitutes]
    return GameResult(kind, system, seating, tuple(seats),  # type: ignore[arg-type]
                      tuple(outcome.seat_scores), tuple(outcome.winners), outcome.finished,
                      outcome.progress, tuple(departures), first_disconnect)

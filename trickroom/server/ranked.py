"""Ranked play's lookups: who may sit at a ranked table, and the players' standings.

The rules come from the seed pages through DESIGN section 7: only registered,
experienced players with "rank me" on and no ban may sit at a ranked table.
Rating a game is pure and happens in the table machine
(:mod:`server.tables.rating`); the store applies the changes in the same
transaction as the game's end. This module holds the reads those need.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from trickroom.i18n import Msg
from trickroom.ratings import Standing
from trickroom.server.protocol import ProtocolError
from trickroom.server.store import Store
from trickroom.server.tables.rating import when

WEEK = 7 * 24 * 3600.0
# The rule a casual game counts toward ranked play by (server.tables.play._casual_credit),
# in the words a player reads beside the count.
CASUAL_RULE = Msg("A casual game counts when at least two registered players finish it, "
                  "playing from different places (one person's accounts count as one), to at "
                  "least half the room's target; games with only robots and guests do not "
                  "count")


class Ranked:
    """Eligibility and standings for one server; ``clock`` is wall time (tests move it)."""

    def __init__(self, store: Store, min_games: int,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.min_games = min_games
        self.clock = clock

    async def refusal(self, name: str, guest: bool, ladder: bool = False) -> str | None:
        """Why a player may not sit at a ranked table (and until when), or None.
        ``ladder``: a table of the bot ladder, where BOT accounts alone sit; people's
        ranked tables are never a BOT's."""
        if guest:
            if ladder:
                return (Msg("the bot ladder is for BOT accounts: register your bot, then "
                            "upgrade the account (upgrade_to_bot)"))
            return Msg("ranked tables are for registered players: register or log in first")
        account = await self.store.account(name)
        if account is None:
            return Msg("ranked tables are for registered players")
        if ladder:
            if not account["bot"]:
                return (Msg("the bot ladder is for BOT accounts; people play ranked in the "
                            "other ranked rooms"))
        elif account["bot"]:
            return (Msg("BOT accounts play ranked games on the bot ladder (its rooms), never "
                        "at people's ranked tables"))
        elif account["casual_games"] < self.min_games:
            return (Msg("not experienced yet: finish {min_games} casual games first ({played} "
                        "so far). {casual_rule}", min_games=self.min_games,
                        played=account['casual_games'], casual_rule=CASUAL_RULE))
        if not account["rank_me"]:
            return Msg('"rank me" is off in your settings')
        return self._ban(account)

    async def ban(self, name: str, guest: bool) -> str | None:
        """Why a player may not take a seat in a ranked game, even as an unrated substitute
        (a ban: for quitting, or for turning "rank me" off), or None. A substitute need
        not be experienced, but a ban from ranked play holds for every ranked seat."""
        account = None if guest else await self.store.account(name)
        return self._ban(account) if account is not None else None

    def _ban(self, account: dict[str, Any]) -> str | None:
        if account["banned_until"] and account["banned_until"] > self.clock():
            reason = account["ban_reason"] or "a ban"
            return Msg("banned from ranked play until {when} ({reason})",
                       when=when(account['banned_until']), reason=reason)
        return None

    async def check_eligible(self, name: str, guest: bool, ladder: bool = False) -> None:
        """Raise ``not_eligible`` saying why (and until when) a player may not sit."""
        why = await self.refusal(name, guest, ladder)
        if why is not None:
            raise ProtocolError("not_eligible", why)

    async def set_rank_me(self, name: str, on: bool) -> float | None:
        """Turn "rank me" on or off; off bans for a week and resets ratings. Returns the ban end."""
        ban = self.clock() + WEEK if not on else None
        await self.store.set_rank_me(name, on, ban)
        return ban

    async def last_games(self, players: list[str]) -> dict[str, str]:
        """Each player's last ranked game, by name (the random queue does not seat four
        again who have just played only each other)."""
        return await self.store.last_ranked_games(players)

    async def current(self, players: list[str], kind: str, system: str) -> dict[str, Standing]:
        """Each player's standing now, for those who have one. A player without one is left
        out: the table starts them at its room's system's start, which a room's adopted
        constants may move (Weng-Lin's sigma), so a preset's start here would be wrong."""
        return await self.store.standings(players, kind, system)

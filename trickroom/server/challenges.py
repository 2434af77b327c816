"""Challenges: ask players you know for a game (issue 35, item 3), as Lichess does.

A registered player names the four seats: themselves, the players they challenge (online
and registered), and robots (e.g. "you and me against two robots", "the four of us").
Each player challenged gets it on every connection (``challenged``, on any node), and
accepts or declines with a reason of a fixed few. Once every one has accepted, the node
that took the last answer opens a **private table** in the room, with the challenger as its
opener, each seat kept for its player and robots in the rest, and everyone is told where
(``challenge_over``, ``accepted``); a decline, or ``challenge_seconds`` without every
answer, ends it for all (``declined``, ``expired``). A challenge lives in the hub, so that
an answer is taken on whichever node its player is.

A player who ignores (blocks) another gets no challenge from them. Challenges are
rate-limited per account and per address group, as table creation is.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
from typing import TYPE_CHECKING

from trickroom.game.trickgame import rules_wire
from trickroom.i18n import Msg
from trickroom.server.config import ConfigError, ServerSettings
from trickroom.server.hub.port import Hub, Member
from trickroom.server.protocol import (
    AnswerChallenge,
    Challenge,
    Challenged,
    ChallengeInfo,
    ChallengeOver,
    ChallengeSent,
    Ok,
    ProtocolError,
)
from trickroom.server.tables import commands as command
from trickroom.server.tables.commands import Who
from trickroom.server.tables.log import Shared

if TYPE_CHECKING:
    from trickroom.server.friends import Follows
    from trickroom.server.lobby import Lobby

log = logging.getLogger("trickroom.challenges")


class Challenges:
    """Sending, answering and deciding challenges."""

    def __init__(self, settings: ServerSettings, hub: Hub, lobby: Lobby,
                 follows: Follows) -> None:
        self.settings = settings
        self.hub = hub
        self.lobby = lobby
        self.follows = follows
        self._expiries: dict[str, asyncio.TimerHandle] = {}

    async def send(self, conn: Member, msg: Challenge) -> None:
        if conn.guest:
            raise ProtocolError("not_authorized", Msg("guests challenge no one; register first"))
        me = conn.name
        named = [s for s in msg.seats if s is not None]
        folded = [s.lower() for s in named]
        if folded.count(me.lower()) != 1:
            raise ProtocolError("invalid_field", Msg("seats: name yourself at exactly one seat"))
        if len(set(folded)) != len(folded):
            raise ProtocolError("invalid_field", Msg("seats: a player sits at one seat only"))
        others = [s for s in named if s.lower() != me.lower()]
        if not others:
            raise ProtocolError("invalid_field", Msg("seats: name at least one player to "
                                                     "challenge (null seats are robots)"))
        room = self.lobby.room(msg.room)
        if room.rated:
            raise ProtocolError("invalid_field", Msg("room {name!r} is ranked: challenges are "
                                                     "played at private tables of casual rooms",
                                                     name=room.name))
        try:
            rules = rules_wire(room.make_rules(msg.rules))
        except ConfigError as exc:
            raise ProtocolError("invalid_field", Msg("rules: {exc}", exc=exc.args[0])) from None
        await self._within_rate(conn)
        where = await self.hub.presence(others)
        for other in others:
            if not where[other].online:
                raise ProtocolError("not_found", Msg("{other} is not online (or not a "
                                                     "registered player): challenge them later",
                                                     other=other))
        blocked_by = {b.lower() for b in await self.hub.ignored_by(me)}
        for other in others:
            if other.lower() in blocked_by:
                raise ProtocolError("not_authorized", Msg("{other} does not take challenges "
                                                          "from you", other=other))
        seconds = self.settings.challenge_seconds
        bots = []  # a bot may take only bots' challenges, or none of theirs (its choice)
        for name in named:
            account = await self.follows.store.account(name)
            if account is not None and account["bot"]:
                bots.append(account["name"])
        info = ChallengeInfo(id=secrets.token_urlsafe(12), by=me, room=room.name,
                             game=room.game, rules=rules, seats=list(msg.seats),
                             expires_in=seconds, bots=bots)
        await self.hub.challenge_put(info.id, info.model_dump_json(), seconds)
        conn.reply(ChallengeSent(id=msg.id, challenge=info))
        pushed = Shared(Challenged(challenge=info).encode())
        for other in others:
            self.hub.to_account(other, pushed)
        loop = asyncio.get_running_loop()
        self._expiries[info.id] = loop.call_later(seconds, self._expire, info)

    async def _within_rate(self, conn: Member) -> None:
        rate, burst = (self.settings.challenges_per_minute / 60,
                       self.settings.challenge_burst)
        for kind, key in (("challenges-account", conn.name),
                          ("challenges-address", conn.address)):
            wait = await self.hub.take(kind, key, rate, burst)
            if wait:
                raise ProtocolError("rate_limited", Msg("too many challenges; wait {seconds} s "
                                                        "before the next", seconds=math.ceil(wait)),
                                    retry_after=math.ceil(wait))

    async def answer(self, conn: Member, msg: AnswerChallenge) -> None:
        if conn.guest:
            raise ProtocolError("not_authorized", Msg("guests are challenged by no one"))
        answer = "yes" if msg.accept else f"no:{msg.reason or 'generic'}"
        found = await self.hub.challenge_answer(msg.challenge, conn.name, answer)
        if found is None:
            raise ProtocolError("not_found", Msg("no such challenge waits for an answer (it "
                                                 "expired, or was decided)"))
        record, answers = found
        info = ChallengeInfo.model_validate_json(record)
        challenged = [s for s in info.seats if s is not None and s.lower() != info.by.lower()]
        if conn.name.lower() not in {c.lower() for c in challenged}:
            raise ProtocolError("not_authorized", Msg("this challenge is not for you"))
        conn.reply(Ok(id=msg.id))
        mine = answers.get(conn.name.lower(), answer)
        if mine.startswith("no:"):
            if await self.hub.challenge_claim(info.id):
                self._over(info, ChallengeOver(challenge=info.id, outcome="declined",
                                               by=conn.name, reason=mine[3:]))
            return
        if (all(answers.get(c.lower()) == "yes" for c in challenged)
                and await self.hub.challenge_claim(info.id)):
            await self._open(info)

    async def _open(self, info: ChallengeInfo) -> None:
        """Every player accepted: a private table, each seat kept for its player, robots
        in the rest."""
        runner = await self.lobby.new_table(info.room, info.rules, "fixed_seating",
                                            private=True, opener=info.by)
        opener = Who(0, info.by, False)
        for seat, name in enumerate(info.seats):
            if name is not None:
                await runner.call(command.Reserve(opener, None, seat, name))
        if None in info.seats:
            await runner.call(command.Fill(opener, None, "heuristic"))
        self._over(info, ChallengeOver(challenge=info.id, outcome="accepted",
                                       table=runner.id, seats=info.seats))

    def _expire(self, info: ChallengeInfo) -> None:
        self._expiries.pop(info.id, None)

        async def expire() -> None:
            try:
                if await self.hub.challenge_claim(info.id):
                    self._over(info, ChallengeOver(challenge=info.id, outcome="expired"))
            except self.hub.away:
                pass  # it expires in Redis by itself; nobody is told
        asyncio.get_running_loop().create_task(expire())

    def _over(self, info: ChallengeInfo, over: ChallengeOver) -> None:
        handle = self._expiries.pop(info.id, None)
        if handle is not None:
            handle.cancel()
        message = Shared(over.encode())
        for name in {s for s in info.seats if s is not None}:
            self.hub.to_account(name, message)


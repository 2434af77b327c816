"""The ranked rooms' random queues: four eligible players, seated at random (DESIGN section 7).

Written once for one process and for a cluster: where the queue is kept, which
node matches it, and how a player on another node is reached are the hub's
(:class:`~trickroom.server.hub.port.Hub`). A match draws four of the queued
players at random, opens a table of the room on this node and seats them at
seats drawn at random; the points system's randomness multiplier (8, "random
queue") prices that draw.
"""

from __future__ import annotations

import random
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from trickroom.i18n import Msg
from trickroom.server.hub.port import Hub, Member, Queued
from trickroom.server.lobby import Lobby
from trickroom.server.protocol import ProtocolError, QueueStatus
from trickroom.server.ranked import Ranked
from trickroom.server.tables.commands import ClientId, SitReserved, Who


class Queues:
    """Joining, leaving and matching the rooms' queues."""

    def __init__(self, hub: Hub, lobby: Lobby, ranked: Ranked,
                 clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.lobby = lobby
        self.ranked = ranked
        self.clock = clock
        self.joined: dict[ClientId, set[str]] = defaultdict(set)  # this node's, by room

    async def join(self, client: Member, room_name: str, request_id: Any) -> None:
        """Queue for a ranked room; four eligible players are seated at random."""
        room = self.lobby.room(room_name)
        if not room.rated:
            raise ProtocolError("invalid_field", Msg("the random queue is for ranked rooms; "
                                                     "casual tables are in the table list"))
        await self.ranked.check_eligible(client.name, client.guest, room.ladder)
        entry = Queued(client.id, client.name, client.guest, client.address, self.clock())
        if not await self.hub.queue_add(room_name, entry):
            raise ProtocolError("invalid_field", Msg("you are already in this queue"))
        self.joined[client.id].add(room_name)
        await self._match(room_name)
        await self._status(room_name, client, request_id)

    async def leave(self, client: Member, room_name: str, request_id: Any) -> None:
        await self._remove(client, room_name)
        await self._status(room_name, client, request_id)

    async def closed(self, client: Member) -> None:
        """A connection closed: out of every queue it was in (the others are told)."""
        for room_name in self.joined.pop(client.id, set()):
            await self.hub.queue_remove(room_name, client.name)
            await self._status(room_name)

    async def _remove(self, client: Member, room_name: str) -> None:
        await self.hub.queue_remove(room_name, client.name)
        self._forget(client.id, room_name)

    def _forget(self, client: ClientId, room_name: str) -> None:
        rooms = self.joined.get(client)
        if rooms is not None:
            rooms.discard(room_name)
            if not rooms:
                del self.joined[client]

    async def _match(self, room_name: str) -> None:
        """Four players, wherever they are, seated at random at a new table here; one node
        matches a room at a time, so no player is seated twice."""
        draw = secrets.SystemRandom()
        async with self.hub.matcher(room_name) as matching:
            if not matching:
                return  # another matcher is at work; it will see these players too
            queued, _ = await self.hub.queued(room_name)
            players = four_apart(queued, draw)
            if players is None:
                return
            # Their last ranked games: the others' only if these four played one together
            # (four look-ups a match, not one for every player waiting).
            last = await self.ranked.last_games([player.name for player in players])
            if together(players, last) is not None:
                last.update(await self.ranked.last_games(
                    [entry.name for entry in queued if entry not in players]))
                players = four_apart(queued, draw, last)
                if players is None:
                    return
            for player in players:
                await self.hub.queue_remove(room_name, player.name)
        table = await self.lobby.new_table(room_name, {}, "random_queue")
        members = [await self.hub.follow(player, table.id) for player in players]
        for player, member, seat in zip(players, members, draw.sample(range(4), 4),
                                        strict=True):
            self._forget(player.client, room_name)
            member.joined(table.id)
            await table.call(SitReserved(Who(player.client, player.name, player.guest,
                                                     player.address),
                                         None, seat, self.lobby.room(room_name).ladder))
        await self._status(room_name)

    async def _status(self, room_name: str, asker: Member | None = None,
                      request_id: Any = None) -> None:
        """Tell every queued player (and the asker) the queue's length and expected wait."""
        queued, joins = await self.hub.queued(room_name)
        expected = None
        if len(joins) >= 2 and joins[-1] > joins[0]:
            gap = (joins[-1] - joins[0]) / (len(joins) - 1)
            expected = round(gap * max(0, 4 - len(queued)), 1)
        told = set()
        for entry in queued:
            asked = asker is not None and entry.client == asker.id
            status = QueueStatus(id=request_id if asked else None, room=room_name, queued=True,
                                 length=len(queued), expected_wait=expected)
            self.hub.tell(entry, status.encode())
            told.add(entry.client)
        if asker is not None and asker.id not in told:
            status = QueueStatus(id=request_id, room=room_name, queued=False,
                                 length=len(queued), expected_wait=expected)
            asker.send_text(status.encode())


def together(players: list[Queued], last: Mapping[str, str]) -> str | None:
    """The ranked game that was the last of each of ``players``, if it was one game."""
    games = {last.get(player.name) for player in players}
    return games.pop() if len(games) == 1 else None


def four_apart(queued: list[Queued], draw: random.Random,
               last: Mapping[str, str] | None = None) -> list[Queued] | None:
    """Four queued players drawn at random, no two from one address group, and not four
    who have just played only each other; None until four such are queued (issue 32,
    item 8: one person's four accounts, queued together in a quiet room, were seated
    together and farmed the random queue's rating weight, game after game).

    "Just played only each other": each one's last ranked game (``last``, by name) was
    one and the same game, the four of them together. Such a four waits for a fifth
    player, who is seated with three of them; players who met in their last game but
    not all four (three of them, or a fourth who has played elsewhere since) may meet
    again, as in any quiet room.
    """
    last = last or {}
    order = draw.sample(queued, len(queued))
    chosen: list[Queued] = []
    groups: set[str] = set()
    for entry in order:
        if entry.address not in groups:
            chosen.append(entry)
            groups.add(entry.address)
            if len(chosen) == 4:
                break
    else:
        return None
    game = together(chosen, last)
    if game is None:
        return chosen
    # One of the four makes way for a player who did not play that game: the one of the
    # newcomer's own group, if any is chosen, so that no group is drawn twice.
    for entry in order:
        if entry not in chosen and last.get(entry.name) != game:
            same = [i for i, c in enumerate(chosen) if c.address == entry.address]
            chosen[same[0] if same else draw.randrange(4)] = entry
            return chosen
    return None

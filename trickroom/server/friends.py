"""Follows and presence: who a player follows, and where those players are (issue 35).

A registered player follows others without their consent, as on Lichess; two who follow
each other are friends. ``friends`` lists whom a connection's player follows, each with
their **presence**: online or not, and the table they sit at (its room and game; a
private table's id is told to no one). From then on each change of theirs (coming online,
going offline, sitting at or leaving a table) is pushed to that connection as it happens
(``presence``), until it asks again or closes. A player who hides their presence is
seen offline by everyone.

Each node knows its own connections and tables: it works out its view of a player's
presence when they log in or out, or their seats change, and gives it to the hub, which
keeps every node's view and tells every node that one changed (``Hub.presence_changed``);
a node with followers of that player reads it again (``Hub.presence``) and pushes it to
them. What a follow costs the node is one entry in two small indexes, by follower
connection and by followed name.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from typing import TYPE_CHECKING

from trickroom.i18n import Msg
from trickroom.server.hub.port import Hub, Member, Presence
from trickroom.server.protocol import (
    FriendInfo,
    Friends,
    Ok,
    PresenceUpdate,
    ProtocolError,
    TableRef,
)
from trickroom.server.store import Store

if TYPE_CHECKING:
    from trickroom.server.lobby import Lobby

log = logging.getLogger("trickroom.friends")


def shown(presence: Presence) -> TableRef | None:
    if presence.room is None or presence.game is None:
        return None
    return TableRef(table=presence.table, room=presence.room, game=presence.game,
                    private=presence.private)


class Follows:
    """This node's registered players' presence, and its connections' follows."""

    def __init__(self, store: Store, hub: Hub, lobby: Lobby, most: int) -> None:
        self.store = store
        self.hub = hub
        self.lobby = lobby
        self.most = most  # players one may follow
        self.online: dict[str, int] = defaultdict(int)  # account, case-folded -> sockets here
        self.hidden: set[str] = set()  # accounts online here who hide their presence
        self.conns: dict[str, set[Member]] = defaultdict(set)  # account -> its sockets here
        self.followers: dict[str, set[Member]] = defaultdict(set)  # followed -> who listens
        self.following: dict[Member, set[str]] = {}  # connection -> the names it listens to
        self._tasks: set[asyncio.Task[None]] = set()

    # -- this node's players -----------------------------------------------------------------

    async def signed_in(self, conn: Member) -> None:
        """A connection logged in (a guest has no presence)."""
        if conn.guest:
            return
        name = conn.name
        key = name.lower()
        self.conns[key].add(conn)
        self.online[key] += 1
        if self.online[key] == 1:
            if await self.store.hides_presence(name):
                self.hidden.add(key)
            self.changed(name)

    def signed_out(self, conn: Member) -> None:
        """A connection is no longer who it was (it closed, or logged in anew)."""
        self.unfollow_all(conn)
        if not conn.name or conn.guest:
            return
        key = conn.name.lower()
        conns = self.conns.get(key)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.conns[key]
        left = self.online.get(key, 0) - 1
        if left > 0:
            self.online[key] = left
            return
        self.online.pop(key, None)
        self.hidden.discard(key)
        self.changed(conn.name)

    def connections(self, name: str) -> tuple[Member, ...]:
        """This node's connections logged in as the registered player ``name``."""
        return tuple(self.conns.get(name.lower(), ()))

    def changed(self, name: str) -> None:
        """The player's presence on this node may have changed: give the hub its view."""
        with contextlib.suppress(*self.hub.away):  # Redis away: the next change tells it
            self.hub.presence_changed(name, self.here(name))

    def here(self, name: str) -> Presence | None:
        """This node's view of a registered player: None while not connected here, or
        hiding."""
        key = name.lower()
        if key not in self.online or key in self.hidden:
            return None
        runner = self.lobby.seated_at(name)
        if runner is None:
            return Presence()
        info = runner.machine.info()
        return Presence(table=None if info.private else info.id, room=info.room,
                        game=info.game, private=info.private)

    async def hide(self, name: str, hidden: bool) -> None:
        await self.store.set_hide_presence(name, hidden)
        key = name.lower()
        if key in self.online:
            (self.hidden.add if hidden else self.hidden.discard)(key)
            self.changed(name)

    # -- follows -------------------------------------------------------------------------------

    async def follow(self, conn: Member, name: str, on: bool, rid: object) -> None:
        if conn.guest:
            raise ProtocolError("not_authorized", Msg("guests follow no one; register first"))
        if name.lower() == conn.name.lower():
            raise ProtocolError("invalid_field", Msg("you cannot follow yourself"))
        if on and await self.store.account(name) is None:
            raise ProtocolError("not_found", Msg("no registered player is called {name!r}",
                                                 name=name))
        if not await self.store.set_follow(conn.name, name, on, self.most):
            raise ProtocolError("invalid_field", Msg("you follow {most} players, the most one "
                                                     'may: stop following one ("on": false) '
                                                     "first", most=self.most))
        conn.reply(Ok(id=rid))  # type: ignore[arg-type]

    async def friends(self, conn: Member, rid: object) -> None:
        """Whom the connection's player follows, with where each is; their changes are
        pushed to it from now on."""
        if conn.guest:
            raise ProtocolError("not_authorized", Msg("guests follow no one; register first"))
        follows = await self.store.follows(conn.name)
        names = [f["name"] for f in follows]
        self.unfollow_all(conn)
        self.following[conn] = {n.lower() for n in names}
        for name in names:
            self.followers[name.lower()].add(conn)
        where = await self.hub.presence(names)
        conn.reply(Friends(id=rid, players=[  # type: ignore[arg-type]
            FriendInfo(name=f["name"], mutual=f["mutual"], online=where[f["name"]].online,
                       at=shown(where[f["name"]])) for f in follows]))

    def unfollow_all(self, conn: Member) -> None:
        for key in self.following.pop(conn, ()):
            listeners = self.followers.get(key)
            if listeners is not None:
                listeners.discard(conn)
                if not listeners:
                    del self.followers[key]

    def pushed(self, name: str) -> None:
        """The hub says ``name``'s presence changed: tell this node's followers of it."""
        if name.lower() in self.followers:
            task = asyncio.get_running_loop().create_task(self._push(name))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _push(self, name: str) -> None:
        try:
            presence = (await self.hub.presence([name]))[name]
        except self.hub.away:
            return  # Redis away: the followers hear of the player's next change
        update = PresenceUpdate(name=name, online=presence.online, at=shown(presence))
        text = update.encode()
        for conn in list(self.followers.get(name.lower(), ())):
            conn.send_text(text)

"""Who ignores whom (DESIGN section 7): a registered player's list is kept with the
account, a guest's ends with its connection (issue 32, item E).

Chat asks the hub who ignores its speaker (``Hub.ignored_by``, an index by the
ignored name): the hub holds the lists of the players online, on every node. A
registered player's list is the store's: each change is written there first, then
to the hub, and the whole list goes to the hub at each login, so it survives a
restart of the server (or of Redis) and follows the player to any node. A guest's
list is the hub's alone, and is dropped when its connection closes. Either holds
at most ``ignores_per_player`` names.
"""

from __future__ import annotations

import contextlib

from trickroom.server.hub.port import Hub
from trickroom.server.store import Store


class Ignores:
    """The players' ignore lists, within their bound."""

    def __init__(self, store: Store, hub: Hub, most: int) -> None:
        self.store = store
        self.hub = hub
        self.most = most

    async def set(self, name: str, guest: bool, other: str, on: bool) -> bool:
        """``name`` ignores ``other`` (``on``) or no longer does; False, with nothing
        changed, when ``name`` ignores ``most`` others already."""
        if guest:
            return await self.hub.ignore(name, other, on, self.most)
        if not await self.store.set_ignore(name, other, on, self.most):
            return False
        await self.hub.ignore(name, other, on, self.most)  # its copy: the store's, or less
        return True

    async def restored(self, name: str) -> None:
        """A registered player logged in: the hub holds their list as the store keeps it.
        While what nodes share is out of reach, the login goes on without it (the next
        login brings it)."""
        ignored = await self.store.ignores(name)
        with contextlib.suppress(*self.hub.away):
            await self.hub.ignores_restored(name, ignored)

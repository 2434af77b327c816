"""Chat at a table: to everyone at it, but those who ignore the speaker (DESIGN section 7).

Who ignores whom is the hub's to know (a player may have set it on any node); the
request brings it as ``ignored_by``.
"""

from __future__ import annotations

from trickroom.server.protocol import ChatMessage, Ok, ProtocolError
from trickroom.server.tables.commands import Chat
from trickroom.server.tables.log import Shared
from trickroom.server.tables.table import Table


def on_chat(table: Table, cmd: Chat) -> None:
    state = table.state
    if table.seat_of(cmd.who.client) is None and cmd.who.client not in state.watchers:
        raise ProtocolError("not_seated", "sit at or watch a table to chat there")
    names = {s.client: s.account for s in state.seats if s.client is not None}
    names.update(state.watchers)
    to = tuple(c for c in table.audience() if names.get(c) not in cmd.ignored_by)
    table.send(to, Shared(ChatMessage(name=cmd.who.name, text=cmd.text, table=table.id).encode()))
    table.reply(cmd.who, Ok(id=cmd.rid))

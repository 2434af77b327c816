"""Chat at a table: to everyone at it, but those who ignore the speaker (DESIGN section 7).

Who ignores whom is the hub's to know (a player may have set it on any node); the
request brings it as ``ignored_by``.

Spectators are the table's guests, as on BBO (kibitzers do not talk to the players)
and Lichess (players do not read the spectators' room): while a game with a human
player is in play they do not chat to the table unless its players turn
``spectator_chat`` on (``create_table`` or ``table_options``). Before and between
games they may (to ask for a seat). And all of a table's spectators share one chat
rate (``spectator_chat_per_second``, with ``spectator_chat_burst`` saved), so forty
rotating names from ten addresses, each within its own limits, still say no more to
the table than one talkative spectator; the players' own lines never draw on it.
"""

from __future__ import annotations

import math

from trickroom.i18n import Msg
from trickroom.server.protocol import ChatMessage, Ok, ProtocolError
from trickroom.server.tables.commands import Chat, Options
from trickroom.server.tables.log import Shared
from trickroom.server.tables.records import OptionsChanged
from trickroom.server.tables.state import Phase
from trickroom.server.tables.table import Table


def on_chat(table: Table, cmd: Chat) -> None:
    state = table.state
    if table.seat_of(cmd.who.client) is None:
        if cmd.who.client not in state.watchers:
            raise ProtocolError("not_seated", Msg("sit at or watch a table to chat there"))
        _spectator_may_chat(table)
    names = {s.client: s.account for s in state.seats if s.client is not None}
    names.update(state.watchers)
    to = tuple(c for c in table.audience() if names.get(c) not in cmd.ignored_by)
    table.send(to, Shared(ChatMessage(name=cmd.who.name, text=cmd.text, table=table.id).encode()))
    table.reply(cmd.who, Ok(id=cmd.rid))


def _spectator_may_chat(table: Table) -> None:
    """A spectator's line: refused while a game with a human player is in play and the
    table keeps spectators quiet, or past the spectators' shared rate."""
    state, settings = table.state, table.settings
    if (not state.spectator_chat and state.phase is Phase.PLAYING
            and any(s.kind == "human" for s in state.seats)):
        raise ProtocolError("not_seated", Msg("spectators may not chat to the players while "
                                              "this table's game is in play (its players may "
                                              "allow it)"))
    rate, burst = settings.spectator_chat_per_second, settings.spectator_chat_burst
    if rate <= 0:
        return
    now = table.now
    credit = burst if state.spectator_credit is None else min(
        burst, state.spectator_credit + max(0.0, now - state.spectator_credit_at) * rate)
    state.spectator_credit_at = now
    if credit < 1:
        state.spectator_credit = credit
        wait = (1 - credit) / rate
        raise ProtocolError("rate_limited", Msg("this table's spectators have chatted as much "
                                                "as they may for now; wait {wait:.1f} s before "
                                                "the next", wait=wait),
                            retry_after=math.ceil(wait * 100) / 100)
    state.spectator_credit = credit - 1


def on_options(table: Table, cmd: Options) -> None:
    """Change the table's options: only its players, or the player who opened it. During
    a game they are stored with it (a restart, or another node taking the table over,
    resumes it with them); a new game stores them as it starts."""
    if table.seat_of(cmd.who.client) is None and cmd.who.name != table.creator:
        raise ProtocolError("not_seated", Msg("only this table's players or the player who "
                                              "opened it may change its options"))
    state = table.state
    if state.phase is Phase.PLAYING and state.game_id is not None:  # kept with the game
        table.write(OptionsChanged(state.game_id, cmd.spectator_chat,
                                   state.private.stored() if state.private else None))
    state.spectator_chat = cmd.spectator_chat
    table.reply(cmd.who, Ok(id=cmd.rid))
    table.changed()  # the table (a ``table`` event) and the lobby see it

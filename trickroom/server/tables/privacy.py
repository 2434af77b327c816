"""A private table: listed to no one, entered by its invite, arranged by its opener.

Players who know each other play at a private table (issue 35), as World of Card Games
and Trickster Cards let them: the table is in no room's list, and a player comes in by
its **invite** (the table's id and a code of 128 random bits, which the browser sends
as a link, ``/#/join/<table>/<code>``). The code is the only key: it expires
(``invite_seconds`` after it was made), its players may renew it (the old one stops
working) and its opener may revoke it. Those already in (the opener, the players seated,
a player a seat is kept for) need no code. Without a code the table answers as if it did
not exist, so that a table's id alone tells nothing of it; with a wrong or stale code the
answer says so, so that a friend with an old link knows to ask for a new one.

Before a game starts the opener keeps seats for named players (``reserve``), moves
players between seats (``move_seat``) and removes a player (``remove_player``), who may
not come back by the invite unless a seat is kept for them again. Private tables are
for casual rooms: a ranked room's seating is its own (random or the host's), as the
ranking systems' multipliers for a random partner require.
"""

from __future__ import annotations

import base64
import hmac

from trickroom.i18n import Msg
from trickroom.server.auth import token_hash
from trickroom.server.protocol import Invited, InviteInfo, Ok, ProtocolError, Removed, Seated
from trickroom.server.tables.commands import Invite, MoveSeat, RemovePlayer, Reserve, Who
from trickroom.server.tables.log import Shared
from trickroom.server.tables.records import OptionsChanged
from trickroom.server.tables.seats import Seat
from trickroom.server.tables.state import Phase, Privacy
from trickroom.server.tables.table import Table

CODE_BITS = 128  # an invite code: guessing one is out of reach (issue 35: at least 96)


def new_code(table: Table) -> str:
    return base64.urlsafe_b64encode(
        table.rng.getrandbits(CODE_BITS).to_bytes(CODE_BITS // 8, "big")).decode().rstrip("=")


def issue(table: Table, privacy: Privacy) -> None:
    """A new invite code, valid ``invite_seconds`` from now; the old one stops working."""
    privacy.invite = new_code(table)
    privacy.invite_until = table.now + table.settings.invite_seconds


def invite_info(table: Table, privacy: Privacy) -> InviteInfo:
    live = privacy.invite is not None and table.now < privacy.invite_until
    return InviteInfo(table=table.id, code=privacy.invite if live else None,
                      expires_in=round(privacy.invite_until - table.now, 1) if live else None)


def _is_in(table: Table, who: Who) -> bool:
    """The opener, a player seated, or a player a seat is kept for."""
    privacy = table.state.private
    assert privacy is not None
    if who.name == table.creator or privacy.kept_for(who.name) is not None:
        return True
    return any(s.kind == "human" and s.account == who.name for s in table.state.seats)


def admit(table: Table, who: Who, code: str | None) -> None:
    """Let ``who`` sit at or watch the table, or refuse them: a public table admits
    everyone; a private one those in, and others with its live invite code."""
    privacy = table.state.private
    if privacy is None or _is_in(table, who):
        return
    if code is None:  # the table's id alone tells nothing: as for a table that is not
        raise ProtocolError("no_such_table", Msg("no table {id!r} is open (it may have closed)",
                                                 id=table.id))
    if who.name.lower() in privacy.removed:
        raise ProtocolError("not_invited", Msg("the player who opened this private table "
                                               "removed you from it"))
    valid = privacy.invite is not None and hmac.compare_digest(code.encode(),
                                                               privacy.invite.encode())
    if not valid or table.now >= privacy.invite_until:
        raise ProtocolError("not_invited", Msg("this invite is no longer valid (it was "
                                               "renewed, revoked or has expired): ask the "
                                               "table for a new link"))


def free_for(table: Table, who: Who, free: list[Seat]) -> list[Seat]:
    """The free seats ``who`` may take: at a private table, not a seat kept for another
    player, and their own kept seat first."""
    privacy = table.state.private
    if privacy is None:
        return free
    mine = privacy.kept_for(who.name)
    if mine is not None:
        return [s for s in free if s.index == mine]
    return [s for s in free if s.index not in privacy.reserved]


def taken(table: Table, seat: Seat) -> None:
    """A seat was taken: it is kept for no one any more."""
    privacy = table.state.private
    if privacy is not None:
        privacy.reserved.pop(seat.index, None)


# -- the requests ------------------------------------------------------------------------


def _private(table: Table) -> Privacy:
    privacy = table.state.private
    if privacy is None:
        raise ProtocolError("invalid_field", Msg("this table is not private: anyone may sit at "
                                                 "it from the room's list"))
    return privacy


def _opener(table: Table, who: Who, what: str) -> Privacy:
    privacy = _private(table)
    if who.name != table.creator:
        raise ProtocolError("not_authorized", Msg("only the player who opened this table may "
                                                  "{what}", what=what))
    if table.state.phase is not Phase.WAITING:
        raise ProtocolError("wrong_phase", Msg("the game has started: {what} before a game "
                                               "starts", what=what))
    return privacy


def on_invite(table: Table, cmd: Invite) -> None:
    privacy = _private(table)
    seated = table.seat_of(cmd.who.client) is not None
    if cmd.revoke:
        if cmd.who.name != table.creator:
            raise ProtocolError("not_authorized", Msg("only the player who opened this table "
                                                      "may revoke its invite"))
        privacy.invite, privacy.invite_until = None, 0.0
    elif not seated and cmd.who.name != table.creator:
        raise ProtocolError("not_seated", Msg("only this table's players, or the player who "
                                              "opened it, may see or renew its invite"))
    elif cmd.renew or privacy.invite is None or table.now >= privacy.invite_until:
        issue(table, privacy)
    else:
        table.reply(cmd.who, Invited(id=cmd.rid, invite=invite_info(table, privacy)))
        return
    state = table.state
    if state.phase is Phase.PLAYING and state.game_id is not None:  # kept with the game
        table.write(OptionsChanged(state.game_id, state.spectator_chat, privacy.stored()))
    table.reply(cmd.who, Invited(id=cmd.rid, invite=invite_info(table, privacy)))


def on_reserve(table: Table, cmd: Reserve) -> None:
    privacy = _opener(table, cmd.who, Msg("keep seats"))
    seat = table.state.seats[cmd.seat]
    if cmd.name is None:
        privacy.reserved.pop(cmd.seat, None)
    else:
        if seat.kind != "empty":
            raise ProtocolError("seat_taken", Msg("seat {seat} is taken by {name}", seat=cmd.seat,
                                                  name=seat.name))
        held = privacy.kept_for(cmd.name)
        if held is not None:
            del privacy.reserved[held]  # one seat kept a player
        if any(s.kind == "human" and s.account and s.account.lower() == cmd.name.lower()
               for s in table.state.seats):
            raise ProtocolError("seat_taken", Msg("{name} already sits at this table",
                                                  name=cmd.name))
        privacy.reserved[cmd.seat] = cmd.name
        privacy.removed.discard(cmd.name.lower())  # kept a seat: welcome back
    table.changed()
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_move_seat(table: Table, cmd: MoveSeat) -> None:
    privacy = _opener(table, cmd.who, Msg("move players"))
    seats = table.state.seats
    one, other = seats[cmd.seat], seats[cmd.to]
    if one.kind == "empty":
        raise ProtocolError("invalid_field", Msg("seat {seat} is empty: nobody to move",
                                                 seat=cmd.seat))
    if cmd.to in privacy.reserved:
        raise ProtocolError("seat_taken", Msg("seat {to} is kept for {name}", to=cmd.to,
                                              name=privacy.reserved[cmd.to]))
    if cmd.seat != cmd.to:
        seats[cmd.seat], seats[cmd.to] = other, one
        one.index, other.index = cmd.to, cmd.seat
        for seat in (one, other):
            tell_seat(table, seat)
    table.changed()
    table.reply(cmd.who, Ok(id=cmd.rid))


def tell_seat(table: Table, seat: Seat) -> None:
    """A moved human player (``move_seat``, or new partners for a rematch) learns their
    new seat, with a new seat token (their old one named the old seat)."""
    if seat.kind != "human" or seat.client is None:
        return
    token = new_code(table) + new_code(table)
    seat.token_hash = token_hash(token)
    table.send((seat.client,), Shared(Seated(table=table.id, seat=seat.index,
                                             seat_token=token).encode()))


def on_remove_player(table: Table, cmd: RemovePlayer) -> None:
    privacy = _opener(table, cmd.who, Msg("remove players"))
    seat = table.state.seats[cmd.seat]
    if seat.kind == "empty":
        raise ProtocolError("invalid_field", Msg("seat {seat} is empty: nobody to remove",
                                                 seat=cmd.seat))
    if seat.kind == "human" and seat.account == table.creator:
        raise ProtocolError("invalid_field", Msg("you opened this table: stand up instead"))
    if seat.kind == "human" and seat.account:
        privacy.removed.add(seat.account.lower())
    table.publish(Removed(seat=seat.index, name=seat.name or ""))  # the removed hear it too
    seat.clear()
    privacy.reserved.pop(cmd.seat, None)
    table.changed()
    table.tidy()
    table.reply(cmd.who, Ok(id=cmd.rid))

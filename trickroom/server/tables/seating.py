"""Who sits where and who watches: sitting, standing, filling, starting, leaving, returning.

A seat belongs to an account (DESIGN section 12): one account holds at most one
seat at a table, its seat token (only its hash is kept) takes the seat back from a
new connection of the same account only, and only the table's players, or the
player who opened it, fill or start it. A drop, a return or a leave during a game
is the room's policy's to handle (:mod:`.drops`).
"""

from __future__ import annotations

import base64

from trickroom.i18n import Msg
from trickroom.server.auth import token_hash, token_matches
from trickroom.server.protocol import Ok, ProtocolError, Seated, Substituted, TakenOver
from trickroom.server.tables import board, drops, play, privacy
from trickroom.server.tables.commands import (
    AgainOver,
    Disconnect,
    Fill,
    IdleOver,
    PlayAgain,
    Rejoin,
    RobotTurn,
    Sit,
    SitReserved,
    SitWithRobots,
    Stand,
    Start,
    TurnOver,
    Unwatch,
    Watch,
    Who,
    WindowOver,
)
from trickroom.server.tables.effects import Changed
from trickroom.server.tables.log import Shared, shared
from trickroom.server.tables.policies import Trigger
from trickroom.server.tables.seats import Seat, robot_name
from trickroom.server.tables.state import Phase
from trickroom.server.tables.table import Table


def _token(table: Table) -> str:
    return base64.urlsafe_b64encode(table.rng.getrandbits(192).to_bytes(24, "big")).decode()


def _take(table: Table, seat: Seat, who: Who, bot: bool) -> str:
    """``who`` takes ``seat`` (``bot``: a BOT account); returns the seat token (only its
    hash is kept)."""
    token = _token(table)
    seat.name, seat.account, seat.kind, seat.guest = who.name, who.name, "human", who.guest
    seat.bot = bot
    seat.client, seat.token_hash, seat.again = who.client, token_hash(token), False
    seat.group = who.group or None
    table.state.watchers.pop(who.client, None)
    return token


def _already_seated(table: Table, who: Who) -> None:
    """One account holds at most one seat at a table, in every room."""
    held = table.seat_of(who.client)
    if held is not None:
        raise ProtocolError("seat_taken", Msg("you already sit at seat {index} of this table",
                                              index=held.index))
    for seat in table.state.seats:
        if seat.kind == "human" and seat.account == who.name:
            raise ProtocolError(
                "seat_taken", Msg("{name} already sits at seat {index} of this table (from "
                                  "another connection): send rejoin with that seat's token to "
                                  "play it from here", name=who.name, index=seat.index))


def on_sit(table: Table, cmd: Sit) -> None:
    privacy.admit(table, cmd.who, cmd.invite)
    _already_seated(table, cmd.who)
    state = table.state
    if state.phase is Phase.PLAYING:
        _substitute(table, cmd)
        return
    if state.phase is not Phase.WAITING:
        raise ProtocolError("table_full", Msg("the game has started; watch it, or rejoin your "
                                              "own seat with its seat token"))
    if table.room.rated and cmd.refusal:
        raise ProtocolError("not_eligible", cmd.refusal)
    free = privacy.free_for(table, cmd.who, [s for s in state.seats if s.kind == "empty"])
    if not free:
        raise ProtocolError("table_full", Msg("every seat at this table is taken"))
    if table.seating == "random_seating":
        seat = table.rng.choice(free)  # seats are drawn, whatever was asked
    elif cmd.seat is None:
        seat = free[0]
    else:
        seat = state.seats[cmd.seat]
        if seat.kind != "empty":
            raise ProtocolError("seat_taken", Msg("seat {seat} is taken by {name}", seat=cmd.seat,
                                                  name=seat.name))
        if seat not in free:
            kept = state.private.reserved.get(seat.index) if state.private else None
            raise ProtocolError("seat_taken", Msg("seat {seat} is kept for {kept}", seat=cmd.seat,
                                                  kept=kept) if kept
                                else Msg("seat {index} is kept for you: sit there",
                                         index=free[0].index))
    privacy.taken(table, seat)
    token = _take(table, seat, cmd.who, cmd.bot)
    board.sat(table, seat.name or cmd.who.name)
    table.changed()
    table.cancel(IdleOver)
    play.maybe_start(table)
    table.reply(cmd.who, Seated(id=cmd.rid, table=table.id, seat=seat.index,
                                seat_token=token))


def on_sit_reserved(table: Table, cmd: SitReserved) -> None:
    """The random queue: the seat was drawn for this player; the game starts at four."""
    seat = table.state.seats[cmd.seat]
    if seat.kind != "empty" or table.state.phase is not Phase.WAITING:
        raise ProtocolError("seat_taken", Msg("seat {seat} is taken", seat=cmd.seat))
    token = _take(table, seat, cmd.who, cmd.bot)
    table.changed()
    table.cancel(IdleOver)
    table.reply(cmd.who, Seated(id=cmd.rid, table=table.id, seat=seat.index,
                                seat_token=token))
    play.maybe_start(table)


def on_sit_with_robots(table: Table, cmd: SitWithRobots) -> None:
    """A seek's table (casual, its seeker's own): the seeker at North, robots in the other
    seats, and the game starts."""
    _may_run(table, cmd.who, Msg("fill"))
    state = table.state
    if state.phase is not Phase.WAITING or any(s.kind != "empty" for s in state.seats):
        raise ProtocolError("table_full", Msg("the table is no longer empty"))
    token = _take(table, state.seats[0], cmd.who, cmd.bot)
    for seat in state.seats[1:]:
        seat.kind, seat.robot_level = "robot", cmd.level
        seat.name = robot_name(seat.index, cmd.level)
    table.changed()
    table.cancel(IdleOver)
    table.reply(cmd.who, Seated(id=cmd.rid, table=table.id, seat=0, seat_token=token))
    play.maybe_start(table)


def _substitute(table: Table, cmd: Sit) -> None:
    """A human takes a quitter's open seat, unrated (rooms whose policy allows it): one
    not experienced enough to sit at a ranked table may, one banned from ranked play
    may not (a quitter's ban would otherwise end at the next game's open seat)."""
    state = table.state
    open_seats = state.ranked.open_seats
    if not table.policy.substitutes or not open_seats:
        raise ProtocolError("table_full", Msg("the game has started; watch it, or rejoin your "
                                              "own seat with its seat token"))
    index = cmd.seat if cmd.seat is not None else min(open_seats)
    if index not in open_seats:
        raise ProtocolError("seat_taken", Msg("seat {index} is not open to a substitute",
                                              index=index))
    if cmd.who.name in {s.starter for s in state.seats}:
        raise ProtocolError("not_eligible", Msg("a player who left this game may not come back "
                                                "as a substitute"))
    if table.room.rated and cmd.ban:
        raise ProtocolError("not_eligible", cmd.ban)
    seat = state.seats[index]
    token = _take(table, seat, cmd.who, cmd.bot)
    seat.substitute = True
    open_seats.discard(index)
    table.save_seats()
    # The substitute sees the table from here (a snapshot), then what follows it.
    table.send((cmd.who.client,), shared(table.snapshot(index)))
    table.publish(Substituted(seat=index, name=cmd.who.name))
    table.changed()
    # The seat's turn was prompted to whoever held it before: prompted again, to them.
    state.prompted.pop(index, None)
    table.advance()
    table.reply(cmd.who, Seated(id=cmd.rid, table=table.id, seat=index, seat_token=token))


def on_stand(table: Table, cmd: Stand) -> None:
    seat = table.seated(cmd.who)
    if table.state.phase is Phase.PLAYING:
        table.note("left", f"{seat.name} left the game", seat)
        drops.run(table, Trigger.LEAVE, seat)
        table.advance()
    else:
        seat.clear()
        table.changed()
        table.tidy()
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_watch(table: Table, cmd: Watch) -> None:
    privacy.admit(table, cmd.who, cmd.invite)
    board.may_watch(table, cmd.who.name)
    table.state.watchers[cmd.who.client] = cmd.who.name
    table.reply(cmd.who, table.snapshot(None, cmd.rid))
    table.emit(Changed(table.info()))


def on_unwatch(table: Table, cmd: Unwatch) -> None:
    table.state.watchers.pop(cmd.who.client, None)
    table.reply(cmd.who, Ok(id=cmd.rid))
    table.emit(Changed(table.info()))
    table.tidy()


def _may_run(table: Table, who: Who, what: str) -> None:
    """Only the table's players, or the player who opened it, fill or start it."""
    if table.seat_of(who.client) is None and who.name != table.creator:
        raise ProtocolError("not_seated", Msg("only this table's players or the player who "
                                              "opened it may {what} it", what=what))


def on_fill(table: Table, cmd: Fill) -> None:
    if table.room.rated:
        raise ProtocolError("not_authorized", Msg("robots may not sit at a ranked table"))
    _may_run(table, cmd.who, Msg("fill"))
    if table.state.phase is not Phase.WAITING:
        raise ProtocolError("table_full", Msg("the game has started"))
    kept = table.state.private.reserved if table.state.private else {}
    for seat in table.state.seats:
        if seat.kind == "empty" and seat.index not in kept:  # a kept seat waits its player
            seat.kind, seat.robot_level = "robot", cmd.level
            seat.name = robot_name(seat.index, cmd.level)
    table.changed()
    table.cancel(IdleOver)
    play.maybe_start(table)
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_start(table: Table, cmd: Start) -> None:
    _may_run(table, cmd.who, Msg("start"))
    if table.state.phase is Phase.WAITING:
        if any(s.kind == "empty" for s in table.state.seats):
            raise ProtocolError("wrong_phase", Msg("a game starts when all four seats are filled"))
        play.maybe_start(table)
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_play_again(table: Table, cmd: PlayAgain) -> None:
    seat = table.seated(cmd.who)
    state = table.state
    if cmd.rotate and table.room.rated:
        raise ProtocolError("invalid_field", Msg("a ranked room seats its players by its own "
                                                 "rule: play again with the seats kept"))
    if state.phase is not Phase.OVER:
        raise ProtocolError("wrong_phase", Msg("the game is not over"))
    if table.room.rated and any(s.kind != "human" for s in state.seats):
        raise ProtocolError("wrong_phase", Msg("a ranked game starts with four players; a seat "
                                               "is empty"))
    seat.again, seat.rotate = True, cmd.rotate
    _maybe_again(table)
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_again_over(table: Table, cmd: AgainOver) -> None:
    if table.state.phase is Phase.OVER:
        _maybe_again(table)


def _maybe_again(table: Table) -> None:
    """The next game starts once every player here said *play again*. A player who went
    away only a moment ago (a dropped connection, their server moving them) is waited
    for, ``resume_grace_seconds`` from then, before a robot takes their seat for good:
    the others' instant *play again* does not take it from them as they reconnect."""
    state = table.state
    if not all(s.again for s in state.seats if s.connected):
        return
    grace = table.settings.resume_grace_seconds
    back_by = max((s.away_since + grace for s in state.seats if s.away), default=0.0)
    if back_by > table.now:
        table.set_timer(back_by - table.now, AgainOver())
        return
    table.cancel(AgainOver)
    asked = [s.rotate for s in state.seats if s.connected]
    for s in state.seats:
        s.again = s.rotate = False
        if s.away:  # gone since the game: a robot plays the seat
            s.kind, s.name, s.account, s.token_hash, s.group = (
                "robot", f"{s.name} (robot)", None, None, None)
            s.bot = False
        elif s.kind == "empty":
            s.kind, s.name = "robot", robot_name(s.index, s.robot_level)
    sandbox = state.private.sandbox if state.private else None
    if sandbox is not None and sandbox.played:
        _next_match_seats(table)
    elif 2 * sum(asked) > len(asked):
        _new_partners(table)
    table.cancel(IdleOver)
    state.phase = Phase.WAITING
    play.maybe_start(table)


def _new_partners(table: Table) -> None:
    """A rematch with new partners: North stays, the other three move one seat on (East
    to South, South to West, West to East), so that three rematches in a row give each
    player each partner once (in Hearts: each neighbour to pass to). Robots move with
    their seats; each player moved learns their new seat."""
    seats = table.state.seats
    order = [seats[0], seats[3], seats[1], seats[2]]
    for index, seat in enumerate(order):
        seat.index = index
    seats[:] = order
    for seat in order[1:]:
        privacy.tell_seat(table, seat)
    table.changed()


def _next_match_seats(table: Table) -> None:
    """The next game of a duplicate match: everyone one seat on (North to East, East to
    South, ...), so that the same deals give each player the cards another held. Robots
    move too; each player moved learns their new seat."""
    seats = table.state.seats
    order = [seats[3], seats[0], seats[1], seats[2]]
    for index, seat in enumerate(order):
        seat.index = index
    seats[:] = order
    for seat in order:
        privacy.tell_seat(table, seat)
    table.changed()


def on_disconnect(table: Table, cmd: Disconnect) -> None:
    state = table.state
    if state.watchers.pop(cmd.client, None) is not None:
        table.emit(Changed(table.info()))
    seat = table.seat_of(cmd.client)
    if seat is None:
        table.tidy()
        return
    if state.phase is not Phase.PLAYING:
        seat.clear()
        table.changed()
        table.tidy()
        return
    seat.client, seat.away_since = None, table.now
    table.note("away", f"{seat.name} is away; the seat's robot plays until they rejoin", seat)
    table.changed()
    table.cancel(TurnOver, seat.index)
    table.set_timer(table.settings.reconnect_seconds, WindowOver(seat.index))
    drops.run(table, Trigger.DROP, seat)
    table.advance()


def _rejoined_seat(table: Table, cmd: Rejoin) -> Seat:
    """The seat a rejoin's token is for, if the sender may take it from here."""
    for seat in table.state.seats:
        if seat.kind == "human" and token_matches(cmd.token, seat.token_hash):
            break
    else:
        raise ProtocolError("not_authorized",
                            Msg("that seat token does not match a seat waiting at this table "
                                "(the reconnect window may have passed)"))
    if seat.account != cmd.who.name:
        # A token is the seat holder's: a copy in anyone else's hands is worth nothing.
        raise ProtocolError("not_authorized", Msg("seat {index}'s token belongs to another "
                                                  "player; log in as them to rejoin",
                                                  index=seat.index))
    held = table.seat_of(cmd.who.client)
    if held is not None and held is not seat:
        raise ProtocolError("seat_taken", Msg("this connection already sits at seat {index} of "
                                              "this table", index=held.index))
    return seat


def on_rejoin(table: Table, cmd: Rejoin) -> None:
    seat = _rejoined_seat(table, cmd)
    state = table.state
    if seat.client is not None and seat.client != cmd.who.client:
        table.send((seat.client,), Shared(TakenOver(
            table=table.id, seat=seat.index,
            message=f"{seat.account} rejoined seat {seat.index} from another connection; "
                    "this one no longer plays it").encode()))
        state.watchers[seat.client] = seat.account or ""  # it may still watch
    was_away = seat.client is None
    if was_away:
        table.note("rejoined", f"{seat.name} rejoined", seat)
    # The seat's own connection asking again (to catch up) changes nothing a table or the
    # lobby shows: told to everyone, its every rejoin was a write to each of them.
    moved = seat.client != cmd.who.client or cmd.who.client in state.watchers
    seat.client = cmd.who.client
    state.watchers.pop(cmd.who.client, None)
    state.prompted.pop(seat.index, None)  # this connection has seen no prompt yet
    table.cancel(WindowOver, seat.index)
    table.cancel(RobotTurn, seat.index)
    # A client that saw nothing (last_seq 0) gets a snapshot, not the whole log.
    missed = table.log.since(cmd.last_seq, seat.index) if cmd.last_seq else None
    if missed is None:
        table.reply(cmd.who, table.snapshot(seat.index, cmd.rid))
    else:
        table.reply(cmd.who, Ok(id=cmd.rid))
        for message in missed:
            table.send((cmd.who.client,), message)
    if moved:
        table.changed()
    # After the reply: what the return changes (a vote closed, the game going on) reaches
    # the client as events past its snapshot, and its turn is prompted once.
    if was_away and state.phase is Phase.PLAYING:
        drops.run(table, Trigger.REJOIN, seat)
    table.advance()

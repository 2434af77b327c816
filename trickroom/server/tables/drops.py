"""Drops, returns, quits and votes: the steps a room's policy names, one small function each.

:mod:`.policies` says, as data, which steps each room takes on each trigger; this
module is what each step does to a table. Every step is a function ``(table, seat,
trigger)`` that changes the table's state and says what follows through its helpers
(``publish``, ``write``, ``set_timer``, ...), so a step, like the rest of the table,
only returns effects and never does I/O. Votes live here too: opening one, casting,
counting and closing it, whose outcome is itself a trigger of the policy; and the
pauses they make (``state.paused``, ``state.pauses``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

from trickroom.i18n import Msg
from trickroom.ratings import Departure
from trickroom.server.protocol import (
    Ok,
    ProtocolError,
    Quit,
    Resumed,
    VoteCast,
    VoteResult,
    VoteStarted,
)
from trickroom.server.tables import rating
from trickroom.server.tables.commands import CastVote, RobotTurn, TurnOver, VoteOver, WindowOver
from trickroom.server.tables.policies import Step, Trigger
from trickroom.server.tables.records import Banned, Rated
from trickroom.server.tables.seats import VOTE_CHOICES, Seat, Vote
from trickroom.server.tables.table import Table

HOUR = 3600.0

StepFunction = Callable[[Table, Seat, Trigger], None]


def run(table: Table, trigger: Trigger, seat: Seat) -> None:
    """Take the steps the table's policy names for ``trigger`` about ``seat``, in order."""
    for step in table.policy.on(trigger, seat.substitute):
        STEPS[step](table, seat, trigger)


# -- the steps ---------------------------------------------------------------------------------


def blame(table: Table, seat: Seat, trigger: Trigger) -> None:
    ranked = table.state.ranked
    ranked.first_disconnect = ranked.first_disconnect or seat.starter


def ask_wait(table: Table, seat: Seat, trigger: Trigger) -> None:
    if table.state.vote is None:
        start_vote(table, "wait", seat)


def renew_window(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.set_timer(table.settings.reconnect_seconds, WindowOver(seat.index))


def end_wait_vote(table: Table, seat: Seat, trigger: Trigger) -> None:
    vote = table.state.vote
    if vote is not None and vote.seat == seat.index and vote.kind == "wait":
        close_vote(table, "returned")


def resume_if_all_back(table: Table, seat: Seat, trigger: Trigger) -> None:
    state = table.state
    if state.paused and not any(s.away for s in state.seats) and state.vote is None:
        unpause(table)
        table.publish(Resumed(seat=seat.index))


def wait_for_return(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.state.paused = Msg("waiting for {name} to return", name=seat.starter)


def charge(table: Table, seat: Seat, trigger: Trigger) -> None:
    """The leaver is charged an incomplete game: a quit, or a drop the others did not wait
    for (Zone's Don't wait)."""
    hands = rating.hands_done(table)
    if trigger is Trigger.DONT_WAIT:
        departure = Departure(seat.starter or "", "dropped", hands, "dont_wait")
    else:
        departure = Departure(seat.starter or "", "quit", hands)
    table.state.ranked.departures.append(departure)


def robot_keeps(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.cancel(WindowOver, seat.index)
    table.cancel(TurnOver, seat.index)
    seat.kind, seat.token_hash, seat.client, seat.bot = "robot", None, None, False
    seat.name = f"{seat.starter or seat.name} (robot)"
    table.save_seats()
    table.changed()


def announce_quit(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.publish(Quit(seat=seat.index, player=seat.starter))


def rate_quit_now(table: Table, seat: Seat, trigger: Trigger) -> None:
    """WoCG: the quitter is rated at once as losing to both opponents, and banned."""
    game, game_id = table.state.game, table.state.game_id
    assert game is not None and game_id is not None
    starter = seat.starter or ""
    how: Literal["quit", "dropped"] = "quit" if trigger is Trigger.LEAVE else "dropped"
    table.state.ranked.departures.append(Departure(starter, how, rating.hands_done(table)))
    result = rating.result(table, game.result())
    change = table.rating_system.rate_quit(result, rating.start_ratings(table), starter)
    if change is not None:
        table.state.ranked.already_rated.add(starter)
        table.write(Rated(game_id, result, (change,)))
    until = table.now + HOUR
    table.write(Banned(starter, until, "quit a ranked game"))
    table.publish(Quit(seat=seat.index, player=starter,
                       rating=change.to_wire() if change else None, banned_until=until))


def open_seat(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.state.ranked.open_seats.add(seat.index)


def close_seat(table: Table, seat: Seat, trigger: Trigger) -> None:
    table.state.ranked.open_seats.discard(seat.index)
    table.changed()


def ask_invite(table: Table, seat: Seat, trigger: Trigger) -> None:
    start_vote(table, "invite_robot", seat)


def end_after_hand(table: Table, seat: Seat, trigger: Trigger) -> None:
    if table.state.ranked.end_after is None:
        table.state.ranked.end_after = seat.index


def keep_playing(table: Table, seat: Seat, trigger: Trigger) -> None:
    if table.state.ranked.end_after == seat.index:
        table.state.ranked.end_after = None  # back before the hand ended: the game goes on


STEPS: dict[Step, StepFunction] = {
    Step.BLAME: blame, Step.ASK_WAIT: ask_wait, Step.RENEW_WINDOW: renew_window,
    Step.END_WAIT_VOTE: end_wait_vote, Step.RESUME_IF_ALL_BACK: resume_if_all_back,
    Step.WAIT_FOR_RETURN: wait_for_return, Step.CHARGE: charge, Step.ROBOT_KEEPS: robot_keeps,
    Step.ANNOUNCE_QUIT: announce_quit, Step.RATE_QUIT: rate_quit_now, Step.OPEN_SEAT: open_seat,
    Step.CLOSE_SEAT: close_seat, Step.ASK_INVITE: ask_invite,
    Step.END_AFTER_HAND: end_after_hand, Step.KEEP_PLAYING: keep_playing,
}

# -- votes -------------------------------------------------------------------------------------

VOTE_TRIGGERS = {"wait": Trigger.WAIT, "dont_wait": Trigger.DONT_WAIT,
                 "robot": Trigger.INVITE_ROBOT, "no": Trigger.NO_ROBOT}


def vote_started(table: Table, vote: Vote) -> VoteStarted:
    return VoteStarted(vote=vote.id, kind=vote.kind, seat=vote.seat,
                       player=table.state.seats[vote.seat].starter,
                       seconds=table.settings.vote_seconds, voters=sorted(vote.voters),
                       choices=list(VOTE_CHOICES[vote.kind]))


def start_vote(table: Table, kind: str, seat: Seat) -> None:
    """Ask the players still connected about ``seat``; a Wait vote pauses the game."""
    voters = frozenset(s.index for s in table.state.seats if s.connected and s.index != seat.index)
    vote = Vote(f"{table.rng.getrandbits(24):06x}", cast(Any, kind), seat.index, voters)
    table.state.vote = vote
    if kind == "wait":
        table.cancel_kinds(RobotTurn, TurnOver)
        table.state.paused = Msg("a vote on waiting for {name} is open", name=seat.starter)
    table.publish(vote_started(table, vote))
    if not voters:
        close_vote(table, "dont_wait" if kind == "wait" else "no")
        return
    table.set_timer(table.settings.vote_seconds, VoteOver(vote.id))


def on_cast(table: Table, cmd: CastVote) -> None:
    if not table.policy.votes:
        raise ProtocolError("wrong_phase", Msg("casual tables have no votes"))
    seat = table.seated(cmd.who)
    vote = table.state.vote
    if vote is None or vote.id != cmd.vote:
        raise ProtocolError("wrong_phase", Msg("no such vote is open (it may have closed)"))
    if seat.index not in vote.voters:
        raise ProtocolError("not_authorized", Msg("you may not vote on this"))
    if seat.index in vote.cast:
        raise ProtocolError("invalid_field", Msg("you have already voted"))
    if cmd.choice not in VOTE_CHOICES[vote.kind]:
        raise ProtocolError("invalid_field",
                            Msg("choose one of: {choices}",
                                choices=', '.join(VOTE_CHOICES[vote.kind])))
    vote = table.state.vote = vote.with_choice(seat.index, cmd.choice)
    table.publish(VoteCast(vote=vote.id, seat=seat.index, choice=cmd.choice))
    if vote.kind == "wait" and cmd.choice == "dont_wait":
        close_vote(table, "dont_wait")
    elif vote.all_cast:
        close_vote(table, count(vote))
    table.advance()
    table.reply(cmd.who, Ok(id=cmd.rid))


def on_vote_over(table: Table, cmd: VoteOver) -> None:
    vote = table.state.vote
    if vote is not None and vote.id == cmd.vote:
        close_vote(table, count(vote))
        table.advance()


def count(vote: Vote) -> str:
    """No answer counts as Wait (Zone) or as no (an invited robot, by majority)."""
    if vote.kind == "wait":
        return "dont_wait" if "dont_wait" in vote.cast.values() else "wait"
    yes = sum(1 for c in vote.cast.values() if c == "yes")
    return "robot" if yes * 2 > len(vote.voters) else "no"


def close_vote(table: Table, outcome: str) -> None:
    vote = table.state.vote
    assert vote is not None
    table.state.vote = None
    table.cancel(VoteOver)
    table.publish(VoteResult(vote=vote.id, kind=vote.kind, seat=vote.seat,
                             outcome=cast(Any, outcome)))
    trigger = VOTE_TRIGGERS.get(outcome)
    if trigger is not None:
        run(table, trigger, table.state.seats[vote.seat])


def unpause(table: Table) -> None:
    """The game goes on; a turn refused during the pause is prompted again."""
    state = table.state
    if state.paused:
        state.paused = None
        state.pauses += 1

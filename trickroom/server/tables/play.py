"""The game at a table: starting it, its moves, its turns and robots, its end, a restart.

How a game goes, in the order the table runs it::

    waiting --(four seats filled)--> [ranked: LoadStandings] --> playing
    playing --(an action)--> ActionTaken stored --> events, reply, next prompts
    playing --(hand over)--> NextHand timer --> deal --> prompts / robot timers
    playing --(game over, or a points drop at hand's end)--> GameEnded (+Rated) --> over

A seat is prompted once a turn (a :data:`~.commands.Turn`: the game, the seat's
actions, the pauses ended); a turn's clock or a robot's answer for an old turn is
stale and does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from trickroom.game import duplicate
from trickroom.game.actions import Action, ActionParseError, IllegalAction, Pass, action_from_wire
from trickroom.game.cards import hands_from_texts
from trickroom.game.engine import ENGINES
from trickroom.game.events import Event
from trickroom.i18n import Msg
from trickroom.i18n.message import to_data
from trickroom.ratings import Standing
from trickroom.server.languages import localized
from trickroom.server.protocol import (
    WHY_LENGTH,
    DuplicateMargin,
    DuplicateResult,
    GameFinish,
    GameOver,
    GameStart,
    GameStarted,
    Ok,
    Prompt,
    ProtocolError,
    ServerMessage,
    TimedOut,
)
from trickroom.server.tables import board, drops, rating
from trickroom.server.tables.commands import (
    Act,
    BoardJoined,
    IdleOver,
    NextHand,
    Resume,
    Retry,
    RobotChose,
    RobotTurn,
    StandingsLoaded,
    Turn,
    TurnOver,
    VoteOver,
    WindowOver,
)
from trickroom.server.tables.effects import AskRobot, Changed, LoadStandings, ToAccounts
from trickroom.server.tables.log import Shared
from trickroom.server.tables.policies import Trigger
from trickroom.server.tables.records import ActionTaken, GameCreated, GameEnded, SeatsChanged
from trickroom.server.tables.seats import Seat
from trickroom.server.tables.state import Phase, RankedState, Sandbox
from trickroom.server.tables.table import Table

# -- the start -------------------------------------------------------------------------------


def maybe_start(table: Table) -> None:
    state = table.state
    if state.phase is not Phase.WAITING or any(s.kind == "empty" for s in state.seats):
        return
    # A duplicate room's table claims a board set's table first (board.py): at once if
    # it holds one, else when the store answers (on_board_joined).
    if not table.room.duplicate or board.join(table):
        _start(table)


def on_board_joined(table: Table, cmd: BoardJoined) -> None:
    if board.joined(table, cmd):
        _start(table)


def _start(table: Table) -> None:
    """Four seats filled: the game starts, a ranked room's once the standings are read."""
    if table.room.rated:
        players = tuple(s.account or "" for s in table.state.seats)
        table.emit(LoadStandings(players, table.room.game, table.system))
    else:
        start_game(table, {})


def on_standings(table: Table, cmd: StandingsLoaded) -> None:
    state = table.state
    if state.phase is Phase.WAITING:
        if all(s.kind != "empty" for s in state.seats) and (
                not table.room.duplicate or state.board is not None):
            start_game(table, dict(cmd.standings))
    elif state.phase is Phase.PLAYING and state.resuming:
        state.ranked.standings = dict(cmd.standings)
        state.chances = rating.chances(table)
        table.emit(Changed(table.info()))
        _resumed(table)


def start_game(table: Table, standings: dict[str, Standing]) -> None:
    state = table.state
    sandbox = state.private.sandbox if state.private else None
    if table.room.duplicate and state.board is not None:
        seed, game = board.new_game(table)
    elif sandbox is None:
        seed = table.rng.getrandbits(32)
        game = ENGINES[table.room.game](table.rules, seed)
    else:  # every game of a sandbox on the same deals (a duplicate match moves the players)
        seed = sandbox.seed
        game = ENGINES[table.room.game](table.rules, seed,
                                        deals=[hands_from_texts(d) for d in sandbox.deals])
        if not sandbox.played:
            sandbox.first_seats = {s.name or "": s.index for s in state.seats}
    game_id = f"{table.id}-{table.rng.getrandbits(32):08x}"
    for seat in state.seats:
        seat.starter, seat.substitute, seat.again = seat.name, False, False
    rules = game.record()["rules"]
    table.write(GameCreated(game_id, table.id, table.room.name, table.room.game, rules, seed,
                            game.first_dealer, tuple(s.stored() for s in state.seats),
                            table.seating, state.spectator_chat, table.creator,
                            state.private.stored() if state.private else None))
    if table.room.duplicate and state.board is not None:
        board.started(table, game_id)
    state.game, state.game_id, state.phase = game, game_id, Phase.PLAYING
    state.games += 1
    state.acted = [0, 0, 0, 0]
    state.whys = {}
    state.prompted.clear()
    state.paused, state.vote = None, None
    state.ranked = RankedState(standings=standings)
    state.chances = rating.chances(table) if table.room.rated else None
    state.over = None
    table.changed()
    table.publish(GameStarted(game_id=game_id, rules=rules,
                              system=table.system if table.room.rated else None,
                              chances=state.chances))
    table.publish_game(game.opening_events())
    _tell_players(table, lambda seat: GameStart(
        table=table.id, game_id=game_id, room=table.room.name, game=table.room.game,
        seat=seat.index))
    advance(table)


def _tell_players(table: Table, message: Callable[[Seat], ServerMessage]) -> None:
    """A message for each registered player seated, wherever their connections are (the
    event stream a bot waits on: issue 36, item 2)."""
    told = tuple((s.account, Shared(message(s).encode())) for s in table.state.seats
                 if s.kind == "human" and s.account and not s.guest)
    if told:
        table.emit(ToAccounts(told))


# -- moves ---------------------------------------------------------------------------------


def on_act(table: Table, cmd: Act) -> None:
    seat = table.seated(cmd.who)
    state = table.state
    if state.game is None or state.phase is not Phase.PLAYING:
        raise ProtocolError("wrong_phase", Msg("no game is being played at this table"))
    if state.paused:
        raise ProtocolError("wrong_phase", Msg("the game is paused: {paused}", paused=state.paused))
    try:
        action = action_from_wire(dict(cmd.action))
    except ActionParseError as exc:
        raise ProtocolError("invalid_field", Msg("action: {exc}", exc=exc.args[0])) from None
    _apply(table, seat.index, action)
    table.reply(cmd.who, Ok(id=cmd.rid))


def _apply(table: Table, index: int, action: Action, why: str = "", told: str = "") -> None:
    """Apply one action: it is stored with everything it causes, or refused.

    ``why``: a robot's reason for a bid, from its hand: stored, and shown in the review
    once the game is over. ``told``: the reason the table gets with the bid meanwhile,
    which tells no fact of the hand (the whole reason would be table talk: a partner
    learning a suit's length or the tricks expected, and the opponents too).
    """
    state = table.state
    game, game_id = state.game, state.game_id
    assert game is not None and game_id is not None
    try:
        events = game.apply(action, index)
    except IllegalAction as exc:
        raise ProtocolError(exc.code, exc.args[0]) from None
    seat, done = game.actions[-1]
    state.acted[index] += 1
    wire = done.to_wire()
    idx = len(game.actions) - 1
    why, told = (why, told) if wire["type"] == "bid" else ("", "")
    if why:
        wire["why"] = state.whys[idx] = why
    else:
        state.whys.pop(idx, None)
    table.write(ActionTaken(game_id, idx, seat, wire))
    if state.board is not None and len(game.hand_results) > state.board.played:
        board.hand_over(table)  # a duplicate room's deal, kept for the other tables
    if game.phase == "game_over":
        end_game(table, events)
    else:
        table.publish_game(events, told)
        advance(table)


def _turn(table: Table, index: int) -> Turn:
    state = table.state
    return (state.games, state.acted[index], state.pauses)


def advance(table: Table) -> None:
    """What follows a change: the next deal, the end, prompts, robots and turn clocks."""
    state = table.state
    game = state.game
    if game is None or state.phase is not Phase.PLAYING or state.paused or state.resuming:
        return
    if game.phase == "hand_over":
        if state.ranked.end_after is not None:
            end_game(table, abandoned=True)
        else:
            table.set_timer(table.settings.hand_pause, NextHand(game.hand_no))
        return
    for index in game.awaiting:
        seat = state.seats[index]
        turn = _turn(table, index)
        if seat.robot_plays:
            delay = table.settings.robot_delay
            if seat.kind == "human":  # away: after a resume, given the time to come back
                delay = max(delay, state.back_by - table.now)
            table.set_timer(delay, RobotTurn(index, turn))
        else:
            if state.turn_ends.get(index, (None, 0.0))[0] != turn:
                state.turn_ends[index] = (turn, table.now + table.turn_seconds)
            _prompt(table, seat, turn)
            table.set_timer(state.turn_ends[index][1] - table.now, TurnOver(index, turn))


def _prompt(table: Table, seat: Seat, turn: Turn) -> None:
    """Send the seat its turn, once per turn (a rejoining connection gets it again).

    A turn ends when the seat acts (or its robot does). Other events on the way (a drop,
    a vote, another seat's pass) do not prompt again: a client that had already answered
    would answer twice, and its second answer would be refused. A pause is the
    exception: an answer sent during it was refused, so the turn is prompted again when
    the game goes on (the turn's key counts pauses).
    """
    state = table.state
    game = state.game
    if game is None or seat.client is None or state.prompted.get(seat.index) == turn:
        return
    state.prompted[seat.index] = turn
    view = game.view(seat.index).to_wire()  # hand, legal and illegal come from the view
    ends = state.turn_ends.get(seat.index)
    deadline = ends[1] if ends is not None and ends[0] == turn else table.now + table.turn_seconds
    table_id, seq, index, phase = table.id, table.log.seq, seat.index, game.phase
    seconds, now = round(max(0.0, deadline - table.now), 3), round(table.now, 3)
    pass_count = game.rules.pass_count if game.phase == "pass" else None
    deadline = round(deadline, 3)
    prompt = Prompt.wire(table_id, seq, index, phase, view["legal"], seconds, view["hand"],
                         view, pass_count, view["illegal"], deadline, now)
    localize = None
    if view["illegal"]:  # the reasons, in each language a connection reads
        def localize(language: str) -> bytes:
            return Prompt.wire(table_id, seq, index, phase, view["legal"], seconds,
                               view["hand"], localized(view, language), pass_count,
                               localized(view["illegal"], language), deadline, now)
    table.send((seat.client,), Shared(prompt, localize))


def turn_info(table: Table) -> dict[str, Any] | None:
    """Whose turn it is now, as game events carry it: the game's phase, the seat it waits
    on (the view's ``to_act``) and every seat it waits on (``awaiting``)."""
    game = table.state.game
    if game is None:
        return None
    return {"phase": game.phase, "to_act": game.to_act, "awaiting": list(game.awaiting)}


# -- clocks and robots -----------------------------------------------------------------------


def on_window_over(table: Table, cmd: WindowOver) -> None:
    state = table.state
    seat = state.seats[cmd.seat]
    if not seat.away:
        return
    table.note("window_over", f"{seat.name} did not come back in time", seat)
    if state.phase is Phase.PLAYING:
        drops.run(table, Trigger.WINDOW_OVER, seat)
        advance(table)
    elif state.phase is Phase.OVER:  # the game ended meanwhile: the seat is free
        seat.clear()
        table.changed()
        table.tidy()


def on_turn_over(table: Table, cmd: TurnOver) -> None:
    if _current(table, cmd.seat, cmd.turn):
        table.publish(TimedOut(seat=cmd.seat), to=cmd.seat)  # the seat alone hears it
        _ask_robot(table, cmd.seat, cmd.turn, timeout=True)


def on_robot_turn(table: Table, cmd: RobotTurn) -> None:
    if _current(table, cmd.seat, cmd.turn) and table.state.seats[cmd.seat].robot_plays:
        _ask_robot(table, cmd.seat, cmd.turn, timeout=False)


def _current(table: Table, index: int, turn: Turn) -> bool:
    state = table.state
    game = state.game
    return (game is not None and state.phase is Phase.PLAYING and not state.paused
            and index in game.awaiting and _turn(table, index) == turn)


def _ask_robot(table: Table, index: int, turn: Turn, timeout: bool) -> None:
    """Ask the seat's robot for its action. A robot thinks at its level only while a
    player sits here connected: searching robots cost a worker a fifth of a second a
    move, and a table its creator filled with them and left (or whose players all
    dropped) would spend that on nobody, for hours: the table's others are robots, who
    do not mind, so it plays on at the heuristic (issue 32, A). Its players' connections
    go with the question: the runner charges the search to their address groups, which
    may have spent their share (server/thinking.py)."""
    state = table.state
    game = state.game
    assert game is not None
    seat = state.seats[index]
    level = seat.robot_level
    humans = tuple(s.client for s in state.seats if s.client is not None and s.connected)
    if level == "search" and not humans:
        level = "heuristic"
    table.emit(AskRobot(index, level, game.view(index), turn, timeout, humans))


def on_robot_chose(table: Table, cmd: RobotChose) -> None:
    seat = table.state.seats[cmd.seat]
    if not _current(table, cmd.seat, cmd.turn) or not (cmd.timeout or seat.robot_plays):
        table.note("stale_robot", "a robot's answer came after its turn", seat)
        return
    game = table.state.game
    assert game is not None
    action = cmd.action
    if isinstance(action, Pass) and action not in game.legal_actions(cmd.seat):
        return
    try:
        _apply(table, cmd.seat, action, _robot_reason(cmd.why), _robot_reason(cmd.told))
    except ProtocolError as exc:  # a robot's mistake must not stall the table
        table.note("robot_illegal", f"robot chose {action}: {exc.message}", seat)
        _apply(table, cmd.seat, game.legal_actions(cmd.seat)[0])


CARD_WORDS = re.compile(r"[♣♦♥♠]|\b(10|[2-9TJQKA])[CDHS]\b|\b(ace|king|queen|jack|ten) of\b",
                        re.IGNORECASE)
"""What could name a card in a robot's reason: a code, a suit symbol, "ace of ..."."""


def _robot_reason(reason: str) -> str:
    """A robot's reason for its action as the table may tell it: one line, at most
    ``WHY_LENGTH`` characters, and none at all if it could name a card (the others at the
    table may not see the robot's hand; the robots' own reasons never do)."""
    why = " ".join(reason.split())
    if not why or len(why) > WHY_LENGTH or CARD_WORDS.search(why):
        return ""
    return reason if why == reason else why  # a Msg stays one, for each reader's language


def on_next_hand(table: Table, cmd: NextHand) -> None:
    state = table.state
    game = state.game
    if (game is None or state.phase is not Phase.PLAYING or game.phase != "hand_over"
            or game.hand_no != cmd.hand):
        return
    table.publish_game(game.next_hand())
    advance(table)


# -- the end ---------------------------------------------------------------------------------


def end_game(table: Table, events: list[Event] | None = None, abandoned: bool = False,
             announce: bool = False) -> None:
    """Store the game's end (with its rating changes) and tell the table.

    ``events``: the last action's, whose ``game_over`` gets the rating changes;
    ``abandoned``: ended early (a points room after a drop), on the score so far;
    ``announce``: a resumed game whose end was never stored nor told.
    """
    state = table.state
    game, game_id = state.game, state.game_id
    assert game is not None and game_id is not None
    outcome = game.result()
    ratings = rating.rate(table, outcome) if table.room.rated else None
    sandbox = state.private.sandbox if state.private else None
    # A sandbox's deals are known beforehand: its games count toward nothing.
    casual = () if table.room.rated or abandoned or sandbox else _casual_credit(table)
    record = game.record()
    said = {}
    for idx, why in state.whys.items():
        if idx < len(record["actions"]):
            record["actions"][idx]["why"] = why
            if isinstance(why, Msg):
                said[str(idx)] = to_data(why)
    if said:  # the reasons' templates and values: a review reads them in its language
        record["said"] = said
    # The seats' address groups served the game in play (its eligibility, a restart): a
    # game kept for good keeps no player's address.
    table.write(SeatsChanged(game_id, tuple({**s.stored(), "group": None}
                                            for s in state.seats)))
    table.write(GameEnded(game_id, outcome.to_wire(), record,
                          tuple(ratings) if ratings is not None else None, casual,
                          sandbox is not None))
    if sandbox is not None and sandbox.duplicate:
        _match_game_over(table, sandbox)  # told before the game's end: a bot stops there
    if table.room.duplicate:
        board.game_over(table)
    turn = turn_info(table)
    over = GameOver(scores=list(outcome.scores), winners=list(outcome.winners),
                    ratings=ratings or [], chances=state.chances)
    for event in events or ():
        if event.kind == "game_over":  # told with the rating changes it caused
            state.over = _with_breakdowns(over, ratings)
            table.publish(state.over, turn=turn, texts=True)
        else:
            table.publish(event.to_wire(), event.to, turn)
    if abandoned or announce:
        state.over = _with_breakdowns(GameOver(
            scores=list(outcome.scores), winners=[] if abandoned else list(outcome.winners),
            ratings=ratings or [], abandoned=abandoned, chances=state.chances), ratings)
        table.publish(state.over, texts=True)
    _tell_players(table, lambda seat: GameFinish(
        table=table.id, game_id=game_id, room=table.room.name, game=table.room.game,
        seat=seat.index, scores=list(outcome.scores),
        winners=[] if abandoned else list(outcome.winners), abandoned=abandoned))
    state.phase = Phase.OVER
    state.paused, state.vote = None, None
    table.cancel_kinds(TurnOver, RobotTurn, NextHand, VoteOver, Retry)
    table.changed()
    table.tidy()
    if state.phase is Phase.OVER:
        table.set_timer(table.settings.table_idle_seconds, IdleOver())


def _with_breakdowns(over: GameOver, ratings: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The ``game_over`` event with its rating breakdowns' texts as the ratings wrote them
    (each a Msg, rendered in each reader's language; the model keeps their English)."""
    wire = over.model_dump()
    for shown, change in zip(wire["ratings"], ratings or [], strict=True):
        for line, term in zip(shown["breakdown"], change["breakdown"], strict=True):
            line["text"] = term["text"]
    return wire


def _match_game_over(table: Table, sandbox: Sandbox) -> None:
    """A game of a duplicate match is over: keep its hands' points; after the match's
    last game, tell the table how each player did against the field (and start anew)."""
    state = table.state
    game = state.game
    assert game is not None
    kind = table.room.game
    names = tuple(s.name or "" for s in state.seats)
    sandbox.played.append(duplicate.PlayedGame(
        (names[0], names[1], names[2], names[3]),
        tuple(duplicate.hand_points(kind, r) for r in game.hand_results)))
    if len(sandbox.played) < sandbox.match_games(kind):
        return
    played, sandbox.played = sandbox.played, []
    margins = duplicate.compare(played, sandbox.first_seats)
    deals = min(len(g.hands) for g in played)
    table.publish(DuplicateResult(
        games=len(played), deals=deals,
        hands=[[list(h) for h in g.hands[:deals]] for g in played],
        players=[DuplicateMargin(name=m.name, seats=list(m.seats), deals=list(m.deals),
                                 total=round(m.total, 2)) for m in margins]))


def _casual_credit(table: Table) -> tuple[str, ...]:
    """Who a finished casual game counts toward ranked eligibility: each registered
    account present at the end, once, and only when they played from at least two
    address groups (one person alone, with guests, robots or accounts of their own,
    earns nothing; the accounts of one group count as one), a game of a real length: to
    at least half the room's own target (issue 32, item 7: five games to one point, a
    hand each, with two accounts of one person, had made an account eligible in 0.6 s).
    A seat stored before groups were kept counts as a group of its own."""
    game = table.state.game
    if game is None or 2 * game.rules.target < table.room.make_rules().target:
        return ()
    groups = {s.account: s.group or f"account:{s.account}" for s in table.state.seats
              if s.connected and s.account and not s.guest and not s.bot}
    return tuple(sorted(groups)) if len(set(groups.values())) >= 2 else ()


# -- a restart -------------------------------------------------------------------------------


def on_resume(table: Table, cmd: Resume) -> None:
    """A stored game, resumed: seats wait for their players; robots play away seats."""
    state = table.state
    game = cmd.game
    state.game, state.game_id, state.phase = game, cmd.game_id, Phase.PLAYING
    state.games += 1
    # The players did not leave: their server did. Their robots wait a moment for them.
    state.back_by = table.now + table.settings.resume_grace_seconds
    state.acted = [sum(1 for s, _ in game.actions if s == i) for i in range(4)]
    for stored in cmd.seats:
        seat = state.seats[stored["seat"]]
        seat.name, seat.kind = stored["name"], stored["kind"]
        seat.account = stored.get("account", stored["name"] if seat.kind == "human" else None)
        seat.guest, seat.group = stored.get("guest", False), stored.get("group")
        seat.bot = stored.get("bot", False)
        seat.token_hash, seat.robot_level = stored.get("token_hash"), stored["robot_level"]
        seat.starter, seat.substitute = stored.get("starter"), stored.get("substitute", False)
        if seat.kind == "human":
            seat.away_since = table.now
            table.set_timer(table.settings.reconnect_seconds, WindowOver(seat.index))
    # Past any seq issued before the restart. A table's seq runs on across its games and
    # counts unstored events (deals, drops, rejoins), so this game's actions alone are no
    # bound. The wall clock in microseconds outruns any table's event rate (in
    # milliseconds it did not: four robots with no delay issue well over 1,000 events a
    # second), and stays below 2**53, exact in JavaScript.
    table.log.seq = max(table.log.seq, 10 * len(game.actions) + 1000,
                        int(table.now * 1_000_000))
    table.emit(Changed(table.info()))
    if table.room.rated:
        state.resuming = True
        table.emit(LoadStandings(tuple(s.starter or "" for s in state.seats),
                                 table.room.game, table.system))
    else:
        _resumed(table)


def _resumed(table: Table) -> None:
    state = table.state
    state.resuming = False
    game = state.game
    if game is not None and game.phase == "game_over":
        # The game's last action was stored, but the process died before its end was:
        # store the end now and say so (that action's events were never sent).
        end_game(table, announce=True)
        return
    advance(table)


def on_retry(table: Table, cmd: Retry) -> None:
    if table.state.phase is Phase.WAITING:
        table.state.joining = None  # a board set's claim that failed is asked again
        maybe_start(table)
    else:
        advance(table)

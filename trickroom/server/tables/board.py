"""A duplicate room's tables (issue 39): each game is one table of a board set.

**Theory of operation.** A board set is a seed (its deals, :func:`game.duplicate.board_deals`)
played at ``Room.board_tables`` tables: two in Spades, four in Hearts. The table of slot
``k`` deals each deal shifted ``k`` seats (its seat ``s`` holds the set's seat ``s + k``'s
cards, and the seat holding the dealer's cards deals), so in Spades the second table's
sides hold the cards the first table's other side held, and in Hearts each of the set's
hands is held at some table by every seat.

* **Joining.** When its four seats fill, a duplicate room's table asks the store for a
  table of a board set (``JoinBoard``): the oldest set of the room with one free that none
  of the people seated has played (or holds), else a new set. The claim is a row's key,
  so tables on two nodes claiming together get two slots; the tables of a set start as
  they fill and need not play at once. The game starts once the claim is back (after the
  standings, in a ranked room); if the seats changed meanwhile, the claim is given back.
* **Playing.** After each hand the table stores what it scored on the deal, by the set's
  seats (``BoardDealt``), in the same write as the hand's last card, and reads the set
  (``ReadBoard``). For every deal it has played that every table of the set has now
  played, it tells its players and watchers how the same cards went at the others
  (``board_deal``): never sooner, so nothing of a deal reaches a table that has yet to
  play it. While some of its deals wait for other tables it reads the set again every
  ``POLL_SECONDS`` (the other tables may be on other nodes: the store is where they
  meet); a table of the set on the same node that stores a deal's result or its end
  wakes it at once (``Lobby.board_read``).
* **The end.** When every table's game has ended (``BoardFinished``), each table still
  open tells its players each one's margin against the field (``board_result``). In a
  ranked room the duplicate rating (``ratings.DUPLICATE_SYSTEMS``) rates the set's
  people: every table reaching the end computes the same changes, and the store applies
  the first table's only (``BoardRated``). The room's own ``system`` still rates each game
  as it ends and decides what a drop does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trickroom.game import duplicate
from trickroom.game.engine import ENGINES, Engine
from trickroom.i18n import Msg
from trickroom.i18n.message import from_data
from trickroom.ratings import DUPLICATE_SYSTEMS, RatingError
from trickroom.ratings.duplicate import DuplicateResult
from trickroom.server.protocol import (
    BoardDeal,
    BoardMargin,
    BoardResult,
    BoardTable,
    ProtocolError,
)
from trickroom.server.tables.commands import BoardJoined, BoardPoll, BoardRead
from trickroom.server.tables.effects import (
    JoinBoard,
    LeaveBoard,
    ReadBoard,
    SeenBoard,
)
from trickroom.server.tables.records import BoardDealt, BoardFinished, BoardRated, BoardStarted
from trickroom.server.tables.state import Board, Phase
from trickroom.server.tables.table import Table

POLL_SECONDS = 3.0  # how often a table waiting for the other tables' deals reads the set
SYSTEM = "duplicate"  # the duplicate rating a ranked duplicate room rates its board sets with


def people(table: Table) -> tuple[str, ...]:
    """Who a board set must not have seen: the people seated (robots may play it again)."""
    return tuple(s.name for s in table.state.seats if s.kind == "human" and s.name)


def join(table: Table) -> bool:
    """The seats are full: claim a board set's table for them (once per set of people).
    Whether the table holds its claim already, and its game may start (play.py starts it:
    a ranked room's once the standings are read)."""
    state = table.state
    seated = people(table)
    board = state.board
    if board is not None and not board.started:
        if sorted(board.players) == sorted(seated):
            return True
        table.emit(LeaveBoard(board.set_id, board.slot))
        state.board = None
    if state.joining == seated:
        return False
    state.joining = seated
    rng = table.rng
    table.emit(JoinBoard(table.room.name, table.room.game, table.room.board_tables, seated,
                         (f"{table.room.name}-{rng.getrandbits(48):012x}",
                          rng.getrandbits(31), rng.randrange(4))))
    return False


def joined(table: Table, cmd: BoardJoined) -> bool:
    """The store's answer to a claim: taken, if the same people still fill the seats, else
    given back (and asked again for whoever sits now). Whether the game may start."""
    state = table.state
    state.joining = None
    full = all(s.kind != "empty" for s in state.seats)
    if state.phase is not Phase.WAITING or not full or sorted(people(table)) != sorted(
            cmd.players):
        table.emit(LeaveBoard(cmd.set_id, cmd.slot))
        return state.phase is Phase.WAITING and full and join(table)
    if state.board is not None and not state.board.started:
        table.emit(LeaveBoard(state.board.set_id, state.board.slot))
    elif state.board is not None and not state.board.result_told:
        state.past_boards.append(state.board)  # still told of, as its tables play
    state.board = Board(cmd.set_id, cmd.slot, cmd.slots, cmd.seed, cmd.dealer, cmd.players)
    return True


def pending(table: Table) -> list[Board]:
    """The table's board sets some other table has yet to finish: a game of one is in
    play here, or its deals were played here (what is at the table tells of them)."""
    state = table.state
    boards = [*state.past_boards, *([state.board] if state.board else [])]
    return [b for b in boards if b.started and not b.result_told]


def may_watch(table: Table, name: str) -> None:
    """Refuse to let anyone watch a duplicate room's table while a set it plays or played
    is incomplete: a spectator sees the deals as they are played, and may be (or become)
    a player at another table of the set. Its own players may (a second window's)."""
    state = table.state
    if not table.room.duplicate or (state.phase is not Phase.PLAYING and not pending(table)):
        return
    own = {s.name for s in state.seats} | {p for b in pending(table) for p in b.players}
    if name not in own:
        raise ProtocolError("not_authorized", Msg(
            "a duplicate room's table is watched only once every table of its board set "
            "has played: the same deals are played at other tables"))


def sat(table: Table, name: str) -> None:
    """Someone sat at a table whose earlier games' sets are incomplete: they may see how
    its deals went here, so they are kept from those sets' other tables."""
    for board in pending(table):
        if name not in board.players:
            board.players = (*board.players, name)
            table.emit(SeenBoard(board.set_id, board.slot, board.players))


def new_game(table: Table) -> tuple[int, Engine]:
    """The seed and the game of this table's slot of its board set: the set's deals, each
    shifted ``slot`` seats, and the dealer shifted with them."""
    board = table.state.board
    assert board is not None
    dealer, deals = duplicate.board_deals(board.seed)
    game = ENGINES[table.room.game](
        table.rules, board.seed, dealer=duplicate.shifted_dealer(dealer, board.slot),
        deals=[duplicate.shifted(d, board.slot) for d in deals])
    return board.seed, game


def started(table: Table, game_id: str) -> None:
    board = table.state.board
    assert board is not None
    board.started = True
    table.write(BoardStarted(board.set_id, board.slot, game_id))


def hand_over(table: Table) -> None:
    """A hand ended: store what this table scored on the deal, by the set's seats."""
    state = table.state
    board, game = state.board, state.game
    if board is None or game is None or not game.hand_results:
        return
    deal = len(game.hand_results) - 1
    if deal >= duplicate.BOARD_DEALS or deal < board.played:
        return  # past the set's deals: dealt from the seed, compared with nothing
    result = game.hand_results[-1]
    if table.room.game == "spades":
        sides = result.sides
        points = [sides[s % 2].points for s in range(4)]
    else:
        points = list(result.points)
    played: Any = game  # an engine's tricks of the hand just over (Spades' result has them)
    tricks = list(getattr(result, "tricks_won", None) or played.tricks_won)
    board.played = deal + 1
    table.write(BoardDealt(board.set_id, board.slot, deal, {
        "points": duplicate.to_board(points, board.slot),
        "tricks": duplicate.to_board(tricks, board.slot),
        "players": duplicate.to_board([s.name or "" for s in state.seats], board.slot)}))
    table.emit(ReadBoard(board.set_id, table.room.game, wrote=True))


def game_over(table: Table) -> None:
    board = table.state.board
    if board is None or not board.started or board.finished:
        return
    board.finished = True
    table.write(BoardFinished(board.set_id, board.slot))
    table.emit(ReadBoard(board.set_id, table.room.game,
                         SYSTEM if table.room.rated else None, wrote=True))


def _waiting(board: Board) -> bool:
    """Whether the table waits for other tables of ``board``'s set."""
    return len(board.told) < board.played or (board.finished and not board.result_told)


def on_poll(table: Table, cmd: BoardPoll) -> None:
    state = table.state
    if state.phase is Phase.CLOSED:
        return
    for board in [*state.past_boards, *([state.board] if state.board else [])]:
        if board.started and _waiting(board):
            table.emit(ReadBoard(board.set_id, table.room.game,
                                 SYSTEM if table.room.rated and board.finished else None))


def on_read(table: Table, cmd: BoardRead) -> None:
    """The set as stored: tell the field of each deal every table has played, and the set's
    result once every table has finished; look again later while something waits."""
    state = table.state
    read = cmd.board
    board = next((b for b in [*state.past_boards, *([state.board] if state.board else [])]
                  if b.set_id == read.get("id")), None)
    if board is None:
        return
    slots = int(read["slots"])
    deals: Mapping[int, Mapping[int, Any]] = read["deals"]
    told = len(board.told)
    for deal in range(board.played):
        if deal in board.told:
            continue
        plays = [deals.get(k, {}).get(deal) for k in range(slots)]
        if any(p is None for p in plays):
            continue
        board.told.add(deal)
        table.publish(_board_deal(table, board, deal, plays))
    tables = read["tables"]
    complete = len(tables) >= slots and all(t["finished"] is not None
                                            for t in tables.values())
    if complete and board.finished and not board.result_told and (
            not table.room.rated or cmd.standings is not None):
        board.result_told = True
        _board_result(table, board, read, cmd.standings or {})
    if board.result_told and board in state.past_boards:
        state.past_boards.remove(board)
    if any(_waiting(b) for b in [*state.past_boards, *([state.board] if state.board else [])]):
        table.set_timer(POLL_SECONDS, BoardPoll())
    if len(board.told) != told:
        table.changed()


def _more_is_better(kind: str, points: list[int]) -> list[int]:
    return points if kind == "spades" else [-p for p in points]


def _board_deal(table: Table, board: Board, deal: int, plays: list[Any]) -> BoardDeal:
    kind = table.room.game
    shift = board.slot

    def seen(play: Mapping[str, Any]) -> BoardTable:
        return BoardTable(players=duplicate.from_board(play["players"], shift),
                          points=duplicate.from_board(play["points"], shift),
                          tricks=duplicate.from_board(play["tricks"], shift))

    better = [_more_is_better(kind, list(p["points"])) for p in plays]
    margins = duplicate.from_board(duplicate.field_margins(better, shift), shift)
    return BoardDeal(board_set=board.set_id, deal=deal, here=seen(plays[shift]),
                     field=[seen(p) for k, p in enumerate(plays) if k != shift],
                     margins=margins)


def robot_at(name: str, slot: int) -> str:
    """A robot's name at one table of a set: robots of one name at two tables (Bot Hugo is
    seat 1's everywhere) are two players to the comparison."""
    return f"{name} #{slot + 1}"


def result_of(kind: str, read: Mapping[str, Any]) -> DuplicateResult | None:
    """The complete set as the duplicate rating reads it: each table's players and points
    by the set's seats, over the deals every table reached. The people are themselves;
    anyone else (a robot) is named for its table (:func:`robot_at`)."""
    slots = int(read["slots"])
    deals: Mapping[int, Mapping[int, Any]] = read["deals"]
    reached = min(len(deals.get(k, {})) for k in range(slots))
    tables = []
    for k in range(slots):
        plays = [deals[k][d] for d in range(reached)]
        if not plays:
            return None
        # Who held the cards: as the first deal found them (a robot that took a seat later
        # plays under another name, but the seat is the one compared).
        people = set(read["tables"][k]["players"])
        names = [str(p) if p in people else robot_at(str(p), k) for p in plays[0]["players"]]
        tables.append((names, [p["points"] for p in plays]))
    try:
        return DuplicateResult.of(kind, SYSTEM, tables)  # type: ignore[arg-type]
    except RatingError:
        return None


def _board_result(table: Table, board: Board, read: Mapping[str, Any],
                  standings: Mapping[str, Any]) -> None:
    kind = table.room.game
    result = result_of(kind, read)
    if result is None:
        return
    people = set(read["tables"][board.slot]["players"])
    here = {u: u if u in people else u.removesuffix(robot_at("", board.slot))
            for u in result.tables[board.slot].players}  # as named in the set: at this table
    players = [BoardMargin(name=here[p], deals=list(result.margins(p)),
                           total=round(sum(result.margins(p)), 2))
               for p in result.players if p in here]
    changes: list[dict[str, Any]] = []  # each with its breakdown's texts as Msgs
    if table.room.rated and result.deals:
        if read.get("ratings") is not None:  # another table rated the set: shown as it did
            changes = [{**c, "breakdown": [{**line, "text": from_data(said)} for line, said
                                           in zip(c["breakdown"], c["said"], strict=True)]}
                       for c in read["ratings"]]
        else:
            system = DUPLICATE_SYSTEMS[SYSTEM]
            start = system.start_rating
            current = {p: (standings[p].rating if p in standings else start)
                       for p in result.players}
            rated = set(read_people(read))
            made = [c for c in system.rate(result, current) if c.player in rated]
            table.write(BoardRated(board.set_id, table.id, kind, SYSTEM, tuple(made)))
            changes = [c.to_wire() for c in made]
    mine = [c for c in changes if c["player"] in here.values()]
    wire = BoardResult(board_set=board.set_id, tables=len(result.tables), deals=result.deals,
                       players=players, ratings=mine).model_dump()
    for shown, change in zip(wire["ratings"], mine, strict=True):  # each reader's language
        shown.pop("said", None)
        for line, term in zip(shown["breakdown"], change["breakdown"], strict=True):
            line["text"] = term["text"]
    table.publish(wire, texts=True)


def read_people(read: Mapping[str, Any]) -> list[str]:
    """The people every table of the set was claimed for (robots are not rated)."""
    return [p for t in read["tables"].values() for p in t["players"]]

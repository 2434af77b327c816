"""The runner: the only place a table meets sockets, clocks, robots and the store.

It hands each command to the machine under the table's lock (so a table runs
one command at a time, even while one waits for the store) and carries the
effects out in order: records are stored before anything of their command is
sent (the machine holds the rest until ``Stored``), timers become
``call_later``, robots think inline or, for the search robot, in a worker
process within its players' share (:mod:`server.thinking`) so other tables keep
moving, and messages go to the connections the machine named.

A client's request runs in the connection's own task (:meth:`call`), which
saves two trips round the event loop on every action; what no request waits
for (a timer, a robot's next move) is posted to the table's inbox and run by
the table's task (:meth:`post`). The lock is fair: commands run in the order
they asked for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, cast

from trickroom.game.actions import Action
from trickroom.game.robots import Robot, make_robot
from trickroom.game.robots.heuristic import heuristic_action
from trickroom.i18n import Msg
from trickroom.server.hub.port import Batch, Hub
from trickroom.server.loops import cancelled
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import ProtocolError, TableInfo
from trickroom.server.ranked import Ranked
from trickroom.server.store import StaleOwner, Store, StoredGame
from trickroom.server.tables.commands import (
    Act,
    BoardJoined,
    BoardPoll,
    BoardRead,
    ClientId,
    Command,
    Retry,
    RobotChose,
    StandingsLoaded,
    Stored,
    StoreFailed,
)
from trickroom.server.tables.effects import (
    AskRobot,
    CancelTimer,
    Changed,
    Closed,
    Effect,
    JoinBoard,
    LeaveBoard,
    LoadStandings,
    Note,
    Persist,
    ReadBoard,
    SeenBoard,
    Send,
    SetTimer,
    ToAccounts,
)
from trickroom.server.tables.log import Shared
from trickroom.server.tables.machine import TableMachine
from trickroom.server.tables.records import ActionTaken, GameCreated, GameEnded
from trickroom.server.tables.state import Phase
from trickroom.server.tables.timers import Timers
from trickroom.server.thinking import Thinking

log = logging.getLogger("trickroom.table")
RETRY_SECONDS = 1.0


class Client(Protocol):
    """What a runner needs of a connection."""

    name: str
    remote: bool  # a client of another node of a cluster
    address: str  # its address group (server/proxies.py), which pays for its robots
    language: str  # the language of its texts (server/languages.py)

    def send_text(self, text: str | Shared) -> None:
        """Send one message (a :class:`Shared` one goes to many clients)."""

    def send_many(self, messages: list[str | Shared]) -> None:
        """Send messages in order, in one write where the connection can."""


class Lobby(Protocol):
    """What a runner tells the lobby."""

    def on_change(self, info: TableInfo) -> None: ...

    def on_close(self, runner: TableRunner, info: TableInfo,
                 audience: tuple[ClientId, ...]) -> None: ...

    def seats_taken(self, runner: TableRunner, accounts: tuple[str, ...]) -> None: ...

    def ranked_ended(self, game_id: str, record: dict[str, Any]) -> None:
        """A ranked game finished and is stored (its analysis, if the host wants it)."""

    def reload(self, runner: TableRunner, stored: StoredGame | None) -> None:
        """The store holds another game than the runner's (a write it thought failed
        landed): run the table again from ``stored`` (None: the game ended there)."""

    def board_read(self, runner: TableRunner, set_id: str, wrote: bool) -> None:
        """The runner read its board set (``wrote``: after storing a deal's result)."""


def _end_of_run(effects: list[Effect], start: int) -> int:
    """Where the run of sends to the one client of ``effects[start]`` ends (exclusive)."""
    first = effects[start]
    assert isinstance(first, Send)
    end = start + 1
    if len(first.to) == 1:
        while end < len(effects):
            nxt = effects[end]
            if type(nxt) is not Send or nxt.to != first.to:
                break
            end += 1
    return end


class TableRunner:
    """Carries out one table machine's effects."""

    def __init__(self, machine: TableMachine, store: Store, ranked: Ranked,
                 clients: Mapping[ClientId, Client], lobby: Lobby, hub: Hub,
                 clock: Callable[[], float] = time.time,
                 thinking: Thinking | None = None) -> None:
        self.machine = machine
        self.id = machine.id
        self.store = store
        self.ranked = ranked
        self.clients = clients
        self.lobby = lobby
        self.hub = hub  # fences its writes, relays to other nodes' clients
        self.clock = clock
        self.thinking = thinking or Thinking()  # where searching robots think, and how much
        self.lock = asyncio.Lock()
        self.inbox: asyncio.Queue[Command | None] = asyncio.Queue()  # None: the table closed
        self.stopped = False  # shutting down or closed: no timer or robot acts again
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timers: Timers[Command] = Timers(self._running_loop, self.post)
        self._robots: dict[tuple[int, int, str], Robot] = {}  # (game number, seat, level)
        self._reads: set[asyncio.Task[None]] = set()  # board sets being read (board.py)
        self._relay: Batch = []  # what a command sends to other nodes' clients
        self._accounts: tuple[str, ...] = ()  # whose the seats were, as the lobby last heard
        self.board_sets: set[str] = set()  # the board sets it read (the lobby's index)
        # A write failed with its outcome unknown (the database went away mid-commit: it
        # may hold what the table undid). Before its next command the table reads itself
        # back from the store; until it can, it takes none.
        self.unsure = False

    # -- commands in ------------------------------------------------------------------------------

    def start(self) -> None:
        self._task = self._running_loop().create_task(self._run(), name=f"table-{self.id}")

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The loop this table runs on, asked once: on Python 3.11 each
        ``asyncio.get_running_loop()`` is a getpid system call, and a timer is set on
        every action (issue 40)."""
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        return loop

    async def stop(self) -> None:
        """Stop the timers and robots; a command already running finishes first (cut off
        between storing an action and sending it, its client would never hear of it)."""
        self.stopped = True
        self._cancel_timers()
        async with self.lock:
            await cancelled(self._task)

    async def stop_if_playing(self) -> bool:
        """Stop as :meth:`stop` does, if the game is still in play once the command in
        hand is done; else (it just ended) run on, and False."""
        async with self.lock:
            if self.stopped or self.machine.state.phase is not Phase.PLAYING:
                return False
            self.stopped = True
            self._cancel_timers()
            await cancelled(self._task)
        return True

    async def call(self, command: Command) -> None:
        """Run one command as the table's only one, in the caller's task; a refusal raises
        ``ProtocolError`` (and changed nothing)."""
        started = time.perf_counter()
        async with self.lock:
            if self.unsure and not await self._reconciled(command):
                return
            try:
                await self._handle(command)
            finally:
                if self._relay:  # what the command sends other nodes' clients: one frame
                    self._flush_relay()
                self._tell_seats()
        if isinstance(command, Act):
            METRICS.action_seconds.observe(time.perf_counter() - started)

    async def _reconciled(self, command: Command) -> bool:
        """Whether the table may go on after a write of unknown outcome: the store, read
        back, holds the game as the table does. If it holds more (the write landed after
        all), the lobby runs the table again from the store, and its players rejoin it.
        Refuses a request meanwhile (the store does not answer, or the table reloads);
        any other command waits its turn again."""
        state = self.machine.state
        try:
            stored = await self.store.unfinished_game(self.id)
        except Exception as exc:
            log.warning("table %s: cannot read itself back from the store: %s", self.id, exc)
            self._later(command)
            raise ProtocolError("unavailable", Msg("the database does not answer: nothing "
                                                   "changed; send it again in a moment"),
                                getattr(command, "rid", None), retry_after=1.0) from None
        game = state.game if state.phase is Phase.PLAYING else None
        if stored is None and game is None:
            self.unsure = False
            return True
        if (stored is not None and game is not None and stored.created.game_id
                == state.game_id and len(stored.actions) == len(game.actions)):
            self.unsure = False
            return True
        log.warning("table %s: the store holds what a failed write undid: reloading it",
                    self.id)
        self.stopped = True  # this runner is done; the lobby starts the table again
        self._cancel_timers()
        self.lobby.reload(self, stored)
        raise ProtocolError("unavailable", Msg("the table is reloading what the database "
                                               "holds: rejoin it"), getattr(command, "rid", None),
                            retry_after=1.0)

    def _later(self, command: Command) -> None:
        """Run a command that is no request again in a moment (a timer's, a robot's)."""
        if not hasattr(command, "rid") and not self.stopped:
            self._running_loop().call_later(RETRY_SECONDS, self.post, command)

    def _tell_seats(self) -> None:
        """Tell the lobby whose the seats are, when that changed (a stopped table has none)."""
        accounts = () if self.stopped else tuple(
            seat.account for seat in self.machine.state.seats if seat.account)
        if accounts != self._accounts:
            self._accounts = accounts
            self.lobby.seats_taken(self, accounts)

    def post(self, command: Command) -> None:
        """Run ``command`` later, in the table's task (a timer, a robot's move)."""
        if not self.stopped:
            self.inbox.put_nowait(command)

    async def _run(self) -> None:
        while True:
            command = await self.inbox.get()
            if command is None:
                return
            try:
                await self.call(command)
            except ProtocolError:
                pass
            except Exception:
                log.exception("table %s: command %s failed", self.id, type(command).__name__)

    async def _handle(self, command: Command) -> None:
        await self._carry_out(self.machine.handle(command, self.clock()))

    # -- effects out -------------------------------------------------------------------------------

    async def _carry_out(self, effects: list[Effect]) -> None:
        i, count = 0, len(effects)
        while i < count:
            effect = effects[i]
            if type(effect) is Send:
                nxt = effects[i + 1] if i + 1 < count else None
                if type(nxt) is Send and nxt.to == effect.to and len(nxt.to) == 1:
                    # Messages for one client in a row (a rejoin's missed events): one write.
                    end = _end_of_run(effects, i)
                    self._send_run(cast(list[Send], effects[i:end]))
                    i = end
                else:
                    self._send(effect)
                    i += 1
                continue
            i += 1
            done = CARRY_OUT[type(effect)](self, effect)
            if done is not None:
                await done

    def _send(self, effect: Send) -> None:
        clients = self.clients
        remote: list[ClientId] | None = None
        for client_id in effect.to:
            client = clients.get(client_id)
            if client is None:
                continue
            if client.remote:  # another node's: collected, and published once for all
                if remote is None:
                    remote = []
                remote.append(client_id)
            else:
                client.send_text(effect.message)
        if remote is not None:
            self._relayed(remote, effect.message)

    def _relayed(self, to: list[ClientId], message: str | Shared) -> None:
        """A message for other nodes' clients, collected for the command's one frame (one
        that holds texts for people goes with them kept, and each node renders them for
        each of its readers: hub/redis/routing.py)."""
        self._relay.append((to, message))

    def _send_run(self, run: list[Send]) -> None:
        """Messages for one client: in one write (one system call for hundreds)."""
        client_id = run[0].to[0]
        client = self.clients.get(client_id)
        if client is None:
            return
        if client.remote:
            for effect in run:
                self._relayed([client_id], effect.message)
        else:
            client.send_many([effect.message for effect in run])

    def _flush_relay(self) -> None:
        batch, self._relay = self._relay, []
        self.hub.relay(self.id, batch)

    async def _persist(self, effect: Persist) -> None:
        try:
            await self.store.persist(effect.records, await self.hub.fence(self.id))
        except StaleOwner as exc:  # another node runs this table now: stop, change nothing
            await self._handle(StoreFailed(effect.ref, f"{type(exc).__name__}: {exc}", True))
            self.hub.lost(self.id, str(exc))
            return
        except Exception as exc:
            log.warning("table %s: a write failed: %s: %s", self.id, type(exc).__name__, exc)
            self.unsure = True  # it may have landed all the same: read back before going on
            await self._handle(StoreFailed(effect.ref, f"{type(exc).__name__}: {exc}"))
            return
        for record in effect.records:
            if type(record) is ActionTaken:
                METRICS.actions.inc()
            elif type(record) is GameCreated:
                METRICS.games_started.inc()
            elif type(record) is GameEnded:
                METRICS.games_finished.inc()
                if (record.ratings is not None and record.result.get("finished")
                        and not record.sandbox):
                    self.lobby.ranked_ended(record.game_id, record.record)
        await self._handle(Stored(effect.ref))

    def _cancel_timer(self, effect: CancelTimer) -> None:
        self._timers.cancel(effect.key)

    def _changed(self, effect: Changed) -> None:
        self.lobby.on_change(effect.info)

    def _to_accounts(self, effect: ToAccounts) -> None:
        for name, message in effect.messages:
            with contextlib.suppress(*self.hub.away):  # Redis away: the game goes on
                self.hub.to_account(name, message)

    def _set_timer(self, effect: SetTimer) -> None:
        if not self.stopped:
            self._timers.set(effect.key, effect.delay, effect.command)

    def _cancel_timers(self) -> None:
        """No timer of this runner acts again (it stopped or closed), and its timers let go
        of it: a closed table holds no reference cycle, so its memory goes as it closes."""
        self._timers.close()

    async def _ask_robot(self, effect: AskRobot) -> None:
        robot = self._robot(effect.seat, effect.level)
        why = told = ""
        if effect.level == "search":
            # A search thinks for ~200 ms of a core: in a worker, charged to the address
            # groups of the players seated here, in turn with other groups' (thinking.py);
            # over their share, the rule of thumb plays at once. The table's lock is held
            # meanwhile, so its game cannot change under it.
            clients = self.clients
            groups = dict.fromkeys(clients[c].address for c in effect.humans if c in clients)
            thought = await self.thinking.think(robot, effect.view, groups)
            if thought is None:
                action: Action = heuristic_action(effect.view)
            else:
                action, why, told = thought.action, thought.why, thought.told
                self._robots[self._robot_key(effect.seat, effect.level)] = thought.robot
        else:
            action = robot.choose(effect.view)
            explain, tell = getattr(robot, "explain", None), getattr(robot, "tell", None)
            why = explain() if explain is not None else ""
            told = tell() if tell is not None else ""
        await self._handle(RobotChose(effect.seat, effect.turn, action, effect.timeout, why,
                                      told))

    def _robot_key(self, seat: int, level: str) -> tuple[int, int, str]:
        return (self.machine.state.games, seat, level)

    def _robot(self, seat: int, level: str) -> Robot:
        """The seat's robot for this game (a new game deals new robots, freshly seeded)."""
        key = self._robot_key(seat, level)
        robot = self._robots.get(key)
        if robot is None:
            if any(k[0] != key[0] for k in self._robots):
                self._robots.clear()
            try:
                robot = make_robot(level, secrets.randbits(32))
            except KeyError:  # a level this build does not have: the simplest one plays
                robot = make_robot("random", secrets.randbits(32))
            self._robots[key] = robot
        return robot

    async def _load_standings(self, effect: LoadStandings) -> None:
        try:
            standings = await self.ranked.current(list(effect.players), effect.kind,
                                                  effect.system)
        except Exception:
            log.exception("table %s: could not read the players' ratings", self.id)
            self._set_timer(SetTimer(Retry.key_of(), RETRY_SECONDS, Retry()))
            return
        await self._handle(StandingsLoaded(standings))

    async def _join_board(self, effect: JoinBoard) -> None:
        try:
            set_id, slot, seed, dealer = await self.store.board_join(
                effect.room, effect.kind, effect.slots, effect.players, self.id, effect.new,
                self.clock())
        except Exception:
            log.exception("table %s: could not claim a board set's table", self.id)
            self._set_timer(SetTimer(Retry.key_of(), RETRY_SECONDS, Retry()))
            return
        await self._handle(BoardJoined(set_id, slot, effect.slots, seed, dealer,
                                       effect.players))

    async def _leave_board(self, effect: LeaveBoard) -> None:
        try:
            await self.store.board_leave(effect.set_id, effect.slot, self.id)
        except Exception:
            log.exception("table %s: could not give back board set %s's table %d", self.id,
                          effect.set_id, effect.slot)

    async def _seen_board(self, effect: SeenBoard) -> None:
        try:
            await self.store.board_seen(effect.set_id, effect.slot, self.id, effect.players)
        except Exception:
            log.exception("table %s: could not note who saw board set %s", self.id,
                          effect.set_id)

    def _read_board(self, effect: ReadBoard) -> None:
        """Read the set apart from the command that asked (whose events may not all be
        sent yet: what the read leads to is told after them), then post what was read."""
        task = asyncio.create_task(self._board_read(effect))
        self._reads.add(task)
        task.add_done_callback(self._reads.discard)

    async def _board_read(self, effect: ReadBoard) -> None:
        try:
            found = await self.store.board(effect.set_id)
            standings = None
            if found is not None and effect.system is not None:
                people = [p for t in found["tables"].values() for p in t["players"]]
                standings = await self.ranked.current(people, effect.kind, effect.system)
                # Another table of the set may have rated it since the first read: its
                # changes, now in these standings, are the ones the store keeps and the
                # ones to show (changes made again from standings they moved would not be).
                again = await self.store.board(effect.set_id)
                if again is not None and again.get("ratings") is not None:
                    found = again
        except Exception:
            log.exception("table %s: could not read board set %s", self.id, effect.set_id)
            self._set_timer(SetTimer(BoardPoll.key_of(), RETRY_SECONDS, BoardPoll()))
            return
        if found is not None and not self.stopped:
            self.post(BoardRead(found, standings))
        if found is not None:
            self.lobby.board_read(self, effect.set_id, effect.wrote)

    def _close(self, effect: Closed) -> None:
        """Stop everything the table had running; the lobby forgets it and its memory goes."""
        self.stopped = True
        self._cancel_timers()
        self._robots.clear()
        self.inbox.put_nowait(None)  # the table's task ends once what it holds is done
        self.lobby.on_close(self, effect.info, effect.audience)

    def _note(self, effect: Note) -> None:
        log.info("table %s%s: %s", self.id,
                 f" seat {effect.seat}" if effect.seat is not None else "", effect.text,
                 extra={"table": self.id, "event": effect.event, "seat": effect.seat,
                        "player": effect.player})


Carry = Callable[[TableRunner, Any], Awaitable[None] | None]
CARRY_OUT: dict[type[Effect], Carry] = {
    Persist: TableRunner._persist,
    SetTimer: TableRunner._set_timer,
    CancelTimer: TableRunner._cancel_timer,
    AskRobot: TableRunner._ask_robot,
    LoadStandings: TableRunner._load_standings,
    JoinBoard: TableRunner._join_board,
    LeaveBoard: TableRunner._leave_board,
    ReadBoard: TableRunner._read_board,
    SeenBoard: TableRunner._seen_board,
    Changed: TableRunner._changed,
    Closed: TableRunner._close,
    Note: TableRunner._note,
    ToAccounts: TableRunner._to_accounts,
}
"""How the runner carries out each effect but a send: at once, or awaited (a coroutine)."""

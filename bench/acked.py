"""Players that rejoin through kills and restarts, and what they saw acknowledged.

``crash`` (SIGKILLs of one process on SQLite) and ``faults`` (nodes of a cluster killed,
or its Redis restarted) play the same way: :func:`table_runner` keeps four seats
(:class:`Seat`) at a table through every kill, reconnecting and rejoining each with its
seat token, and each seat notes every action it saw acknowledged: the ``ok`` to its own
``act``, or the broadcast event of anyone's action (a bid, or a card as its ``trick_won``
lists it; a card of a trick the kill cut short as its ``played`` event).

An action is keyed by where in its game it was made (:func:`action_key`): a bid by its
hand, a card by its trick (a lost card, redone after the restart, is played later in the
hand: keyed by card alone it would hide). The game is the one the server named last on
that socket: its ``game_started`` event, or the snapshot that answers a rejoin (after a
restart that may be a game the seat never saw start). Events that skip some (a trick
number that does not follow) are a gap: nothing counts until a snapshot. A rejoin after
a restart answered from the log rather than with a snapshot is a server bug (the new
process issued the seat's last_seq again: its seqs went backwards), counted in
``Run.stale_replays``.

At the end the database's actions are keyed the same way (:func:`tally`) and every
acknowledged action it holds fewer times is a loss (:func:`losses`).

The players behave as a careful client does. A ``sit`` or ``rejoin`` answered ``moved``
(the table is another node's) opens a socket to the URL given (resolved against the
socket's own), resumes the session there and sends the request again; a later reconnect
starts from the first URL again. An ``act`` refused for a reason that passes
(``unavailable``, ``internal``) is sent again after the error's ``retry_after`` (half a
second without one), and a prompt repeated after a refusal or on a new socket is answered
again. A table that hears nothing for half a second pings every seat's server; a server that
does not answer within ``Run.ping_timeout`` is avoided for a while and the table
reconnects through another node; a table that hears no action for ``Run.quiet`` seconds
rejoins as well.

For the fault benches, :class:`Run` keeps a timeline: each table's acknowledged actions
(``progress``, by table runner), every error (with whether it named its request), every
answer to a request (which node gave it, for which table) and every socket a server
closed; :mod:`bench.faults` reads each fault's window of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urljoin, urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from bench.harness import HOST, choose

Key = tuple[int, str, Any, int]
T = TypeVar("T")
TRICKS = 13  # Spades: a hand is four bids, then 13 tricks of 4 cards
RETRIED = ("unavailable", "internal")  # act errors that pass: the act is sent again
MAX_MOVES = 3  # moved redirects followed for one request


def port_of(url: str) -> int | None:
    """The port of a socket URL: which node it reaches (every node is on 127.0.0.1)."""
    return urlsplit(url).port


class Answer(NamedTuple):
    """A server's answer to a request, as a player received it."""

    at: float  # time.monotonic()
    url: str  # the socket it came on
    table: str  # the request's table ("" for none)
    request: str  # the request's type
    kind: str  # the answer's type (ok, snapshot, seated, moved, error...)
    sent_at: float  # when the request was sent


class ErrorSeen(NamedTuple):
    at: float
    url: str
    code: str
    request: str  # the type of the request it answered ("?" when none of this seat's)
    has_id: bool  # False: an error without its request's id
    rid: Any  # the id it named
    message: str
    table: str = ""  # the seat's table when it came


def action_key(seat: int, kind: str, data: dict[str, Any], where: int) -> Key | None:
    """The same key for an action as stored (``{"type": "bid", ...}``), as an event and as
    an act, with where in the game it was made: a bid's hand, or a card's trick (counted
    over the game, ``TRICKS`` a hand). Each key is made at most once in a game. (Every card a
    seat is dealt is played in that hand, so keyed without its trick a lost play would hide
    behind the same card played again later in the hand after the restart. An action redone
    the same in the same place leaves the game as acknowledged, and counts as kept.)"""
    if kind == "bid":
        return (seat, "bid", (data.get("value"), bool(data.get("blind"))), where)
    if kind in ("play", "played"):
        return (seat, "play", data.get("card"), where)
    return None


def where_in(view: dict[str, Any], kind: str) -> int:
    """Where the next action goes, from a game view (a prompt's or a snapshot's)."""
    if kind == "bid":
        return int(view["hand_no"])
    return TRICKS * int(view["hand_no"]) + len(view["tricks"])


class Run:
    """What every bot saw acknowledged, and which games were cut by a kill."""

    def __init__(self) -> None:
        self.acked: dict[str, Counter[Key]] = defaultdict(Counter)
        self.games: set[str] = set()
        self.interrupted: set[str] = set()
        self.finished_seen: set[str] = set()
        self.stopping = False
        self.errors: Counter[str] = Counter()
        self.gaps = 0  # event streams that skipped events (a rejoin replayed from too far on)
        self.generation = 0  # server processes started so far
        self.stale_replays = 0  # rejoins answered from the log past a seq of an earlier process
        self.tables: list[list[Seat]] = []
        self.stalls = 0  # tables whose bots heard nothing for a while and rejoined
        # How the players watch their servers (see the module's docstring).
        self.quiet = 5.0  # seconds without an action before a table rejoins
        self.ping_after = 0.5  # seconds of silence before a table pings its servers
        self.ping_timeout = 0.75  # seconds a pong may take before the server is avoided
        self.avoid_for = 5.0  # seconds a server that did not answer is avoided
        self.suspects: dict[int, float] = {}  # port -> avoided until (time.monotonic())
        # The timeline (see the module's docstring).
        self.progress: dict[int, list[float]] = defaultdict(list)  # table runner -> times
        self.answers: list[Answer] = []
        self.errors_seen: list[ErrorSeen] = []
        self.closes: list[tuple[float, str]] = []  # sockets a server closed: (time, url)
        self.reconnects: list[tuple[float, str, int]] = []  # (time, why, table runner)
        self.moved = 0  # moved redirects followed
        self.pings_lost = 0  # tables that reconnected because a server did not answer

    def avoid(self, url: str) -> None:
        port = port_of(url)
        if port is not None:
            self.suspects[port] = time.monotonic() + self.avoid_for

    def avoided(self, url: str) -> bool:
        return self.suspects.get(port_of(url) or 0, 0.0) > time.monotonic()

    @property
    def acked_count(self) -> int:
        """Acknowledged actions seen, every game's together."""
        return sum(sum(c.values()) for c in self.acked.values())


class Seat:
    def __init__(self, run: Run, index: int, rng: random.Random, group: int = 0) -> None:
        self.run, self.index, self.rng = run, index, rng
        self.group = group  # which table runner: its key in Run.progress
        self.ws: ClientConnection | None = None
        self.url = ""  # the node this seat's socket is on
        self.closing: ClientConnection | None = None  # a socket this seat closes itself
        self.lost = asyncio.Event()  # the socket closed (not by a move of this seat's)
        self.table = ""
        self.token = ""
        self.last_seq = 0
        self.conn_gen = 0  # the server process this seat's socket is connected to
        self.seq_gen = 0  # the server process that issued last_seq
        self.rejoin_id = -1
        self.session: str | None = None  # a seat token is its account's: log back in as it
        self.stale = False  # since a stale replay or a gap: nothing counts until told again
        self.answered = -1
        self.game_id = ""
        # Where this seat's game stands, from the server's events: the hand (None after a
        # gap in the events, until the next hand, snapshot or game tells it again), the
        # tricks done in it, and the cards of the current trick seen so far.
        self.hand: int | None = 0
        self.tricks_done = 0
        self.pending: list[tuple[int, str]] = []
        self.seen: dict[str, Counter[Key]] = defaultdict(Counter)
        self.acts: dict[int, tuple[str, Key | None, int, dict[str, Any]]] = {}
        self.oks: dict[str, Counter[Key]] = defaultdict(Counter)
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.sent: dict[int, tuple[str, float]] = {}  # request id -> its type, when sent
        self.prompt_seq = -1  # the last prompt's seq
        self.retry: asyncio.Task[None] | None = None  # an act to send again
        self.ids = 0
        self.done = asyncio.Event()
        self.task: asyncio.Task[None] | None = None  # the socket's reader
        self.heard = time.monotonic()  # when the server last said anything to this seat
        self.where = 0  # where in its game the last prompt's action goes (action_key)
        self.refused_at = 0.0  # when an act of this seat's was last refused

    def game_over(self) -> bool:
        return self.done.is_set() or self.game_id in self.run.finished_seen

    def saw(self, key: Key | None) -> None:
        if key is not None and self.game_id:
            self.seen[self.game_id][key] = 1

    def at(self, hand: int | None, tricks_done: int, trick: list[tuple[int, str]]) -> None:
        self.hand, self.tricks_done, self.pending = hand, tricks_done, trick

    def gap(self) -> None:
        """The events skipped some: where the game stands, even which game it is, is unknown
        until a snapshot or a game_started tells it again."""
        self.run.gaps += 1
        self.hand, self.stale = None, True

    def fold(self) -> None:
        """Add what this seat saw acknowledged since the last fold to the run's, and start
        afresh (folding the whole history at every reconnect cost the players' loop a second
        at a fault late in a long run, and their reconnects were counted as the fault's)."""
        if self.hand is not None:  # a trick cut short (by the kill): its cards so far
            for seat, card in self.pending:
                self.saw((seat, "play", card, TRICKS * self.hand + self.tricks_done))
        for source in (self.seen, self.oks):
            for game, counts in source.items():
                acked = self.run.acked[game]
                for key, n in counts.items():
                    acked[key] = max(acked[key], n)
            source.clear()

    async def request(self, message: dict[str, Any], timeout: float = 20) -> dict[str, Any]:
        """Send a request and return its answer; a ``moved`` is followed (the request sent
        again on a socket of the table's node)."""
        for _ in range(MAX_MOVES + 1):
            reply = await self._request(message, timeout)
            if reply["type"] != "moved":
                return reply
            await self.follow(str(reply["url"]))
        raise ConnectionError(f"{message['type']}: moved more than {MAX_MOVES} times")

    async def _request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.ws is not None
        self.ids += 1
        rid = self.ids
        if message["type"] == "rejoin":
            self.rejoin_id = rid
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[rid] = fut
        self.sent[rid] = (message["type"], time.monotonic())
        try:
            await self.ws.send(json.dumps({**message, "id": rid}))
        except BaseException:
            self.replies.pop(rid, None)
            raise
        return await asyncio.wait_for(fut, timeout)

    async def open(self, url: str) -> None:
        """A socket to ``url``, read by a task of its own; logged in (as a guest the first
        time, then by resuming the session)."""
        ws = await connect(url, max_size=2**22, compression=None, open_timeout=3)
        old, self.ws, self.url = self.ws, ws, url
        self.conn_gen = self.run.generation
        self.answered = min(self.answered, self.prompt_seq - 1)  # a repeated prompt: answer
        self.task = asyncio.create_task(self.read(ws))
        if old is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(old.close(), 1)
        if self.session is None:
            reply = await self._request({"type": "guest", "name": f"c{self.index}"}, 20)
        else:
            reply = await self._request({"type": "resume", "token": self.session}, 20)
        if reply["type"] != "welcome":
            raise ConnectionError(f"not welcome: {reply}")
        self.session = reply["session"]

    async def follow(self, url: str) -> None:
        """Go where a ``moved`` says: the table's own node."""
        self.run.moved += 1
        try:
            await self.open(urljoin(self.url, url))
        except (TimeoutError, OSError, WebSocketException) as exc:
            self.run.avoid(urljoin(self.url, url))
            raise ConnectionError(f"the table's node did not answer: {exc}") from exc

    async def read(self, ws: ClientConnection) -> None:
        url = self.url
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                await self.handle(json.loads(frame), url)
        if self.ws is not ws:
            return  # this seat moved to another socket: nothing was lost
        if ws is not self.closing:
            self.run.closes.append((time.monotonic(), url))
        self.sent.clear()
        for fut in self.replies.values():
            if not fut.done():
                fut.set_exception(ConnectionError("closed"))
                fut.exception()  # raised to whoever awaits it; no warning if nobody does
        self.replies.clear()
        self.lost.set()

    def moved_on(self) -> None:
        """A table runner's acknowledged action, now."""
        self.run.progress[self.group].append(time.monotonic())

    async def act(self, action: dict[str, Any], seq: int) -> None:
        """Send an action for the prompt of ``seq``."""
        assert self.ws is not None
        self.answered = seq
        self.ids += 1
        self.acts[self.ids] = (self.game_id, action_key(
            self.index, action["type"], action, self.where), seq, action)
        self.sent[self.ids] = ("act", time.monotonic())
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps({"type": "act", "table": self.table,
                                           "action": action, "id": self.ids}))

    async def again(self, delay: float, action: dict[str, Any], seq: int) -> None:
        """After ``delay``, send a refused act again, if its prompt still stands and nothing
        answered it meanwhile."""
        await asyncio.sleep(delay)
        self.retry = None
        if self.prompt_seq == seq and self.answered < seq and not self.game_over():
            await self.act(action, seq)

    async def close(self, silent: bool = False) -> None:
        """Close this seat's socket (not counted as the server's doing); a ``silent``
        server's (it answered no ping: paused, or gone) is dropped at once, as a client
        does, rather than waiting out a close handshake it will not answer."""
        if self.ws is not None:
            self.closing = self.ws
            if silent:
                self.ws.transport.abort()
                return
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 1)

    async def handle(self, msg: dict[str, Any], url: str | None = None) -> None:
        """A frame from the server (on the socket to ``url``: the seat's, by default)."""
        assert self.ws is not None
        url = self.url if url is None else url
        now = time.monotonic()
        kind = msg["type"]
        if kind != "pong":
            self.heard = now  # a server that only answers pings is not playing
        rid = msg.get("id")
        request, sent_at = self.sent.pop(rid, ("?", now)) if isinstance(rid, int) else ("?", now)
        if request != "?":
            self.run.answers.append(Answer(now, url, self.table, request, kind, sent_at))
        if kind == "error":
            self.run.errors_seen.append(ErrorSeen(now, url, str(msg.get("code")), request,
                                                  rid is not None, rid,
                                                  str(msg.get("message", "")), self.table))
        if rid == self.rejoin_id and kind == "ok" and self.seq_gen != self.conn_gen:
            # The reply to a rejoin after a restart: this process has never sent this seat
            # anything, so it cannot know what the seat missed since last_seq, issued by the
            # process before. Replaying its log past that number (a number it issued again)
            # skips or repeats events: a server bug. Count nothing until a snapshot.
            self.run.stale_replays += 1
            self.hand, self.stale = None, True
        if rid in self.acts:
            game, key, seq, action = self.acts.pop(rid)
            if kind == "ok" and key is not None:
                self.oks[game][key] = 1
                self.moved_on()
            elif kind == "error":
                self.run.errors[msg["code"]] += 1
                self.refused_at = now
                if self.answered == seq:
                    self.answered = seq - 1  # a repeated prompt is answered again
                    if msg["code"] in RETRIED and self.retry is None:
                        delay = float(msg.get("retry_after") or 0.5)
                        self.retry = asyncio.create_task(self.again(delay, action, seq))
        if rid is not None and rid in self.replies:
            fut = self.replies.pop(rid)
            if not fut.done():
                fut.set_result(msg)
        if kind in ("event", "prompt", "snapshot") and msg.get("table") != self.table:
            return  # a table these seats left (they leave on new sockets: none should come)
        if kind == "snapshot" and msg.get("seq") is not None:
            self.last_seq, self.seq_gen = msg["seq"], self.conn_gen
            # A rejoin's snapshot names the table's game. After a restart that may be a game
            # this seat never saw start (a kill between its creation and its game_started
            # event): take the name now, before the events and prompts that follow the
            # snapshot are counted (they belong to that game).
            if msg["info"].get("game_id"):
                self.game_id = msg["info"]["game_id"]
                self.run.games.add(self.game_id)
            view = msg.get("view")
            if view:
                self.at(view["hand_no"], len(view["tricks"]),
                        [(t["seat"], t["card"]) for t in view["trick"]])
                self.stale = False
        if kind == "event":
            self.last_seq, self.seq_gen = msg["seq"], self.conn_gen
            event = msg["event"]
            etype = event["type"]
            if etype == "game_started":
                self.game_id = event["game_id"]
                self.run.games.add(self.game_id)
                self.at(0, 0, [])
                self.stale = False
            elif event["type"] == "game_over":
                self.run.finished_seen.add(self.game_id)
                if self.run.stopping:
                    self.done.set()
                else:
                    self.ids += 1  # every request with its id, as the protocol asks
                    self.sent[self.ids] = ("play_again", time.monotonic())
                    await self.ws.send(json.dumps({"type": "play_again", "table": self.table,
                                                   "id": self.ids}))
            elif etype == "hand_started" and not self.stale and self.hand is not None:
                if event["hand"] != self.hand + (self.tricks_done == TRICKS):
                    self.gap()
                else:
                    self.at(event["hand"], 0, [])
            elif etype == "bid" and self.hand is not None:
                self.saw(action_key(event["seat"], "bid", event, self.hand))
                self.moved_on()
            elif etype == "played":
                self.pending.append((event["seat"], event["card"]))
                self.moved_on()
            elif etype == "trick_won":
                # The trick's four cards, in play order from its leader, and its number.
                trick = [((event["leader"] + i) % 4, card) for i, card in
                         enumerate(event["cards"])]
                seen = self.pending
                if self.hand is not None and (event["trick"] != self.tricks_done
                                              or len(seen) > 4 or trick[4 - len(seen):] != seen):
                    self.gap()
                if self.hand is not None:
                    for seat, card in trick:
                        self.saw((seat, "play", card, TRICKS * self.hand + event["trick"]))
                self.at(self.hand, event["trick"] + 1, [])
        elif kind == "prompt":
            self.prompt_seq = msg["seq"]
            if msg["seq"] <= self.answered:
                return
            if self.retry is not None:  # asked again: answered now, not by the retry
                self.retry.cancel()
                self.retry = None
            action = choose(msg, self.rng)
            self.where = where_in(msg["view"], action["type"])
            await self.act(action, msg["seq"])


async def connect_seat(url: str, seat: Seat) -> asyncio.Task[None]:
    """The seat on a new socket to ``url`` (a node that does not answer is avoided for a
    while); its reader's task."""
    try:
        await seat.open(url)
    except (TimeoutError, OSError) as exc:
        seat.run.avoid(url)
        raise ConnectionError(f"{url}: {exc}") from exc
    assert seat.task is not None
    return seat.task


async def all_done(seats: list[Seat]) -> None:
    """Once stopping: every seat has seen its game end. (A seat that asked to play again
    just before the stop waits for a game that its partners, stopping, never start.)"""
    while not (seats[0].run.stopping and all(s.game_over() for s in seats)):
        await asyncio.sleep(0.05)
    for s in seats:
        s.done.set()


async def silence(seats: list[Seat]) -> str:
    """Return, with why, once the table should reconnect, as a player's client would: a
    seat heard nothing for ``Run.ping_after`` seconds and a ping of some seat's server
    went unanswered (that server is avoided for a while), or for ``Run.quiet`` seconds no
    action came and no act was refused (a cluster's pub/sub drops what is in flight while
    Redis restarts; the rejoin replays it)."""
    run = seats[0].run
    since = pinged = time.monotonic()
    progress = run.progress[seats[0].group]
    while True:
        await asyncio.sleep(0.25)
        if run.stopping and all(s.game_over() for s in seats):
            continue  # done: no next game is coming
        # (Between two games the seats wait for the next to start, and a paused node
        # would keep them waiting as it would in play: they ping, and rejoin, alike.)
        now = time.monotonic()
        # A table whose acts are refused (and sent again) is not missing events: it waits.
        last = max(since, progress[-1] if progress else since, *(s.refused_at for s in seats))
        if now - last > run.quiet:
            run.stalls += 1
            return "stall"
        # Any seat gone silent: every seat hears every move of its table, so one seat
        # hearing the table move on (its socket on another node) does not keep the others,
        # on a paused node, from being noticed.
        if now - min(s.heard for s in seats) > run.ping_after and now - pinged > run.ping_after:
            pinged = now
            async def ping(seat: Seat) -> bool:
                try:
                    await seat._request({"type": "ping"}, run.ping_timeout)
                    return True
                except (TimeoutError, ConnectionError, ConnectionClosed):
                    return False

            answered = await asyncio.gather(*(ping(s) for s in seats))
            if not all(answered):
                for seat, ok in zip(seats, answered, strict=True):
                    if not ok:
                        run.avoid(seat.url)
                run.pings_lost += 1
                return "no pong"


async def together(coros: Iterable[Coroutine[Any, Any, T]]) -> list[T]:
    """Run them at once; if one fails, the others are cancelled (a seat left connecting
    would open a socket after its table gave up on it) and the failure raised."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def rejoin(seat: Seat) -> dict[str, Any]:
    """Rejoin the seat's table on its new socket: the answer (a snapshot, or an error)."""
    seat.stale = False
    message = {"type": "rejoin", "table": seat.table, "seat_token": seat.token,
               "last_seq": seat.last_seq}
    reply = await seat.request(message)
    if seat.stale:  # a stale replay (see Seat.handle): ask for the table as it is
        reply = await seat.request({**message, "last_seq": 0})
    return reply


async def table_runner(url_of: Callable[[], str], up: asyncio.Event, run: Run,
                       rng: random.Random) -> None:
    """Four seats at one table, through every kill, until their last game is over."""
    seats = [Seat(run, i, rng, group=len(run.tables)) for i in range(4)]
    run.tables.append(seats)
    fresh = True
    failures = 0  # reconnects in a row that failed: wait longer before the next
    while True:
        await up.wait()
        tasks: list[asyncio.Task[None]] = []
        silent = False  # the last socket's server answered no ping: drop, do not close
        for s in seats:
            s.lost = asyncio.Event()
        try:
            # Four players, each reconnecting and rejoining on their own, at once.
            tasks = await together(connect_seat(url_of(), s) for s in seats)
            if not fresh:
                replies = await together(rejoin(s) for s in seats)
                for s, reply in zip(seats, replies, strict=True):
                    if reply["type"] == "error" and reply["code"] in RETRIED:
                        raise ConnectionError("the table is moving between cluster nodes")
                    over = reply["type"] == "snapshot" and reply["info"]["state"] != "playing"
                    if reply["type"] == "error" or over:
                        # The game ended while the seats were away (robots play them at
                        # once), and a restart forgets finished tables: start another.
                        run.finished_seen.add(s.game_id)
                        fresh = True
                        break
                if fresh and run.stopping:
                    for s in seats:
                        s.done.set()
                    return
                if fresh:
                    # Leave the old table on new sockets. The seats that did rejoin are its
                    # clients again: they would go on receiving its events (even of a next
                    # game they started with robots in the absent seats, which is why a
                    # rejoin can be refused) and counting them under the new table's game.
                    # Gone, they leave their seats to the robots, which finish the game.
                    continue
            if fresh:
                for s in seats:
                    s.answered, s.prompt_seq, s.game_id = -1, -1, ""
                created = await seats[0].request({"type": "create_table", "room": "spades"})
                if created["type"] != "table_created":
                    raise ConnectionError(f"create_table: {created}")
                table = created["table"]["id"]
                for s in seats:
                    s.table = table
                    seated = await s.request({"type": "sit", "table": table, "seat": s.index})
                    if seated["type"] != "seated":
                        raise ConnectionError(f"sit: {seated}")
                    s.token = seated["seat_token"]
                fresh = False
            finished = asyncio.create_task(all_done(seats))
            stalled = asyncio.create_task(silence(seats))
            lost = [asyncio.create_task(s.lost.wait()) for s in seats]
            await asyncio.wait([finished, stalled, *lost], return_when=asyncio.FIRST_COMPLETED)
            for waiter in (stalled, *lost):
                waiter.cancel()
            if finished.done():
                return
            finished.cancel()
            failures = 0
            why = stalled.result() if stalled.done() and not stalled.cancelled() else "closed"
            silent = why == "no pong"
            run.reconnects.append((time.monotonic(), why, seats[0].group))
        except (TimeoutError, ConnectionError, OSError, WebSocketException):
            failures += 1
            run.reconnects.append((time.monotonic(), "failed", seats[0].group))
        finally:
            for s in seats:
                s.fold()
                if s.retry is not None:
                    s.retry.cancel()
                    s.retry = None
            await asyncio.gather(*(s.close(silent) for s in seats))  # at once, not in turn
            for s in seats:
                if s.task is not None:
                    s.task.cancel()
            for t in tasks:
                t.cancel()
        if all(s.done.is_set() for s in seats):
            return
        await asyncio.sleep(min(1.0, 0.05 * 2 ** failures))


def report_stuck(run: Run, port: int, say: Callable[[str], object] = print) -> int:
    """Say what the bots of unfinished tables last saw, and what the server on ``port``
    says of their tables; how many tables were stuck."""
    url = f"http://{HOST}:{port}/api/tables?room=spades"
    tables: dict[str, Any] = {}
    with contextlib.suppress(OSError, ValueError):
        tables = {t["id"]: t for t in json.loads(
            urllib.request.urlopen(url, timeout=5).read())["tables"]}
    stuck = 0
    for seats in run.tables:
        if all(s.done.is_set() for s in seats):
            continue
        stuck += 1
        s0 = seats[0]
        say(f"stuck table {s0.table} game {s0.game_id}: last seq "
            f"{[s.last_seq for s in seats]}, answered {[s.answered for s in seats]}; "
            f"server: {tables.get(s0.table)}")
    return stuck


def losses(acked: dict[str, Counter[Key]],
           actions: dict[str, Counter[Key]]) -> list[tuple[str, Key, int, int]]:
    """(game, action, times acknowledged, times stored) for every action that the database
    holds fewer times in that game than some bot saw it acknowledged."""
    return [(game, key, n, actions.get(game, Counter())[key])
            for game, counts in acked.items() for key, n in counts.items()
            if n > actions.get(game, Counter())[key]]


def missing(acked: dict[str, Counter[Key]], actions: dict[str, Counter[Key]],
            say: Callable[[str], object]) -> int:
    """How many acknowledged actions the database lacks, each said as it is found."""
    lost = 0
    for game, key, n, have in losses(acked, actions):
        lost += n - have
        say(f"  lost: game {game} {key}: acknowledged {n}, stored {have}")
    return lost


def per_table(counts: dict[str, Counter[Key]]) -> dict[str, Counter[Key]]:
    """Counts per game (id ``<table>-<hex>``) summed per table."""
    out: dict[str, Counter[Key]] = defaultdict(Counter)
    for game, c in counts.items():
        out[game.rsplit("-", 1)[0]].update(c)
    return out


ACTIONS_SQL = "SELECT game_id, seat, action FROM actions ORDER BY game_id, idx"


def tally(rows: Iterable[Any]) -> dict[str, Counter[Key]]:
    """Each game's stored actions, keyed as the bots key what they saw acknowledged."""
    actions: dict[str, Counter[Key]] = defaultdict(Counter)
    plays: Counter[str] = Counter()
    for game_id, seat, text in rows:
        data = json.loads(text)
        n = plays[game_id]
        key = action_key(seat, data["type"], data,
                         n // (4 * TRICKS) if data["type"] == "bid" else n // 4)
        if key is not None:
            actions[game_id][key] += 1
        if data["type"] == "play":
            plays[game_id] += 1
    return actions



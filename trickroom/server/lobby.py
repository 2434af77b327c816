"""The lobby: this node's rooms, their open tables, and who is subscribed to which room.

A table lives here from ``create_table`` (or the random queue, or a restart, or
a take-over) until it closes or moves to another node: its runner tells the
lobby, which drops it and pushes a ``table_update`` with ``removed`` to the
room's subscribers, so a server that runs for weeks lists only the tables that
are still open. What the rooms share with other nodes (their listings, their
chat, the ignore lists, the caps on open tables) goes through the hub.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from trickroom.game import duplicate
from trickroom.game.cards import CardParseError, hands_from_texts, texts_of
from trickroom.game.engine import ENGINES
from trickroom.game.trickgame import rules_wire
from trickroom.i18n import Msg
from trickroom.i18n.catalogs import render
from trickroom.server.config import Config, ConfigError, Room
from trickroom.server.hub.port import Hub, Member
from trickroom.server.metrics import METRICS
from trickroom.server.protocol import (
    ChatMessage,
    ProtocolError,
    RoomInfo,
    SandboxRequest,
    TableInfo,
    TableUpdate,
)
from trickroom.server.ranked import Ranked
from trickroom.server.store import Store, StoredGame
from trickroom.server.tables.commands import BoardPoll, ClientId, Open, Resume
from trickroom.server.tables.log import Shared
from trickroom.server.tables.machine import TableMachine
from trickroom.server.tables.runner import TableRunner
from trickroom.server.tables.state import Board, Privacy, Sandbox
from trickroom.server.thinking import Thinking

log = logging.getLogger("trickroom.lobby")


class Lobby:
    def __init__(self, config: Config, store: Store, ranked: Ranked, hub: Hub,
                 clients: Mapping[ClientId, Member],
                 rng: Callable[[], random.Random] = secrets.SystemRandom,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.settings = config.settings
        self.rooms = config.rooms
        self.store = store
        self.ranked = ranked
        self.hub = hub
        self.clients = clients
        self.rng = rng  # each table's randomness (seeds, tokens, seat draws)
        self.wall_clock = wall_clock  # the tables' "now" (bans end by it)
        self.tables: dict[str, TableRunner] = {}
        # Where the tables' searching robots think, each address group within its share.
        self.thinking = Thinking.from_settings(self.settings)
        self.draining = False  # the node is handing its tables over: it opens no new one
        self.subscribers: dict[str, set[Member]] = defaultdict(set)
        self.created_by: dict[str, tuple[str, str]] = {}  # open table -> (creator, address)
        # Board set (duplicate rooms) -> the tables of this node that read it.
        self.boards: dict[str, set[str]] = {}
        self.opened: dict[str, set[str]] = defaultdict(set)  # creator -> its open tables
        # A table a player opened, while it waits for its game: its (room, address).
        self.waiting_from: dict[str, tuple[str, str]] = {}
        self._reloads: set[asyncio.Task[None]] = set()  # tables run again from the store
        # Every account a seat belongs to, with how many seats: what a guest name's "does a
        # seat wait for it" asks at each guest's logout. Kept from each table's seats after
        # its every command, so the question is one lookup, not a walk over every seat of
        # every table (which let each guest leaving cost the loop time of the whole room).
        self.seated: Counter[str] = Counter()
        self._seats_of: dict[TableRunner, tuple[str, ...]] = {}
        self._runners_of: dict[str, set[TableRunner]] = {}  # account -> tables it sits at
        self.on_seats: Callable[[str], None] = lambda name: None  # where one sits changed
        # A ranked game finished and is stored (its id and record): its analysis, unasked.
        self.on_ranked_end: Callable[[str, dict[str, Any]], None] = lambda game_id, record: None
        self._unpushed: dict[str, tuple[TableInfo, bool]] = {}  # changed, not yet pushed
        self._push_timer: asyncio.TimerHandle | None = None

    def room(self, name: str) -> Room:
        if name not in self.rooms:
            raise ProtocolError("not_found",
                                Msg("no room {name!r}; rooms: {rooms}", name=name,
                                    rooms=', '.join(sorted(self.rooms))))
        return self.rooms[name]

    def table(self, table_id: str) -> TableRunner:
        if table_id not in self.tables:
            raise ProtocolError("no_such_table",
                                Msg("no table {table_id!r} is open (it may have closed)",
                                    table_id=table_id))
        return self.tables[table_id]

    async def rooms_info(self, asker: Member | None = None) -> list[RoomInfo]:
        """The rooms, with their open tables counted over every node; for a logged-in
        ``asker``, each ranked room says why they may not sit there (before they click)."""
        counts = await self.hub.room_counts(self.rooms)
        why: dict[bool, str | None] = {}  # by whether the room is the bot ladder
        if asker is not None and asker.name:
            for ladder in sorted({r.ladder for r in self.rooms.values() if r.rated}):
                refusal = await self.ranked.refusal(asker.name, asker.guest, ladder)
                why[ladder] = None if refusal is None else render(refusal, asker.language)
        return [RoomInfo(name=r.name, game=r.game, rated=r.rated, system=r.system,
                         rules=rules_wire(r.make_rules()), tables=counts.get(r.name, 0),
                         not_eligible=why.get(r.ladder) if r.rated else None,
                         players=r.players, duplicate=r.duplicate)
                for r in self.rooms.values()]

    async def tables_info(self, room: str,
                          asker: Member | None = None) -> tuple[list[TableInfo], int]:
        """At most ``tables_listed`` of a room's open tables, those waiting for players
        first (in the order they opened), then those playing (in the order they began),
        then finished ones; and how many are open in all. The asker's own tables of the
        room (those it opened, sits at or watches) are listed too, after them, wherever
        they stand in the room's order: however many tables wait before it, a player
        finds the one it opened (issue 32, item 16)."""
        tables, total = await self.hub.room_tables(room, self.settings.tables_listed)
        if asker is not None:
            shown = {info.id for info in tables}
            own = sorted((asker.tables | self.opened.get(asker.name, set())) - shown)
            if own:
                tables = tables + await self.hub.room_listings(room, own)
        return tables, total

    def listed(self) -> Iterable[TableInfo]:
        """This node's tables as the rooms list them."""
        return [runner.machine.info() for runner in self.tables.values()]

    async def new_table(self, room_name: str, rules: dict[str, Any], seating: str,
                        table_id: str | None = None, creator: Member | None = None,
                        spectator_chat: bool = False, private: bool = False,
                        opener: str | None = None,
                        sandbox: SandboxRequest | None = None) -> TableRunner:
        """A new table of ``room_name``. ``creator``: the connection that asked (its caps
        count it); ``opener``: the player who opens it when no connection asked (a
        challenge's sender); ``sandbox``: fixed deals (the table is then private)."""
        room = self.room(room_name)
        made_sandbox = self._sandbox(sandbox) if sandbox is not None else None
        private = private or made_sandbox is not None
        if private and room.rated:
            raise ProtocolError("invalid_field", Msg("room {name!r} is ranked: its seating is "
                                                     "random or the host's, so its tables are "
                                                     "not private; open a private table in a "
                                                     "casual room", name=room.name))
        if self.draining:
            raise ProtocolError("unavailable", Msg("this server is restarting and opens no "
                                                   "table: reconnect, and you will reach "
                                                   "another"), retry_after=1.0)
        table_id = table_id or secrets.token_urlsafe(6)
        try:
            if creator is not None:
                await self._may_create(room, rules, creator, table_id)
            try:
                made = room.make_rules(rules)
            except ConfigError as exc:
                raise ProtocolError("invalid_field", Msg("rules: {exc}", exc=exc.args[0])) from None
            machine = TableMachine(table_id, room, self.settings, made, seating, self.rng(),
                                   creator=creator.name if creator else opener,
                                   spectator_chat=spectator_chat,
                                   private=Privacy(sandbox=made_sandbox) if private else None)
            runner = self._runner(machine)
            if not await self.hub.claim(runner.id):
                raise ProtocolError("internal", Msg("could not open the table; try again"))
        except BaseException:
            self.forget_creator(table_id)
            raise
        self._add(runner)
        await runner.call(Open())
        return runner

    def _sandbox(self, asked: SandboxRequest) -> Sandbox:
        """A sandbox as asked, its deals checked (each a whole deck in four hands)."""
        deals = []
        for index, hands in enumerate(asked.deals):
            try:
                hands_from_texts(hands)
            except CardParseError as exc:
                raise ProtocolError("invalid_field", Msg("field 'sandbox.deals.{index}': {exc}",
                                                         index=index, exc=exc.args[0]),
                                    field=f"sandbox.deals.{index}") from None
            deals.append(tuple(tuple(hand) for hand in hands))
        seed = asked.seed if asked.seed is not None else self.rng().getrandbits(48)
        return Sandbox(seed, tuple(deals), asked.duplicate,
                       known=asked.seed is not None or bool(deals))

    def _runner(self, machine: TableMachine) -> TableRunner:
        return TableRunner(machine, self.store, self.ranked, self.clients, self, self.hub,
                           self.wall_clock, self.thinking)

    def _add(self, runner: TableRunner) -> None:
        self.tables[runner.id] = runner
        self.hub.table_changed(runner.machine.info(), removed=False)
        METRICS.tables.set(len(self.tables))
        runner.start()

    async def _may_create(self, room: Room, rules: dict[str, Any], creator: Member,
                          table_id: str) -> None:
        """A ranked room plays its host's rules; one player (or address) opens few tables,
        on every node together. The table counts from here on, before any wait: requests
        sent at once from many sockets each see those before them."""
        if room.rated and rules:
            raise ProtocolError("invalid_field", Msg("room {name!r} is ranked: it plays the "
                                                     "host's rules; create the table without "
                                                     "'rules'", name=room.name))
        if room.rated:  # a table its creator may not sit at would wait, empty, until it expired
            await self.ranked.check_eligible(creator.name, creator.guest, room.ladder)
        mine, here = self._created(creator.name, creator.address)
        waiting_key = f"{room.name} {creator.address}"
        waiting = self._waiting(room.name, creator.address)
        self._within_caps(mine, here, waiting, room.name)
        self.created_by[table_id] = (creator.name, creator.address)  # new_table undoes it
        self.opened[creator.name].add(table_id)
        self.waiting_from[table_id] = (room.name, creator.address)
        hub = self.hub
        self._within_caps(mine + await hub.count_elsewhere("tables-account", creator.name),
                          here + await hub.count_elsewhere("tables-address", creator.address),
                          waiting + await hub.count_elsewhere("waiting-address", waiting_key),
                          room.name)
        self._share_created(creator.name, creator.address)
        self._share_waiting(room.name, creator.address)

    def _within_caps(self, mine: int, here: int, waiting: int, room: str) -> None:
        if mine >= self.settings.tables_per_account:
            raise ProtocolError("rate_limited", Msg("you have {mine} open tables, the most one "
                                                    "player may open; play at or leave one of "
                                                    "them first", mine=mine))
        if here >= self.settings.tables_per_address:
            raise ProtocolError("rate_limited", Msg("{here} tables are open from your address, "
                                                    "the most it may open; wait for one to "
                                                    "close", here=here))
        if waiting >= self.settings.waiting_tables_per_address:
            raise ProtocolError("rate_limited", Msg("{waiting} tables opened from your address "
                                                    "are waiting for players in room {room!r}, "
                                                    "the most it may have: start one of them, "
                                                    "or wait for one to close", waiting=waiting,
                                                    room=room))

    def forget_creator(self, table_id: str) -> None:
        """A table closed, failed to open or went to another node: its creator may open
        another (on every node)."""
        creator = self.created_by.pop(table_id, None)
        if creator is not None:
            opened = self.opened[creator[0]]
            opened.discard(table_id)
            if not opened:
                del self.opened[creator[0]]
            self._share_created(*creator)
        self._not_waiting(table_id)

    def _not_waiting(self, table_id: str) -> None:
        """A table a player opened waits for its game no more (it began, or the table
        closed): its address may open another in the room."""
        waiting = self.waiting_from.pop(table_id, None)
        if waiting is not None:
            self._share_waiting(*waiting)

    def _created(self, name: str, address: str) -> tuple[int, int]:
        """The open tables ``name`` created here, and those created from ``address``."""
        who = self.created_by.values()
        return sum(n == name for n, _ in who), sum(a == address for _, a in who)

    def _waiting(self, room: str, address: str) -> int:
        """The tables opened here from ``address`` that wait for their game in ``room``."""
        return sum(w == (room, address) for w in self.waiting_from.values())

    def _share_waiting(self, room: str, address: str) -> None:
        self.hub.share_count("waiting-address", f"{room} {address}",
                             self._waiting(room, address))

    def _share_created(self, name: str, address: str) -> None:
        mine, here = self._created(name, address)
        self.hub.share_count("tables-account", name, mine)
        self.hub.share_count("tables-address", address, here)

    # -- what runners tell the lobby -----------------------------------------------------------

    def ranked_ended(self, game_id: str, record: dict[str, Any]) -> None:
        self.on_ranked_end(game_id, record)

    def seats_taken(self, runner: TableRunner, accounts: tuple[str, ...]) -> None:
        """A table's seats now belong to ``accounts`` (none: it closed, or runs elsewhere)."""
        old = self._seats_of.pop(runner, ())
        if accounts:
            self._seats_of[runner] = accounts
        seated = self.seated
        for name in old:
            left = seated[name] - 1
            if left:
                seated[name] = left
            else:
                del seated[name]
            runners = self._runners_of.get(name)
            if runners is not None:
                runners.discard(runner)
                if not runners:
                    del self._runners_of[name]
        for name in accounts:
            seated[name] += 1
            self._runners_of.setdefault(name, set()).add(runner)
        for name in set(old).symmetric_difference(accounts):
            self.on_seats(name)  # where the player sits changed: their presence

    async def table_open(self, room: str, table_id: str) -> bool:
        """Whether a table of ``room`` is open, on this node or another."""
        return table_id in self.tables or bool(await self.hub.room_listings(room, [table_id]))

    def seated_at(self, name: str) -> TableRunner | None:
        """A table of this node where ``name`` sits (one of them, if several), or None."""
        runners = self._runners_of.get(name)
        return max(runners, key=lambda r: r.id) if runners else None

    def on_change(self, info: TableInfo) -> None:
        """Push a table's new state to everyone subscribed to its room."""
        if info.state != "waiting":
            self._not_waiting(info.id)
        self._push(info, removed=False)

    def on_close(self, runner: TableRunner, info: TableInfo,
                 audience: tuple[ClientId, ...]) -> None:
        """A closed table leaves the lobby; its record stays in the store for review."""
        for client_id in audience:  # they need not tell it of their going
            member = self.clients.get(client_id)
            if member is not None:
                member.tables.discard(runner.id)
        self.seats_taken(runner, ())
        if self.tables.get(runner.id) is runner:
            del self.tables[runner.id]
            self._forget_boards(runner)
            self.forget_creator(runner.id)
            METRICS.tables.set(len(self.tables))
            METRICS.tables_closed.inc()
            self.hub.table_closed(runner.id)
        self._push(info, removed=True)

    async def let_go(self, table_id: str) -> None:
        """Stop running a table another node now owns: its seats and listing are the new
        owner's to tell."""
        runner = self.tables.pop(table_id, None)
        self.forget_creator(table_id)
        if runner is not None:
            self._forget_boards(runner)
            METRICS.tables.set(len(self.tables))
            await runner.stop()
            self.seats_taken(runner, ())

    async def hand_off(self, table_id: str) -> bool:
        """Stop running a table to hand it over, if its game is still in play once the
        command in hand is done (False: it ended, and the table stays, between games)."""
        runner = self.tables.get(table_id)
        if runner is None or not await runner.stop_if_playing():
            return False
        if self.tables.get(table_id) is runner:
            del self.tables[table_id]
            self._forget_boards(runner)
        self.forget_creator(table_id)
        METRICS.tables.set(len(self.tables))
        self.seats_taken(runner, ())
        return True

    def board_read(self, runner: TableRunner, set_id: str, wrote: bool) -> None:
        """A table read its board set. When it had just stored a deal's result or its end
        (``wrote``), the set's other tables on this node read the set at once, instead of
        at their next poll: a player waiting for the field sees it as the other table
        scores the deal. Tables on other nodes see it at their poll."""
        tables = self.boards.setdefault(set_id, set())
        if self.tables.get(runner.id) is runner:  # (not one that closed meanwhile)
            tables.add(runner.id)
            runner.board_sets.add(set_id)
        if wrote:
            for table_id in tables:
                other = self.tables.get(table_id)
                if other is not None and other is not runner:
                    other.post(BoardPoll())
        if not tables:
            del self.boards[set_id]

    def _forget_boards(self, runner: TableRunner) -> None:
        """A table leaves this node: out of the index of its board sets."""
        for set_id in runner.board_sets:
            tables = self.boards.get(set_id)
            if tables is not None:
                tables.discard(runner.id)
                if not tables:
                    del self.boards[set_id]

    def _push(self, info: TableInfo, removed: bool) -> None:
        """A table changed: list it now; tell the room at once if the lobby has been quiet
        for ``lobby_push_seconds``, else with everything else that changed meanwhile, each
        table once, as it is by then. Every push goes to every subscriber of the room (on
        every node): pushed as they came, a client flapping watch and unwatch made each of
        its messages cost the loop a write to every one of them."""
        self.hub.table_changed(info, removed)
        if info.private:
            return  # listed to no one: its own players hear of it at the table
        self._unpushed[info.id] = (info, removed)
        if self._push_timer is None:
            self._flush_pushes()

    def _flush_pushes(self) -> None:
        unpushed, self._unpushed = self._unpushed, {}
        if not unpushed:
            self._push_timer = None
            return
        self._push_timer = asyncio.get_running_loop().call_later(
            self.settings.lobby_push_seconds, self._flush_pushes)
        pushed = []
        for info, removed in unpushed.values():
            update = Shared(TableUpdate(table=info, removed=removed).encode())
            pushed.append((info.room, update))
            for client in self.subscribers.get(info.room, ()):
                client.send_text(update)
        self.hub.tables_pushed(pushed)

    def unsubscribe(self, client: Member) -> None:
        for subs in self.subscribers.values():
            subs.discard(client)

    async def room_chat(self, client: Member, room: str, text: str) -> None:
        """Say ``text`` to everyone subscribed to ``room``, on every node, but those who
        ignore the speaker."""
        self.room(room)
        message = Shared(ChatMessage(name=client.name, text=text, room=room).encode())
        ignored_by = await self.hub.ignored_by(client.name)
        for other in self.subscribers.get(room, ()):
            if other.name not in ignored_by:
                other.send_text(message)
        self.hub.room_chat(room, message, ignored_by)

    def reload(self, runner: TableRunner, stored: StoredGame | None) -> None:
        """Run a table again from what the store holds (a write the table undid had landed
        after all): its sockets close (code 1012), and their clients rejoin the table as
        the store has it. ``None``: its game ended in the store; the table closes."""
        task = asyncio.get_running_loop().create_task(self._reload(runner, stored))
        self._reloads.add(task)
        task.add_done_callback(self._reloads.discard)

    async def _reload(self, runner: TableRunner, stored: StoredGame | None) -> None:
        if self.tables.get(runner.id) is not runner:
            return
        await self.let_go(runner.id)
        if stored is not None:
            await self.resume(stored)
        why = ("the table was reloaded from the database: rejoin it" if stored is not None
               else "the game ended while the database was away: see it in your history")
        for client in list(self.clients.values()):
            if runner.id in client.tables and not client.remote:
                client.tables.discard(runner.id)
                client.close(1012, why)

    async def resume(self, stored: StoredGame) -> TableRunner | None:
        """Run a stored, unfinished game's table again, from its record."""
        created = stored.created
        if created.room not in self.rooms:
            log.warning("game %s: room %s is no longer configured; left as is",
                        created.game_id, created.room)
            return None
        privacy = Privacy.from_stored(created.private) if created.private is not None else None
        sandbox = privacy.sandbox if privacy is not None else None
        deals: list[Any] | None = list(sandbox.deals) if sandbox else None
        board = await self._board_of(created.game_id) if self.room(created.room).duplicate \
            else None
        if board is not None:
            _, dealt = duplicate.board_deals(board.seed)
            deals = [[texts_of(h) for h in duplicate.shifted(d, board.slot)] for d in dealt]
        game = ENGINES[created.kind].replay({"game": created.kind, "rules": created.rules,
                                             "seed": created.seed, "dealer": created.dealer,
                                             "deals": deals, "actions": stored.actions})
        if board is not None:
            board.played = len(game.hand_results)
        machine = TableMachine(created.table_id, self.room(created.room), self.settings,
                               game.rules, created.seating, self.rng(),
                               creator=created.creator, spectator_chat=created.spectator_chat,
                               private=privacy)
        machine.state.board = board
        runner = self._runner(machine)
        self._add(runner)
        await runner.call(Resume(game, created.game_id, created.seats))
        log.info("resumed table %s game %s at action %d", runner.id, created.game_id,
                 len(stored.actions))
        return runner

    async def _board_of(self, game_id: str) -> Board | None:
        """A resumed duplicate room's game's board set, as its table holds it: the deals it
        has played are told again once every table has played them."""
        found = await self.store.board_of_game(game_id)
        read = await self.store.board(found["set"]) if found is not None else None
        if found is None or read is None:
            return None
        players = tuple(read["tables"][found["slot"]]["players"])
        return Board(read["id"], found["slot"], read["slots"], read["seed"], read["dealer"],
                     players, started=True)

    async def stop(self) -> None:
        if self._push_timer is not None:
            self._push_timer.cancel()
            self._push_timer = None
        for table in list(self.tables.values()):
            await table.stop()
        self.thinking.close()

"""What a logged-in client may ask: one handler a request type, in one table.

A request for a table becomes one command for its machine (:mod:`.tables`);
the lobby's requests list, open and queue tables, chat in rooms and keep a
player's settings. A handler runs on the node where the table is: for a
client of another node, with a stand-in for its socket (the hub's routing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from trickroom.i18n import Msg
from trickroom.i18n.catalogs import pick
from trickroom.server import protocol as wire
from trickroom.server.analysis import Analyses
from trickroom.server.challenges import Challenges
from trickroom.server.chat_text import chat_line
from trickroom.server.config import ServerSettings
from trickroom.server.friends import Follows
from trickroom.server.hub.port import Hub, Member
from trickroom.server.ignores import Ignores
from trickroom.server.lobby import Lobby
from trickroom.server.protocol import ClientMessage, ProtocolError
from trickroom.server.queues import Queues
from trickroom.server.ranked import Ranked
from trickroom.server.tables import commands as command
from trickroom.server.tables import privacy


@dataclass
class Requests:
    """The handlers of a node's requests."""

    settings: ServerSettings
    hub: Hub
    lobby: Lobby
    queues: Queues
    ranked: Ranked
    ignores: Ignores
    follows: Follows
    challenges: Challenges
    analyses: Analyses

    async def run(self, client: Member, msg: ClientMessage) -> None:
        """Run one request (its refusal raises ``ProtocolError``)."""
        handler = REQUESTS.get(type(msg))
        if handler is None:
            raise ProtocolError("unknown_type", Msg("{type!r} is not a request here",
                                                    type=msg.type))
        await handler(self, client, msg)

    # -- the lobby's requests ----------------------------------------------------------------

    async def list_tables(self, client: Member, msg: wire.ListTables) -> None:
        self.lobby.room(msg.room)
        self.lobby.subscribers[msg.room].add(client)
        tables, total = await self.lobby.tables_info(msg.room, client)
        client.reply(wire.Tables(id=msg.id, room=msg.room, tables=tables, total=total))

    async def create_table(self, client: Member, msg: wire.CreateTable) -> None:
        table = await self.lobby.new_table(msg.room, msg.rules, msg.seating, creator=client,
                                           spectator_chat=msg.spectator_chat,
                                           private=msg.private, sandbox=msg.sandbox)
        machine = table.machine
        invite = (privacy.invite_info(machine, machine.state.private)
                  if machine.state.private is not None else None)
        client.reply(wire.TableCreated(id=msg.id, table=machine.info(), invite=invite))

    async def seek(self, client: Member, msg: wire.Seek) -> None:
        """A game now: robots at a new table of a casual room, or the bot ladder's queue."""
        room = self.lobby.room(msg.room)
        if room.rated:
            if not room.ladder:
                raise ProtocolError("invalid_field", Msg("room {name!r} is ranked: join its "
                                                         "queue (queue); seek robots in a "
                                                         "casual room", name=room.name))
            if msg.rules:
                raise ProtocolError("invalid_field", Msg("room {name!r} is ranked: it plays "
                                                         "the host's rules; seek without "
                                                         "'rules'", name=room.name))
            await self.queues.join(client, msg.room, msg.id)
            return
        account = None if client.guest else await self.ranked.store.account(client.name)
        table = await self.lobby.new_table(msg.room, msg.rules, "fixed_seating",
                                           creator=client)
        client.joined(table.id)
        await table.call(command.SitWithRobots(client.who, msg.id, msg.level,
                                               bool(account and account["bot"])))

    async def events(self, client: Member, msg: wire.Events) -> None:
        """The account's games in play, from the store (its tables may be on any node)."""
        if client.guest:
            raise ProtocolError("not_authorized", Msg("guests have no event stream; register "
                                                      "(a bot: and upgrade_to_bot) first"))
        games = await self.ranked.store.games_in_play(client.name)
        client.reply(wire.EventsReply(id=msg.id, games=[wire.GameRef(**g) for g in games]))

    async def analyse(self, client: Member, msg: wire.Analyse) -> None:
        """Ask for a finished game's analysis; the reply says where it stands (progress and
        the result: ``GET /api/games/<id>/analysis``)."""
        found = await self.analyses.request(msg.game_id, client.address, client.name)
        client.reply(wire.AnalysisStatus(id=msg.id, game_id=msg.game_id,
                                         state=found["state"], done=found["done"],
                                         total=found["total"]))

    async def queue(self, client: Member, msg: wire.Queue) -> None:
        await self.queues.join(client, msg.room, msg.id)

    async def unqueue(self, client: Member, msg: wire.Unqueue) -> None:
        await self.queues.leave(client, msg.room, msg.id)

    async def chat(self, client: Member, msg: wire.Chat) -> None:
        text = chat_line(msg.text)
        if len(text) > self.settings.chat_max_chars:
            raise ProtocolError("too_long", Msg("chat messages are at most {most} characters",
                                                most=self.settings.chat_max_chars))
        if msg.table:
            table = self.lobby.table(msg.table)
            await table.call(command.Chat(client.who, msg.id, text,
                                          await self.hub.ignored_by(client.name)))
        elif msg.room:
            await self.lobby.room_chat(client, msg.room, text)
            client.reply(wire.Ok(id=msg.id))
        else:
            raise ProtocolError("invalid_field", Msg("chat needs a 'table' or a 'room'"))

    async def settings_saved(self, client: Member, msg: wire.Settings) -> None:
        if client.guest:
            raise ProtocolError("not_authorized", Msg("guests have no settings; register first"))
        if msg.rank_me is False and not msg.confirm:
            raise ProtocolError(
                "confirm_required",
                Msg('turning "rank me" off bans you from ranked play for a week and resets '
                    'your ratings to the start value: send again with "confirm": true'))
        if msg.rank_me is not None:
            await self.ranked.set_rank_me(client.name, msg.rank_me)
        if msg.hide_presence is not None:
            await self.follows.hide(client.name, msg.hide_presence)
        store = self.follows.store
        if msg.language is not None:
            await store.set_language(client.name, msg.language)
            client.language = msg.language  # this connection's texts follow at once
        account = await store.account(client.name)
        assert account is not None  # a registered player's connection
        until = account["banned_until"]
        client.reply(wire.SettingsSaved(
            id=msg.id, rank_me=bool(account["rank_me"]),
            banned_until=until if until and until > self.ranked.clock() else None,
            hide_presence=await store.hides_presence(client.name),
            language=pick(account["language"])))

    async def follow(self, client: Member, msg: wire.Follow) -> None:
        await self.follows.follow(client, msg.name, msg.on, msg.id)

    async def friends(self, client: Member, msg: wire.ListFriends) -> None:
        await self.follows.friends(client, msg.id)

    async def challenge(self, client: Member, msg: wire.Challenge) -> None:
        await self.challenges.send(client, msg)

    async def answer_challenge(self, client: Member, msg: wire.AnswerChallenge) -> None:
        await self.challenges.answer(client, msg)

    async def ignore(self, client: Member, msg: wire.Ignore) -> None:
        if not await self.ignores.set(client.name, client.guest, msg.name, msg.on):
            raise ProtocolError("invalid_field", Msg("you ignore {most} players, the most one "
                                                     'may: stop ignoring one ("on": false) '
                                                     "first", most=self.ignores.most))
        client.reply(wire.Ok(id=msg.id))

    # -- a table's requests: each becomes one command for its machine --------------------------

    async def sit(self, client: Member, msg: wire.Sit) -> None:
        table = self.lobby.table(msg.table)
        refusal = ban = None
        room = table.machine.room
        if room.rated:
            refusal = await self.ranked.refusal(client.name, client.guest, room.ladder)
            ban = await self.ranked.ban(client.name, client.guest)
        account = None if client.guest else await self.ranked.store.account(client.name)
        bot = bool(account and account["bot"])
        if room.rated and bot != room.ladder:
            ban = refusal  # not even as a substitute: bots and people are ranked apart
        await table.call(command.Sit(client.who, msg.id, msg.seat, refusal, ban, msg.invite,
                                     bot))
        client.joined(table.id)

    async def rejoin(self, client: Member, msg: wire.Rejoin) -> None:
        table = self.lobby.table(msg.table)
        client.joined(table.id)
        await table.call(command.Rejoin(client.who, msg.id, msg.seat_token, msg.last_seq))

    async def watch(self, client: Member, msg: wire.Watch) -> None:
        table = self.lobby.table(msg.table)
        client.joined(table.id)
        await table.call(command.Watch(client.who, msg.id, msg.invite))

    async def unwatch(self, client: Member, msg: wire.Unwatch) -> None:
        table = self.lobby.table(msg.table)
        client.tables.discard(table.id)
        await table.call(command.Unwatch(client.who, msg.id))

    async def stand(self, client: Member, msg: wire.Stand) -> None:
        await self.lobby.table(msg.table).call(command.Stand(client.who, msg.id))

    async def fill_robots(self, client: Member, msg: wire.FillRobots) -> None:
        await self.lobby.table(msg.table).call(command.Fill(client.who, msg.id, msg.level))

    async def table_options(self, client: Member, msg: wire.TableOptions) -> None:
        await self.lobby.table(msg.table).call(
            command.Options(client.who, msg.id, msg.spectator_chat))

    async def invite(self, client: Member, msg: wire.Invite) -> None:
        await self.lobby.table(msg.table).call(
            command.Invite(client.who, msg.id, msg.renew, msg.revoke))

    async def reserve(self, client: Member, msg: wire.Reserve) -> None:
        await self.lobby.table(msg.table).call(
            command.Reserve(client.who, msg.id, msg.seat, msg.name))

    async def move_seat(self, client: Member, msg: wire.MoveSeat) -> None:
        await self.lobby.table(msg.table).call(
            command.MoveSeat(client.who, msg.id, msg.seat, msg.to))

    async def remove_player(self, client: Member, msg: wire.RemovePlayer) -> None:
        await self.lobby.table(msg.table).call(
            command.RemovePlayer(client.who, msg.id, msg.seat))

    async def start_game(self, client: Member, msg: wire.Start) -> None:
        await self.lobby.table(msg.table).call(command.Start(client.who, msg.id))

    async def play_again(self, client: Member, msg: wire.PlayAgain) -> None:
        await self.lobby.table(msg.table).call(
            command.PlayAgain(client.who, msg.id, msg.seats == "rotate"))

    async def act(self, client: Member, msg: wire.Act) -> None:
        await self.lobby.table(msg.table).call(command.Act(client.who, msg.id, msg.action))

    async def vote(self, client: Member, msg: wire.CastVote) -> None:
        await self.lobby.table(msg.table).call(
            command.CastVote(client.who, msg.id, msg.vote, msg.choice))


Handler = Callable[[Requests, Member, Any], Awaitable[None]]
REQUESTS: dict[type, Handler] = {
    wire.ListTables: Requests.list_tables,
    wire.CreateTable: Requests.create_table,
    wire.Sit: Requests.sit,
    wire.Rejoin: Requests.rejoin,
    wire.Watch: Requests.watch,
    wire.Unwatch: Requests.unwatch,
    wire.Stand: Requests.stand,
    wire.FillRobots: Requests.fill_robots,
    wire.Start: Requests.start_game,
    wire.TableOptions: Requests.table_options,
    wire.Invite: Requests.invite,
    wire.Follow: Requests.follow,
    wire.Challenge: Requests.challenge,
    wire.AnswerChallenge: Requests.answer_challenge,
    wire.ListFriends: Requests.friends,
    wire.Reserve: Requests.reserve,
    wire.MoveSeat: Requests.move_seat,
    wire.RemovePlayer: Requests.remove_player,
    wire.PlayAgain: Requests.play_again,
    wire.Act: Requests.act,
    wire.Chat: Requests.chat,
    wire.Queue: Requests.queue,
    wire.Seek: Requests.seek,
    wire.Analyse: Requests.analyse,
    wire.Events: Requests.events,
    wire.Unqueue: Requests.unqueue,
    wire.CastVote: Requests.vote,
    wire.Settings: Requests.settings_saved,
    wire.Ignore: Requests.ignore,
}
"""Every request after logging in, by its message type: one handler each."""

TABLE_REQUESTS = frozenset({wire.Sit, wire.Rejoin, wire.Watch, wire.Unwatch, wire.Stand,
                            wire.FillRobots, wire.Start, wire.PlayAgain, wire.Act,
                            wire.CastVote, wire.Chat, wire.TableOptions, wire.Invite,
                            wire.Reserve, wire.MoveSeat, wire.RemovePlayer})
"""The requests for one table: run by the node that runs the table."""

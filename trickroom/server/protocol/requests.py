"""What a client may send: one model a request type, told apart by ``type``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from trickroom.i18n import Msg
from trickroom.server.protocol import fields
from trickroom.server.protocol.base import (
    PROTOCOL,
    Language,
    Name,
    ProtocolError,
    RequestId,
    TableId,
)

# A client may say which protocol version it speaks (when it logs in): one this server
# does not speak is refused, so that a bot learns it at once rather than by misreading.
Version = Annotated[int, Field(ge=1, le=PROTOCOL)]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: RequestId = None


# -- accounts -------------------------------------------------------------------------


class Register(Request):
    """Create an account and log in; names are 1-24 letters (of one script), digits, '_'
    or '-' (server/names.py)."""

    type: Literal["register"]
    name: Name
    password: Annotated[str, Field(min_length=6, max_length=200)]
    protocol: Version | None = None  # the protocol version the client speaks
    # The language this connection's texts are in (else the account's setting, else the
    # socket's Accept-Language, else English: docs/protocol.md, "Languages").
    language: Language | None = None


class Login(Request):
    """Log in; ``device`` is the token an earlier ``welcome`` of this account gave this
    device: a known device is not kept out by a stranger's wrong guesses."""

    type: Literal["login"]
    name: Name
    password: Annotated[str, Field(max_length=200)]
    device: Annotated[str, Field(min_length=10, max_length=100)] | None = None
    protocol: Version | None = None  # the protocol version the client speaks
    # The language this connection's texts are in (else the account's setting, else the
    # socket's Accept-Language, else English: docs/protocol.md, "Languages").
    language: Language | None = None


class Guest(Request):
    """Play casual tables without an account; the server picks a free guest name."""

    type: Literal["guest"]
    name: Name | None = None
    protocol: Version | None = None  # the protocol version the client speaks
    # The language this connection's texts are in (else the account's setting, else the
    # socket's Accept-Language, else English: docs/protocol.md, "Languages").
    language: Language | None = None


class Resume(Request):
    """Log back in with a session token from an earlier ``welcome``."""

    type: Literal["resume"]
    token: Annotated[str, Field(min_length=10, max_length=100)]
    protocol: Version | None = None  # the protocol version the client speaks
    # The language this connection's texts are in (else the account's setting, else the
    # socket's Accept-Language, else English: docs/protocol.md, "Languages").
    language: Language | None = None


Password = Annotated[str, Field(min_length=6, max_length=200)]


class Logout(Request):
    """End this session: its token no longer resumes, and the connection is no one."""

    type: Literal["logout"]


class LogoutAll(Request):
    """Sign out everywhere: every session of the account ends, this one too."""

    type: Literal["logout_all"]


class ChangePassword(Request):
    """A new password, given the old one; every other session of the account ends."""

    type: Literal["change_password"]
    old_password: Annotated[str, Field(max_length=200)]
    new_password: Password


class UpgradeToBot(Request):
    """Make this account a BOT's, as Lichess does: for good (there is no way back), so
    ``confirm: true`` is needed. A BOT is marked as one wherever its name shows, never sits
    at people's ranked tables and is rated on the bot ladder's instead."""

    type: Literal["upgrade_to_bot"]
    confirm: bool = False


class ListSessions(Request):
    """The account's active sessions (where and when each was used)."""

    type: Literal["sessions"]


# -- the lobby --------------------------------------------------------------------------


class ListRooms(Request):
    type: Literal["list_rooms"]


class ListTables(Request):
    """Subscribe to a room: the reply lists its tables and later changes are pushed."""

    type: Literal["list_tables"]
    room: Name


DealHands = Annotated[list[Annotated[list[Annotated[str, Field(max_length=3)]],
                                      Field(min_length=13, max_length=13)]],
                      Field(min_length=4, max_length=4)]
MAX_SANDBOX_DEALS = 40  # a deal list's length (a frame holds about fifty deals)


class SandboxRequest(BaseModel):
    """A sandbox's deals: ``seed`` (any from 0 to 2**53; drawn when left out) fixes every
    deal of every game; ``deals`` gives the first hands' cards (four hands of 13 cards,
    seat 0 first), dealt from the seed after them; ``duplicate``: play duplicate matches
    (the same deals again, everyone one seat on: two games in Spades, four in Hearts)."""

    model_config = ConfigDict(extra="forbid")

    seed: Annotated[int, Field(ge=0, le=2**53)] | None = None
    deals: Annotated[list[DealHands], Field(max_length=MAX_SANDBOX_DEALS)] = Field(
        default_factory=list)
    duplicate: bool = False


class CreateTable(Request):
    type: Literal["create_table"]
    room: Name
    rules: dict[str, Any] = Field(default_factory=dict)
    seating: Literal["random_seating", "fixed_seating"] = "fixed_seating"
    # Spectators may chat to the players while a game with a human player is in play: off
    # unless asked (the table's players may change it: ``table_options``).
    spectator_chat: bool = False
    # A private table (casual rooms): listed to no one, entered with its invite code.
    private: bool = False
    # Fixed deals for reproducible tests and duplicate matches (a sandbox is private and
    # its games count toward nothing).
    sandbox: SandboxRequest | None = None


InviteCode = Annotated[str, Field(min_length=1, max_length=64)]


class Sit(Request):
    """Take a seat (0..3) at a table, or any free seat when ``seat`` is omitted."""

    type: Literal["sit"]
    table: TableId
    seat: Annotated[int, Field(ge=0, le=3)] | None = None
    invite: InviteCode | None = None  # a private table's invite code


class Stand(Request):
    """Leave one's seat (before the game starts; during a game it is leaving the table)."""

    type: Literal["stand"]
    table: TableId


class Watch(Request):
    type: Literal["watch"]
    table: TableId
    invite: InviteCode | None = None  # a private table's invite code


SeatNo = Annotated[int, Field(ge=0, le=3)]


class Invite(Request):
    """A private table's invite code (its players, or the player who opened it); with
    ``renew``, a new one (the old stops working), with ``revoke`` (the opener), none."""

    type: Literal["invite"]
    table: TableId
    renew: bool = False
    revoke: bool = False


class Reserve(Request):
    """Keep a seat of a private table for the player ``name`` (null: free it again): the
    opener, before a game starts."""

    type: Literal["reserve"]
    table: TableId
    seat: SeatNo
    name: Name | None


class MoveSeat(Request):
    """Move the player at ``seat`` to the seat ``to`` (swapping with whoever is there): the
    opener of a private table, before a game starts."""

    type: Literal["move_seat"]
    table: TableId
    seat: SeatNo
    to: SeatNo


class RemovePlayer(Request):
    """Remove the player at ``seat`` from a private table (they may not come back by its
    invite): the opener, before a game starts."""

    type: Literal["remove_player"]
    table: TableId
    seat: SeatNo


class Unwatch(Request):
    """Stop watching a table (its events stop coming)."""

    type: Literal["unwatch"]
    table: TableId


class FillRobots(Request):
    """Seat robots in every empty seat (casual rooms only)."""

    type: Literal["fill_robots"]
    table: TableId
    level: Literal["random", "heuristic", "search"] = "heuristic"


class Start(Request):
    type: Literal["start"]
    table: TableId


class TableOptions(Request):
    """Change a table's options (its players, or the player who opened it)."""

    type: Literal["table_options"]
    table: TableId
    spectator_chat: bool


class PlayAgain(Request):
    """After game over: the same four play a new game once every human has asked;
    ``seats``: ``keep`` them, or ``rotate`` for new partners (casual tables; the table's
    majority decides, a tie keeps them)."""

    type: Literal["play_again"]
    table: TableId
    seats: Literal["keep", "rotate"] = "keep"


# -- at the table ---------------------------------------------------------------------------


class Act(Request):
    """A game action: ``{"type": "play", "card": "QS"}``, ``{"type": "bid", "value": 4}``, ...

    The server reads ``action`` as any object and the engine judges it, so that a wrong
    one is refused with the rule it breaks; the schema publishes it typed per game
    (:class:`~trickroom.server.protocol.schema.Act`)."""

    type: Literal["act"]
    table: TableId
    action: dict[str, Any]


class Rejoin(Request):
    """Come back to a seat after a drop: the seat token and the last ``seq`` seen."""

    type: Literal["rejoin"]
    table: TableId
    seat_token: Annotated[str, Field(min_length=10, max_length=100)]
    last_seq: Annotated[int, Field(ge=0)] = 0


class Chat(Request):
    """Say something at a table (``table``) or in a room (``room``)."""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1)]
    table: TableId | None = None
    room: Name | None = None


class Ignore(Request):
    """Hide (or, with ``on: false``, show again) another player's chat."""

    type: Literal["ignore"]
    name: Name
    on: bool = True


class Ping(Request):
    type: Literal["ping"]


class Queue(Request):
    """Join a ranked room's random queue: the server seats four eligible players at random."""

    type: Literal["queue"]
    room: Name


class Unqueue(Request):
    type: Literal["unqueue"]
    room: Name


class CastVote(Request):
    """Answer a vote prompt: ``wait``/``dont_wait`` (Zone) or ``yes``/``no`` (invite a robot)."""

    type: Literal["vote"]
    table: TableId
    vote: Annotated[str, Field(min_length=1, max_length=20)]
    choice: Annotated[str, Field(min_length=1, max_length=20)]


class Settings(Request):
    """Player settings, each optional. Turning "rank me" off bans ranked play for a week
    and resets ratings, so it needs ``confirm: true``; ``hide_presence``: those who follow
    you see you offline."""

    type: Literal["settings"]
    rank_me: bool | None = None
    confirm: bool = False
    hide_presence: bool | None = None
    language: Language | None = None  # kept with the account; this connection's at once


class Follow(Request):
    """Follow a registered player (``on: false``: no longer); follows both ways make two
    players friends. Registered players only."""

    type: Literal["follow"]
    name: Name
    on: bool = True


DeclineReason = Literal["generic", "later", "rules", "game", "no_robots", "casual",
                        "only_bots", "no_bots"]


class Challenge(Request):
    """Ask players you name for a game: ``seats`` lists the four seats, each you, a player
    you challenge (online, registered), or null for a robot; ``room`` a casual room and
    ``rules`` its variants as ``create_table`` takes them. Accepted by all, it is a
    private table with each seat kept for its player."""

    type: Literal["challenge"]
    room: Name
    seats: Annotated[list[Name | None], Field(min_length=4, max_length=4)]
    rules: dict[str, Any] = Field(default_factory=dict)


class AnswerChallenge(Request):
    """Accept a challenge, or decline it (``reason``, one of a fixed few, is told)."""

    type: Literal["answer_challenge"]
    challenge: Annotated[str, Field(min_length=1, max_length=40)]
    accept: bool
    reason: DeclineReason | None = None


class Events(Request):
    """The account's games in play, now; its games' starts and ends (``game_start``,
    ``game_finish``) and challenges (``challenged``, ``challenge_over``) are pushed to
    every connection of the account, on any node. Registered players only."""

    type: Literal["events"]


class Seek(Request):
    """A game now: in a casual room, a new table of your own with robots of ``level`` in
    the other seats (``rules`` as ``create_table`` takes them), started at once; in a room
    of the bot ladder, its random queue (as ``queue``)."""

    type: Literal["seek"]
    room: Name
    level: Literal["random", "heuristic", "search"] = "heuristic"
    rules: dict[str, Any] = Field(default_factory=dict)


class Analyse(Request):
    """Ask for a finished game's analysis (each decision's loss against the search's
    best); it runs in the background: ``GET /api/games/<id>/analysis`` shows its
    progress and then its result."""

    type: Literal["analyse"]
    game_id: Annotated[str, Field(min_length=1, max_length=64)]


class ListFriends(Request):
    """The players you follow, each with where they are; each change of theirs is then
    pushed to this connection (``presence``) until it asks again or closes."""

    type: Literal["friends"]


ClientMessage = Annotated[
    Register | Login | Guest | Resume | Logout | LogoutAll | ChangePassword | ListSessions
    | UpgradeToBot
    | ListRooms | ListTables | CreateTable | Sit | Stand
    | Watch | Unwatch | FillRobots | Start | PlayAgain | Act | Rejoin | Chat | Ignore | Ping | Queue
    | Unqueue | CastVote | Settings | TableOptions | Invite | Reserve | MoveSeat | RemovePlayer
    | Follow | ListFriends | Challenge | AnswerChallenge | Events | Seek | Analyse,
    Field(discriminator="type"),
]
CLIENT_MODELS: tuple[type[Request], ...] = (
    Register, Login, Guest, Resume, Logout, LogoutAll, ChangePassword, ListSessions,
    UpgradeToBot, ListRooms, ListTables, CreateTable, Sit, Stand,
    Watch, Unwatch, FillRobots, Start, PlayAgain, Act, Rejoin, Chat, Ignore, Ping, Queue,
    Unqueue, CastVote, Settings, TableOptions, Invite, Reserve, MoveSeat,
    RemovePlayer, Follow, ListFriends, Challenge, AnswerChallenge, Events, Seek, Analyse)
CLIENT_TYPES = tuple(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in CLIENT_MODELS
)
client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# How deep a message's arrays and objects may nest, the message itself being level 1: a
# real one nests three (a table's rules, a rule's list; an action, a pass's cards).
MAX_DEPTH = 16
TOO_DEEP = Msg("the message nests too deep: at most {depth} levels of arrays and objects",
               depth=MAX_DEPTH)


def parse_client_message(text: str | bytes) -> ClientMessage:
    """Parse one frame into a request, or raise :class:`ProtocolError` naming the problem.

    A value nested deeper than ``MAX_DEPTH`` is refused (``bad_json``) before any Python
    code walks it: validating, repr-ing or copying a value a thousand deep recurses past
    the interpreter's limit. orjson parses in C with its own bound of 1,024 levels (past
    it the message is refused unread, so without its id); the frame's size bounds what
    is parsed at all (``max_frame_bytes``). Below orjson's bound the message is read and
    its depth checked, so that the refusal names the request's id.
    """
    try:
        data = orjson.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        if "depth limit" in str(exc):
            raise ProtocolError("bad_json", TOO_DEEP) from None
        line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
        raise ProtocolError("bad_json", Msg(
            "the message is not valid JSON (line {line}, column {column})", line=line,
            column=column) if line is not None else Msg("the message is not valid JSON: it "
                                                       "is not UTF-8")) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", Msg("a message must be a JSON object with a 'type'"))
    request_id = data.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    if _openers(text) > MAX_DEPTH and _nests_deeper(data, MAX_DEPTH):
        raise ProtocolError("bad_json", TOO_DEEP, request_id)
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type",
            Msg("unknown message type {kind!r}; expected one of: {types}", kind=kind,
                types=', '.join(CLIENT_TYPES)),
            request_id)
    try:
        return client_adapter.validate_python(data)
    except ValidationError as exc:
        field, words = fields.refusal(exc.errors()[0])
        raise ProtocolError("invalid_field", words, request_id, field=field) from None


def _openers(text: str | bytes) -> int:
    """How many arrays and objects a frame could open at most (a bound on its depth, in C:
    almost every message has a few and is not walked)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``value`` (level 1), walked
    without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (dict, list)))
    return False

"""The WebSocket protocol: every message a client may send and every message it gets.

One source of truth (STYLE.md): these pydantic models define the protocol;
``trickroom schema`` writes their JSON Schema and ``docs/protocol.md`` is
checked against them by the tests.

Every message is a JSON object with a ``type``. A client request may carry an
``id`` (string or integer); the reply to it echoes the id. Table events carry
the table's sequence number ``seq``; a client that reconnects sends the last
``seq`` it saw and gets what it missed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from trickroom.server.names import NAME_RULE

RequestId = str | int | None


def dumps(data: Any) -> bytes:
    """A message built straight from wire dicts (events, prompts, snapshots) as sent:
    compact UTF-8 JSON, as pydantic's own ``model_dump_json`` writes it. orjson, because
    every action encodes a prompt of about 2 KB and an event per audience on the event
    loop: the standard library's encoder took a fifth of the table machine's time."""
    return orjson.dumps(data)


Name = Annotated[str, Field(min_length=1, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]
TableId = Annotated[str, Field(min_length=1, max_length=40)]
Card = Annotated[str, Field(pattern=r"^[2-9TJQKA][CDHS]$")]
SeatNo = Annotated[int, Field(ge=0, le=3)]
WHY_LENGTH = 160  # a robot's reason for its bid, one line

# Error codes a client can act on (DESIGN section 8).
ERROR_CODES = (
    "bad_json",
    "unknown_type",
    "invalid_field",
    "not_your_turn",
    "wrong_phase",
    "illegal_action",
    "rate_limited",
    "not_authorized",
    "not_found",
    "no_such_table",
    "table_full",
    "seat_taken",
    "name_taken",
    "bad_credentials",
    "too_long",
    "not_seated",
    "not_eligible",
    "confirm_required",
    "unavailable",
    "internal",
)


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: RequestId = None


# -- accounts -------------------------------------------------------------------------


class Register(Request):
    """Create an account and log in; names are 1-24 letters, digits, '_' or '-'."""

    type: Literal["register"]
    name: Name
    password: Annotated[str, Field(min_length=6, max_length=200)]


class Login(Request):
    type: Literal["login"]
    name: Name
    password: Annotated[str, Field(max_length=200)]


class Guest(Request):
    """Play casual tables without an account; the server picks a free guest name."""

    type: Literal["guest"]
    name: Name | None = None


class Resume(Request):
    """Log back in with a session token from an earlier ``welcome``."""

    type: Literal["resume"]
    token: Annotated[str, Field(min_length=10, max_length=100)]


# -- the lobby --------------------------------------------------------------------------


class ListRooms(Request):
    type: Literal["list_rooms"]


class ListTables(Request):
    """Subscribe to a room: the reply lists its tables and later changes are pushed."""

    type: Literal["list_tables"]
    room: Name


class CreateTable(Request):
    type: Literal["create_table"]
    room: Name
    rules: dict[str, Any] = Field(default_factory=dict)
    seating: Literal["random_seating", "fixed_seating"] = "fixed_seating"


class Sit(Request):
    """Take a seat (0..3) at a table, or any free seat when ``seat`` is omitted."""

    type: Literal["sit"]
    table: TableId
    seat: Annotated[int, Field(ge=0, le=3)] | None = None


class Stand(Request):
    """Leave one's seat (before the game starts; during a game it is leaving the table)."""

    type: Literal["stand"]
    table: TableId


class Watch(Request):
    type: Literal["watch"]
    table: TableId


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


class PlayAgain(Request):
    """After game over: the same seats play a new game once every human has asked."""

    type: Literal["play_again"]
    table: TableId


# -- at the table ---------------------------------------------------------------------------


class Act(Request):
    """A game action: ``{"type": "play", "card": "QS"}``, ``{"type": "bid", "value": 4}``, ..."""

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
    """Player settings. Turning "rank me" off bans ranked play for a week and resets
    ratings, so it needs ``confirm: true``."""

    type: Literal["settings"]
    rank_me: bool
    confirm: bool = False


ClientMessage = Annotated[
    Register | Login | Guest | Resume | ListRooms | ListTables | CreateTable | Sit | Stand
    | Watch | Unwatch | FillRobots | Start | PlayAgain | Act | Rejoin | Chat | Ignore | Ping | Queue
    | Unqueue | CastVote | Settings,
    Field(discriminator="type"),
]
CLIENT_TYPES = tuple(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in (Register, Login, Guest, Resume, ListRooms, ListTables, CreateTable, Sit, Stand,
              Watch, Unwatch, FillRobots, Start, PlayAgain, Act, Rejoin, Chat, Ignore, Ping, Queue,
              Unqueue, CastVote, Settings)
)
client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# -- server to client ---------------------------------------------------------------------------


def _type_required(schema: dict[str, Any]) -> None:
    """Every message says its ``type``: the schema says so too (it has a default here)."""
    required = schema.setdefault("required", [])
    if "type" in schema.get("properties", {}) and "type" not in required:
        required.insert(0, "type")


class ServerMessage(BaseModel):
    """Base of what the server sends; unknown fields are an error, so the docs stay exact."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_type_required)

    def encode(self) -> str:
        """The message as sent: JSON text, every field present (null when empty)."""
        return self.model_dump_json()


class Reply(ServerMessage):
    id: RequestId = None


class Error(Reply):
    type: Literal["error"] = "error"
    code: str
    message: str
    retry_after: float | None = None  # rate_limited: seconds until a retry can succeed


class Welcome(Reply):
    """Logged in: the session token to resume with, and whether this is a guest."""

    type: Literal["welcome"] = "welcome"
    name: str
    guest: bool
    session: str


class Ok(Reply):
    type: Literal["ok"] = "ok"


class RoomInfo(ServerMessage):
    name: str
    game: str
    rated: bool
    system: str | None
    rules: dict[str, Any]
    tables: int


class Rooms(Reply):
    type: Literal["rooms"] = "rooms"
    rooms: list[RoomInfo]


class SeatInfo(ServerMessage):
    """A seat as the lobby and the table show it; ``robot_level`` when a robot plays it (a
    robot's seat, or a player's while they are away)."""

    seat: int
    name: str | None
    kind: Literal["empty", "human", "robot"]
    away: bool = False
    robot_level: Literal["random", "heuristic", "search"] | None = None


class TableInfo(ServerMessage):
    id: str
    room: str
    game: str
    state: Literal["waiting", "playing", "over", "closed"]
    seating: str
    seats: list[SeatInfo]
    watchers: int
    game_id: str | None = None  # the game being (or last) played, for its review
    # Ranked rooms, while a game is playing or over: each side's chance of winning it as the
    # room's rating system saw the players' ratings when it started (Spades: North-South,
    # East-West; Hearts: per seat). Null at casual tables and between games.
    chances: list[float] | None = None


class Tables(Reply):
    """A room's open tables: at most the server's ``tables_listed`` of them, those waiting
    for players first, then those playing, then finished ones; ``total`` counts them all."""

    type: Literal["tables"] = "tables"
    room: str
    tables: list[TableInfo]
    total: int


class TableUpdate(ServerMessage):
    """Pushed to a room's subscribers when one of its tables changes."""

    type: Literal["table_update"] = "table_update"
    table: TableInfo
    removed: bool = False


class TableCreated(Reply):
    type: Literal["table_created"] = "table_created"
    table: TableInfo


class Seated(Reply):
    """You sit at ``seat``; keep ``seat_token`` secret: with your login it reclaims the seat
    after a drop (it is refused for anyone else)."""

    type: Literal["seated"] = "seated"
    table: str
    seat: int
    seat_token: str


class TakenOver(ServerMessage):
    """Your seat is played from another connection now: the same account sent ``rejoin``
    with the seat's token there. This connection stays at the table as a watcher."""

    type: Literal["taken_over"] = "taken_over"
    table: str
    seat: int
    message: str


class TrickCard(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: SeatNo
    card: Card


class TrickDone(BaseModel):
    """A finished trick of this hand, as its ``trick_won`` event gave it."""

    model_config = ConfigDict(extra="forbid")
    seat: SeatNo
    trick: int
    leader: SeatNo
    cards: list[Card]
    points: int
    scoring: list[Card]  # Hearts: the cards in it that score


class IllegalCard(BaseModel):
    """A card of your hand you may not play now, and why, in a sentence for the player
    (``"Follow suit: clubs were led."``): the engine's own rule, so a client needs none."""

    model_config = ConfigDict(extra="forbid")
    card: Card
    reason: str


class ViewBase(BaseModel):
    """A seat's view of the game (``seat`` null: a spectator's, with no hand). Cards are
    text; ``rules`` are the table's, every field filled in; ``legal`` is what this seat
    may do now (empty when it is not its turn, and during a Hearts pass); ``illegal``, on
    this seat's turn to play a card, every other card of its hand with why it may not be
    played (empty otherwise)."""

    model_config = ConfigDict(extra="forbid")
    seat: SeatNo | None
    phase: Literal["pass", "bid", "play", "moon", "hand_over", "game_over"]
    rules: dict[str, Any]
    hand_no: int
    dealer: SeatNo
    to_act: SeatNo | None
    awaiting: list[SeatNo]
    hand: list[Card]
    hand_sizes: list[int]
    leader: SeatNo | None
    trick: list[TrickCard]
    tricks: list[TrickDone]
    tricks_won: list[int]
    scores: list[int]
    hand_results: list[dict[str, Any]]  # each as its hand_scored event, less type/hand/scores
    legal: list[GameAction]
    illegal: list[IllegalCard] = Field(default_factory=list)


class SpadesViewWire(ViewBase):
    game: Literal["spades"]
    bids: list[int | None]
    blind: list[bool]
    bags: list[int]
    spades_broken: bool
    sees_hand: bool  # False while this seat may still bid blind nil and has not looked


class HeartsViewWire(ViewBase):
    game: Literal["hearts"]
    pass_direction: Literal["left", "right", "across", "hold"]
    passed: list[Card]
    received: list[Card]
    pass_chosen: list[bool]  # per seat: has it chosen its pass
    points_taken: list[int]
    hearts_broken: bool


GameView = Annotated[SpadesViewWire | HeartsViewWire, Field(discriminator="game")]


class VoteInfo(BaseModel):
    """An open vote, as its ``vote_started`` event put it, with the choices ``cast`` so far
    (by seat number, as text)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["vote_started"] = "vote_started"
    vote: str
    kind: Literal["wait", "invite_robot"]
    seat: SeatNo
    player: str | None
    seconds: float
    voters: list[SeatNo]
    choices: list[str]
    cast: dict[str, str]


class Snapshot(Reply):
    """The whole table as this client may see it, at ``seq``."""

    type: Literal["snapshot"] = "snapshot"
    table: str
    seq: int
    info: TableInfo
    view: GameView | None
    paused: str | None = None  # why the game waits (ranked votes), if it does
    vote: VoteInfo | None = None  # the open vote

    @classmethod
    def of(cls, rid: RequestId, table: str, seq: int, info: TableInfo,
           view: dict[str, Any] | None, paused: str | None,
           vote: dict[str, Any] | None) -> Snapshot:
        """A snapshot from the engine's view dict as it is (not re-validated: the tests
        check every message sent against the schema)."""
        return cls.model_construct(id=rid, table=table, seq=seq, info=info, view=view,
                                   paused=paused, vote=vote)

    def encode(self) -> str:
        return dumps({"type": "snapshot", "id": self.id, "table": self.table,
                      "seq": self.seq, "info": self.info.model_dump(), "view": self.view,
                      "paused": self.paused, "vote": self.vote}).decode()


class TurnInfo(BaseModel):
    """Whose turn it is once the action behind a game event is wholly applied: the game's
    ``phase`` and ``to_act`` as a view gives them (during a Hearts pass, the lowest seat
    still choosing), and ``awaiting``, every seat the game waits on (all those still
    choosing their pass; otherwise ``to_act`` alone, or none)."""

    model_config = ConfigDict(extra="forbid")
    phase: Literal["pass", "bid", "play", "moon", "hand_over", "game_over"]
    to_act: SeatNo | None
    awaiting: list[SeatNo]


class TableEvent(ServerMessage):
    """One numbered table event (a game event or a seat change). A game event carries
    ``turn``: the same for every event of one action and for every audience."""

    type: Literal["event"] = "event"
    table: str
    seq: int
    event: AnyEvent
    turn: TurnInfo | None = None

    @staticmethod
    def wire(table: str, seq: int, event: dict[str, Any],
             turn: dict[str, Any] | None = None) -> bytes:
        """The message as sent, from an event's wire dict as the engine or the table made
        it (not re-validated here: the tests check every message sent against the schema).
        A table's own event has no ``turn`` and is sent without one."""
        if turn is None:
            return dumps({"type": "event", "table": table, "seq": seq, "event": event})
        return dumps({"type": "event", "table": table, "seq": seq, "event": event,
                      "turn": turn})


class Skip(ServerMessage):
    """Event ``seq`` of this table is one you may not see (another seat's cards): it is
    numbered all the same, so a gap in the numbers always means a lost message."""

    type: Literal["skip"] = "skip"
    table: str
    seq: int


class BidAction(ServerMessage):
    """A Spades bid, 0 for nil; ``"blind": true`` for blind nil."""

    type: Literal["bid"] = "bid"
    value: Annotated[int, Field(ge=0, le=13)]
    blind: bool | None = None


class LookAction(ServerMessage):
    """Spades: look at your cards instead of bidding blind nil."""

    type: Literal["look"] = "look"


class PlayAction(ServerMessage):
    type: Literal["play"] = "play"
    card: Card


class PassAction(ServerMessage):
    """Hearts: the cards to pass (``pass_count`` of your hand)."""

    type: Literal["pass"] = "pass"
    cards: list[Card]


class MoonAction(ServerMessage):
    """Hearts: having shot the moon, add 26 to the others or take 26 off your own score."""

    type: Literal["moon"] = "moon"
    choice: Literal["add", "subtract"]


GameAction = Annotated[BidAction | LookAction | PlayAction | PassAction | MoonAction,
                       Field(discriminator="type")]


class Prompt(ServerMessage):
    """Your turn: the legal actions, so a bot needs no rules engine, and the time allowed.
    (A Hearts pass lists none: choose ``pass_count`` cards of ``hand``.) On a turn to play a
    card, ``illegal`` gives every other card of ``hand`` with why it may not be played."""

    type: Literal["prompt"] = "prompt"
    table: str
    seq: int
    seat: int
    phase: str
    legal: list[GameAction]
    seconds: float | None
    hand: list[str]  # the seat's cards now (empty before a blind-nil decision)
    view: GameView  # the seat's whole view, as in a snapshot
    pass_count: int | None = None  # Hearts pass: how many cards to choose
    illegal: list[IllegalCard] = Field(default_factory=list)  # play phase: cards refused, why

    @staticmethod
    def wire(table: str, seq: int, seat: int, phase: str, legal: list[dict[str, Any]],
             seconds: float | None, hand: list[str], view: dict[str, Any],
             pass_count: int | None, illegal: list[dict[str, str]]) -> bytes:
        """The message as sent, from the view's own wire dicts (checked by the tests)."""
        return dumps({"type": "prompt", "table": table, "seq": seq, "seat": seat,
                      "phase": phase, "legal": legal, "seconds": seconds, "hand": hand,
                      "view": view, "pass_count": pass_count, "illegal": illegal})


class ChatMessage(ServerMessage):
    """A chat line, with either the ``table`` or the ``room`` it was said in."""

    type: Literal["chat"] = "chat"
    name: str
    text: str
    table: str | None = None
    room: str | None = None

    def encode(self) -> str:
        return self.model_dump_json(exclude_none=True)


class Pong(Reply):
    type: Literal["pong"] = "pong"


class QueueStatus(Reply):
    """Where you stand in a random queue; ``expected_wait`` in seconds, when it can be told."""

    type: Literal["queue_status"] = "queue_status"
    room: str
    queued: bool
    length: int
    expected_wait: float | None


class SettingsSaved(Reply):
    type: Literal["settings"] = "settings"
    rank_me: bool
    banned_until: float | None  # a Unix time, as /api/players gives it


# -- what a table says (inside an ``event``) -------------------------------------------------
# The game's own events (bid, played, trick_won, ...) come from the engine (game/events.py);
# these are the table's: seats, votes, quits, the game's start and end, the table closing.


class TableChanged(ServerMessage):
    """Seats changed (someone sat, left, dropped, came back; a robot took a seat)."""

    type: Literal["table"] = "table"
    info: TableInfo


class GameStarted(ServerMessage):
    """A game starts: its id and rules. In a ranked room, ``system`` names the room's rating
    system and ``chances`` each side's chance of winning by it, from the players' ratings
    now (Spades: North-South then East-West; Hearts: per seat); both null in casual rooms."""

    type: Literal["game_started"] = "game_started"
    game_id: str
    rules: dict[str, Any]
    system: str | None = None
    chances: list[float] | None = None


class GameOver(ServerMessage):
    """The game is over: final scores, the winning seats, and each player's rating change
    with how it was calculated (empty in casual rooms). ``abandoned``: ended early on the
    score so far (a points room after a drop). ``chances``: the sides' chances of winning
    as ``game_started`` gave them (ranked rooms; null in casual ones)."""

    type: Literal["game_over"] = "game_over"
    scores: list[int]
    winners: list[int]
    ratings: list[dict[str, Any]] = Field(default_factory=list)
    abandoned: bool = False
    chances: list[float] | None = None


class Substituted(ServerMessage):
    """A human took a quitter's seat, unrated (WoCG rooms)."""

    type: Literal["substitute"] = "substitute"
    seat: int
    name: str


class Quit(ServerMessage):
    """A player left a ranked game (WoCG rooms: rated at once, banned until ``banned_until``)."""

    type: Literal["quit"] = "quit"
    seat: int
    player: str | None
    rating: dict[str, Any] | None = None
    banned_until: float | None = None  # a Unix time


class Resumed(ServerMessage):
    """A paused game goes on (the player it waited for is back, or a robot took the seat)."""

    type: Literal["resumed"] = "resumed"
    seat: int


class VoteStarted(ServerMessage):
    type: Literal["vote_started"] = "vote_started"
    vote: str
    kind: Literal["wait", "invite_robot"]
    seat: int
    player: str | None
    seconds: float
    voters: list[int]
    choices: list[str]


class VoteCast(ServerMessage):
    type: Literal["vote_cast"] = "vote_cast"
    vote: str
    seat: int
    choice: str


class VoteResult(ServerMessage):
    type: Literal["vote_result"] = "vote_result"
    vote: str
    kind: Literal["wait", "invite_robot"]
    seat: int
    outcome: Literal["wait", "dont_wait", "returned", "robot", "no"]


class TableClosed(ServerMessage):
    """The table's last event: it closed (``reason`` says why) and leaves the lobby."""

    type: Literal["closed"] = "closed"
    reason: str


# -- the games' own events (game/events.py), as they are sent ---------------------------------



class HandStartedEvent(ServerMessage):
    """A hand is dealt; Hearts says which way it passes (``hold``: no pass)."""

    type: Literal["hand_started"] = "hand_started"
    hand: int
    dealer: SeatNo
    pass_direction: Literal["left", "right", "across", "hold"] | None = None

    def encode(self) -> str:
        return self.model_dump_json(exclude_none=True)


class DealtEvent(ServerMessage):
    """Your cards (only you get it; the others get a ``skip``). In Spades a seat that may
    bid blind nil gets it only after it looks or bids."""

    type: Literal["dealt"] = "dealt"
    seat: SeatNo
    cards: list[Card]


class LookedEvent(ServerMessage):
    """A seat that could have bid blind nil looked at its cards instead."""

    type: Literal["looked"] = "looked"
    seat: SeatNo


class BidEvent(ServerMessage):
    """A Spades bid: 0 is nil; ``blind`` is present (true) for blind nil; ``why`` is
    present when a robot bid: its reason in one line, which names no card."""

    type: Literal["bid"] = "bid"
    seat: SeatNo
    value: Annotated[int, Field(ge=0, le=13)]
    blind: bool | None = None
    why: Annotated[str, Field(max_length=WHY_LENGTH)] | None = None

    def encode(self) -> str:
        return self.model_dump_json(exclude_none=True)


class PassChosenEvent(ServerMessage):
    """A Hearts seat has chosen its pass (which cards: only that seat's ``passed``)."""

    type: Literal["pass_chosen"] = "pass_chosen"
    seat: SeatNo


class PassedEvent(ServerMessage):
    """The cards you passed, and to whom (only you)."""

    type: Literal["passed"] = "passed"
    seat: SeatNo
    cards: list[Card]
    to_seat: SeatNo


class ReceivedEvent(ServerMessage):
    """The cards passed to you, and from whom (only you)."""

    type: Literal["received"] = "received"
    seat: SeatNo
    cards: list[Card]
    from_seat: SeatNo


class PlayedEvent(ServerMessage):
    type: Literal["played"] = "played"
    seat: SeatNo
    card: Card


class TrickWonEvent(ServerMessage):
    """``trick`` is 0..12 in the hand; ``cards`` in play order from ``leader``; ``points``:
    the Hearts points in it (0 in Spades)."""

    type: Literal["trick_won"] = "trick_won"
    seat: SeatNo
    trick: Annotated[int, Field(ge=0, le=12)]
    leader: SeatNo
    cards: list[Card]
    points: int
    scoring: list[Card]  # Hearts: the cards in it that score (hearts, Q♠, J♦ where it counts)


class SideScoreWire(BaseModel):
    """One Spades partnership's hand, term by term (side 0: North-South)."""

    model_config = ConfigDict(extra="forbid")
    side: Literal[0, 1]
    contract: int
    tricks: int
    made: bool | None
    contract_points: int
    bags: int
    nil_points: int
    bag_penalty: int
    points: int
    score: int
    bags_total: int


class HandScoredEvent(ServerMessage):
    """A hand's score. Spades: ``bids``, ``blind``, ``tricks_won`` and two ``sides``;
    Hearts: ``pass_direction``, ``taken`` (points taken), ``moon`` (the shooter's seat or
    null), ``moon_choice`` and ``points`` (scored this hand). ``scores``: running totals
    (per side in Spades, per seat in Hearts)."""

    type: Literal["hand_scored"] = "hand_scored"
    hand: int
    dealer: SeatNo
    scores: list[int]
    bids: list[int] | None = None
    blind: list[bool] | None = None
    tricks_won: list[int] | None = None
    sides: list[SideScoreWire] | None = None
    pass_direction: Literal["left", "right", "across", "hold"] | None = None
    taken: list[int] | None = None
    moon: SeatNo | None = None
    moon_choice: str | None = None
    points: list[int] | None = None


class MoonPendingEvent(ServerMessage):
    """Hearts with ``moon = "shooter_chooses"``: ``seat`` shot the moon and is prompted to
    choose (``add_to_others`` or ``subtract_from_shooter``)."""

    type: Literal["moon_pending"] = "moon_pending"
    seat: SeatNo


GAME_EVENT_MODELS: tuple[type[ServerMessage], ...] = (
    HandStartedEvent, DealtEvent, LookedEvent, BidEvent, PassChosenEvent, PassedEvent,
    ReceivedEvent, PlayedEvent, TrickWonEvent, HandScoredEvent, MoonPendingEvent,
)
"""The engines' events (``game_over`` is the table's :class:`GameOver`, with ratings)."""


TABLE_EVENT_MODELS: tuple[type[ServerMessage], ...] = (
    TableChanged, GameStarted, GameOver, Substituted, Quit, Resumed, VoteStarted, VoteCast,
    VoteResult, TableClosed,
)


AnyEvent = Annotated[
    TableChanged | GameStarted | GameOver | Substituted | Quit | Resumed | VoteStarted
    | VoteCast | VoteResult | TableClosed | HandStartedEvent | DealtEvent | LookedEvent
    | BidEvent | PassChosenEvent | PassedEvent | ReceivedEvent | PlayedEvent | TrickWonEvent
    | HandScoredEvent | MoonPendingEvent,
    Field(discriminator="type")]
"""A table event: the table's own, or its game's."""

TableEvent.model_rebuild()
Prompt.model_rebuild()
SpadesViewWire.model_rebuild()
HeartsViewWire.model_rebuild()
Snapshot.model_rebuild()

SERVER_MODELS: tuple[type[BaseModel], ...] = (
    Error, Welcome, Ok, Rooms, Tables, TableUpdate, TableCreated, Seated, Snapshot, TableEvent,
    Prompt, ChatMessage, Pong, QueueStatus, SettingsSaved, TakenOver, Skip,
)


class ProtocolError(Exception):
    """A message that cannot be accepted, with the wire error code and a message for people."""

    def __init__(self, code: str, message: str, request_id: RequestId = None,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after

    def to_model(self) -> Error:
        return Error(id=self.request_id, code=self.code, message=self.message,
                     retry_after=self.retry_after)


AnyServerMessage = Annotated[
    Error | Welcome | Ok | Rooms | Tables | TableUpdate | TableCreated | Seated | Snapshot
    | TableEvent | Skip | Prompt | ChatMessage | Pong | QueueStatus | SettingsSaved | TakenOver,
    Field(discriminator="type")]
server_adapter: TypeAdapter[Any] = TypeAdapter(AnyServerMessage)
"""Every message the server sends, told apart by ``type`` (tests validate traffic with it)."""


def parse_client_message(text: str | bytes) -> ClientMessage:
    """Parse one frame into a request, or raise :class:`ProtocolError` naming the problem."""
    try:
        data = orjson.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError("bad_json", f"the message is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_json", "a message must be a JSON object with a 'type'")
    request_id = data.get("id")
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {kind!r}; expected one of: {', '.join(CLIENT_TYPES)}",
            request_id)
    try:
        return client_adapter.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        why = first["msg"]
        if first["type"] == "string_pattern_mismatch" and where == "name":
            why = NAME_RULE
        raise ProtocolError("invalid_field", f"field {where!r}: {why}",
                            request_id) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, for ``trickroom schema`` and the docs."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "trickroom WebSocket protocol",
        "client_to_server": client_adapter.json_schema(),
        "server_to_client": server_adapter.json_schema(),
        "table_events": {m.__name__: m.model_json_schema() for m in TABLE_EVENT_MODELS},
        "game_events": {m.__name__: m.model_json_schema() for m in GAME_EVENT_MODELS},
    }

"""What a table says, inside an ``event``: its own events and its game's, as they are sent."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trickroom.server.protocol.base import WHY_LENGTH, Card, SeatNo, ServerMessage
from trickroom.server.protocol.lobby import TableInfo

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


class Removed(ServerMessage):
    """The opener of a private table removed the player at ``seat`` (before a game): they
    are no longer at the table, and its invite lets them in no more."""

    type: Literal["removed"] = "removed"
    seat: int
    name: str


class TimedOut(ServerMessage):
    """Told to the seat alone: its turn's time ran out, and a robot played it (the action
    follows, as every action does). The seat's player still sits: the next turn is theirs."""

    type: Literal["timed_out"] = "timed_out"
    seat: int


class DuplicateMargin(ServerMessage):
    """A player's result in a duplicate match: their seat in each game, their margin on
    each deal (points against the field with the same cards, more is better) and in all."""

    name: str
    seats: list[int]
    deals: list[float]
    total: float


class DuplicateResult(ServerMessage):
    """A duplicate match at a sandbox table is over (its last game ended): each deal
    played in every game, scored against the other games with the same cards. ``hands``:
    per game, per deal, each seat's points (Spades: its side's; Hearts: minus its own)."""

    type: Literal["duplicate_result"] = "duplicate_result"
    games: int
    deals: int
    hands: list[list[list[int]]]
    players: list[DuplicateMargin]


class BoardTable(ServerMessage):
    """One table's play of a deal of a board set, in the seats of the table told: who held
    each of its seats' cards there, what they scored with them (Spades: the side's points
    for the hand; Hearts: the seat's points, fewer being better) and the tricks they
    took."""

    players: list[str]
    points: list[int]
    tricks: list[int]


class BoardDeal(ServerMessage):
    """A duplicate room: every table of the board set has now played deal ``deal`` (0 for
    the first hand), so the table is told how the same cards went at the others
    (``field``), beside its own play (``here``). ``margins``: each seat's points here
    minus the mean of the field's on the same cards, more being better (Hearts' points
    turned round). Sent only once every table has played the deal."""

    type: Literal["board_deal"] = "board_deal"
    board_set: str
    deal: int
    here: BoardTable
    field: list[BoardTable]
    margins: list[float]


class BoardMargin(ServerMessage):
    """A player's result over a complete board set: their margin on each deal compared
    (points against the field with the same cards, more is better) and in all."""

    name: str
    deals: list[float]
    total: float


class BoardResult(ServerMessage):
    """A duplicate room's board set is complete (every table's game ended): each player of
    the table's margins against the field, over the deals every table reached, and in a
    ranked room their duplicate rating changes (``ratings``, as ``game_over``'s)."""

    type: Literal["board_result"] = "board_result"
    board_set: str
    tables: int
    deals: int
    players: list[BoardMargin]
    ratings: list[dict[str, Any]] = Field(default_factory=list)


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
    present when a robot bid: in one line, how it chose the bid, which names no card and
    tells no fact of its hand (its whole reason waits for the review of the game)."""

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
    TableChanged, GameStarted, GameOver, Substituted, Removed, TimedOut, DuplicateResult,
    BoardDeal, BoardResult, Quit, Resumed, VoteStarted, VoteCast, VoteResult, TableClosed,
)


AnyEvent = Annotated[
    TableChanged | GameStarted | GameOver | Substituted | Removed | TimedOut | DuplicateResult
    | BoardDeal | BoardResult | Quit | Resumed | VoteStarted | VoteCast | VoteResult
    | TableClosed | HandStartedEvent | DealtEvent | LookedEvent | BidEvent | PassChosenEvent
    | PassedEvent | ReceivedEvent
    | PlayedEvent | TrickWonEvent | HandScoredEvent | MoonPendingEvent,
    Field(discriminator="type")]
"""A table event: the table's own, or its game's."""

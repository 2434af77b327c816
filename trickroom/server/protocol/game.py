"""What the server sends about the game itself: a seat's view, its snapshot, its turn's
prompt with the legal actions, and the numbered events."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from trickroom.game.variants import HEARTS_BOUNDS
from trickroom.server.protocol.base import (
    Card,
    Reply,
    RequestId,
    SeatNo,
    ServerMessage,
    dumps,
    type_required,
)
from trickroom.server.protocol.events import AnyEvent, GameOver
from trickroom.server.protocol.lobby import TableInfo


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
    # A finished game's ``game_over`` event as it was told (its rating changes and their
    # breakdowns): a player back after the end reads what the end said.
    over: GameOver | None = None

    @classmethod
    def of(cls, rid: RequestId, table: str, seq: int, info: TableInfo,
           view: dict[str, Any] | None, paused: str | None,
           vote: dict[str, Any] | None, over: dict[str, Any] | None = None) -> Snapshot:
        """A snapshot from the engine's view dict as it is (not re-validated: the tests
        check every message sent against the schema)."""
        return cls.model_construct(id=rid, table=table, seq=seq, info=info, view=view,
                                   paused=paused, vote=vote, over=over)

    def encode(self) -> str:
        return dumps({"type": "snapshot", "id": self.id, "table": self.table,
                      "seq": self.seq, "info": self.info.model_dump(), "view": self.view,
                      "paused": self.paused, "vote": self.vote, "over": self.over}).decode()


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


def _blind_is_nil(schema: dict[str, Any]) -> None:
    """A blind bid is nil: ``"blind": true`` only with value 0 (as the server reads it)."""
    type_required(schema)
    schema["if"] = {"properties": {"blind": {"const": True}}, "required": ["blind"]}
    schema["then"] = {"properties": {"value": {"const": 0}}}


class BidAction(ServerMessage):
    """A Spades bid, 0 for nil; ``"blind": true`` for blind nil."""

    model_config = ConfigDict(json_schema_extra=_blind_is_nil)
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
    cards: Annotated[list[Card], Field(min_length=HEARTS_BOUNDS["pass_count"][0],
                                       max_length=HEARTS_BOUNDS["pass_count"][1])]


class MoonAction(ServerMessage):
    """Hearts: having shot the moon, add 26 to the others or take 26 off your own score."""

    type: Literal["moon"] = "moon"
    choice: Literal["add", "subtract"]


GameAction = Annotated[BidAction | LookAction | PlayAction | PassAction | MoonAction,
                       Field(discriminator="type")]


class SpadesAction(RootModel[Annotated[BidAction | LookAction | PlayAction,
                                       Field(discriminator="type")]]):
    """What ``act`` may carry at a Spades table: a bid (0 to 13, 0 for nil; ``"blind":
    true`` with 0 for blind nil), ``look``, or a card to ``play``."""


class HeartsAction(RootModel[Annotated[PassAction | PlayAction | MoonAction,
                                       Field(discriminator="type")]]):
    """What ``act`` may carry at a Hearts table: the cards to ``pass``, a card to
    ``play``, or a ``moon`` choice (``add`` or ``subtract``)."""


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
    # When the turn ends (a Unix time, by the server's clock; then a robot plays it, and
    # the seat hears ``timed_out``), and the server's clock as it sent this: a client whose
    # clock differs counts ``deadline - now`` from its own receipt. ``seconds`` is that
    # time left (a turn prompted again, after a rejoin, has less than it had).
    deadline: float | None = None
    now: float | None = None

    @staticmethod
    def wire(table: str, seq: int, seat: int, phase: str, legal: list[dict[str, Any]],
             seconds: float | None, hand: list[str], view: dict[str, Any],
             pass_count: int | None, illegal: list[dict[str, str]],
             deadline: float | None = None, now: float | None = None) -> bytes:
        """The message as sent, from the view's own wire dicts (checked by the tests)."""
        return dumps({"type": "prompt", "table": table, "seq": seq, "seat": seat,
                      "phase": phase, "legal": legal, "seconds": seconds, "hand": hand,
                      "view": view, "pass_count": pass_count, "illegal": illegal,
                      "deadline": deadline, "now": now})


TableEvent.model_rebuild()
Prompt.model_rebuild()
SpadesViewWire.model_rebuild()
HeartsViewWire.model_rebuild()
Snapshot.model_rebuild()

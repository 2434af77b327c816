"""Every message the server sends, as one adapter and one JSON Schema (``trickroom schema``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter

from trickroom.server.protocol.base import Error, Moved, TableId
from trickroom.server.protocol.events import (
    GAME_EVENT_MODELS,
    TABLE_EVENT_MODELS,
)
from trickroom.server.protocol.game import (
    HeartsAction,
    Prompt,
    Skip,
    Snapshot,
    SpadesAction,
    TableEvent,
)
from trickroom.server.protocol.lobby import (
    AnalysisStatus,
    Challenged,
    ChallengeOver,
    ChallengeSent,
    ChatMessage,
    EventsReply,
    Friends,
    GameFinish,
    GameStart,
    Invited,
    Ok,
    Pong,
    PresenceUpdate,
    QueueStatus,
    Rooms,
    Seated,
    SessionList,
    SettingsSaved,
    SignedOut,
    Slowed,
    TableCreated,
    Tables,
    TableUpdate,
    TakenOver,
    Welcome,
)
from trickroom.server.protocol.requests import CLIENT_MODELS, Request
from trickroom.server.protocol.requests import Act as ServerAct

SERVER_MODELS: tuple[type[BaseModel], ...] = (
    Error, Welcome, Ok, Rooms, Tables, TableUpdate, TableCreated, Seated, Snapshot, TableEvent,
    Prompt, ChatMessage, Pong, QueueStatus, SettingsSaved, TakenOver, Skip, Moved,
    SignedOut, SessionList, Invited, Friends, PresenceUpdate, ChallengeSent, Challenged,
    ChallengeOver, Slowed, EventsReply, GameStart, GameFinish, AnalysisStatus,
)


AnyServerMessage = Annotated[
    Error | Welcome | Ok | Rooms | Tables | TableUpdate | TableCreated | Seated | Snapshot
    | TableEvent | Skip | Prompt | ChatMessage | Pong | QueueStatus | SettingsSaved | TakenOver
    | Moved | SignedOut | SessionList | Invited | Friends | PresenceUpdate | ChallengeSent
    | Challenged | ChallengeOver | Slowed | EventsReply | GameStart | GameFinish
    | AnalysisStatus,
    Field(discriminator="type")]
server_adapter: TypeAdapter[Any] = TypeAdapter(AnyServerMessage)
"""Every message the server sends, told apart by ``type`` (tests validate traffic with it)."""



class Act(Request):
    """``act`` as the schema publishes it: ``action`` is one game's action
    (:class:`SpadesAction` or :class:`HeartsAction`), so that a strict validator catches a
    wrong one before it is sent (a moon choice no game has, a ``play`` without its card, a
    bid out of range). The server reads the request as
    :class:`~trickroom.server.protocol.requests.Act` (any object), and the engine refuses
    a wrong action naming the rule: what it accepts is the same."""

    type: Literal["act"]
    table: TableId
    action: SpadesAction | HeartsAction


# Every request as the schema publishes it: as the server reads them, act typed per game.
PUBLISHED_REQUEST: Any = Annotated[
    Union[tuple(Act if m is ServerAct else m for m in CLIENT_MODELS)],  # noqa: UP007
    Field(discriminator="type")]
published_adapter: TypeAdapter[Any] = TypeAdapter(PUBLISHED_REQUEST)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, for ``trickroom schema`` and the docs; and
    each game's actions alone (``actions``), for a bot that knows its game."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "trickroom WebSocket protocol",
        "client_to_server": published_adapter.json_schema(),
        "actions": {"spades": SpadesAction.model_json_schema(),
                    "hearts": HeartsAction.model_json_schema()},
        "server_to_client": server_adapter.json_schema(),
        "table_events": {m.__name__: m.model_json_schema() for m in TABLE_EVENT_MODELS},
        "game_events": {m.__name__: m.model_json_schema() for m in GAME_EVENT_MODELS},
    }

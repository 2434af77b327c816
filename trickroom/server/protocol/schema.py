"""Every message the server sends, as one adapter and one JSON Schema (``trickroom schema``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, TypeAdapter

from trickroom.server.protocol.base import Error, Moved
from trickroom.server.protocol.events import (
    GAME_EVENT_MODELS,
    TABLE_EVENT_MODELS,
)
from trickroom.server.protocol.game import (
    Prompt,
    Skip,
    Snapshot,
    TableEvent,
)
from trickroom.server.protocol.lobby import (
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
from trickroom.server.protocol.requests import client_adapter

SERVER_MODELS: tuple[type[BaseModel], ...] = (
    Error, Welcome, Ok, Rooms, Tables, TableUpdate, TableCreated, Seated, Snapshot, TableEvent,
    Prompt, ChatMessage, Pong, QueueStatus, SettingsSaved, TakenOver, Skip, Moved,
    SignedOut, SessionList, Invited, Friends, PresenceUpdate, ChallengeSent, Challenged,
    ChallengeOver, Slowed, EventsReply, GameStart, GameFinish,
)


AnyServerMessage = Annotated[
    Error | Welcome | Ok | Rooms | Tables | TableUpdate | TableCreated | Seated | Snapshot
    | TableEvent | Skip | Prompt | ChatMessage | Pong | QueueStatus | SettingsSaved | TakenOver
    | Moved | SignedOut | SessionList | Invited | Friends | PresenceUpdate | ChallengeSent
    | Challenged | ChallengeOver | Slowed | EventsReply | GameStart | GameFinish,
    Field(discriminator="type")]
server_adapter: TypeAdapter[Any] = TypeAdapter(AnyServerMessage)
"""Every message the server sends, told apart by ``type`` (tests validate traffic with it)."""


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

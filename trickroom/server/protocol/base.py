"""What every message of the protocol shares: its field types, the error codes, the base of
what the server sends, and the error a refused message raises."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from trickroom.i18n import Msg, Text
from trickroom.i18n.catalogs import render
from trickroom.server import names

RequestId = str | int | None
# A language a player may choose (trickroom/i18n): English, Greek, or the pseudo-locale
# (accented, longer English) that tests use.
Language = Literal["en", "el", "en-XA"]


def dumps(data: Any) -> bytes:
    """A message built straight from wire dicts (events, prompts, snapshots) as sent:
    compact UTF-8 JSON, as pydantic's own ``model_dump_json`` writes it. orjson, because
    every action encodes a prompt of about 2 KB and an event per audience on the event
    loop: the standard library's encoder took a fifth of the table machine's time."""
    return orjson.dumps(data)


def _composed(value: Any) -> Any:
    """A name in the form it is kept and compared in (NFC), before its length is counted."""
    return names.normal(value) if isinstance(value, str) else value


def _named(value: str) -> str:
    problem = names.name_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


# A player's (or a room's) name: server/names.py says what one may be.
# The protocol's version: 1 is the protocol as it stood on 2026-12-03; each release that
# changes what a client sends or gets moves it on, with its entry in docs/changelog.md.
PROTOCOL = 2
Name = Annotated[str, BeforeValidator(_composed), Field(
    min_length=1, max_length=names.MAX_NAME,
    description="1-24 letters (of one script), digits, '_' or '-', in Unicode NFC"),
    AfterValidator(_named)]
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
    "not_invited",
    "confirm_required",
    "unavailable",
    "too_many_analyses",
    "internal",
)


def type_required(schema: dict[str, Any]) -> None:
    """Every message says its ``type``: the schema says so too (it has a default here)."""
    required = schema.setdefault("required", [])
    if "type" in schema.get("properties", {}) and "type" not in required:
        required.insert(0, "type")


class ServerMessage(BaseModel):
    """Base of what the server sends; unknown fields are an error, so the docs stay exact."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=type_required)

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
    # The request's field the refusal is about ("name", "password"), when it is about one:
    # a client says the refusal in its own words by code and field.
    field: str | None = None


class ProtocolError(Exception):
    """A message that cannot be accepted, with the wire error code and a message for people."""

    def __init__(self, code: str, message: Text, request_id: RequestId = None,
                 retry_after: float | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id
        self.retry_after = retry_after
        self.field = field
        self.language: str | None = None  # its reader's, when not its connection's

    def to_model(self, language: str = "en") -> Reply:
        """The wire error, its message in ``language`` (its code is the same in all)."""
        return Error(id=self.request_id, code=self.code, message=render(self.message, language),
                     retry_after=self.retry_after, field=self.field)


class Moved(Reply):
    """The table is run by another node of the cluster: open a socket at ``url`` (relative
    to this socket's URL when it is a path), resume the session there, and send the
    request again. A player's socket lives on its table's node, so a move costs no hop."""

    type: Literal["moved"] = "moved"
    table: TableId
    url: str
    message: str


class TableMoved(ProtocolError):
    """A request for a table another node runs, answered with where to send it."""

    def __init__(self, table_id: str, url: str, request_id: RequestId = None) -> None:
        super().__init__("moved", Msg("table {table!r} is on another server: connect to "
                                      "{url} and send the request again", table=table_id,
                                      url=url), request_id)
        self.table_id = table_id
        self.url = url

    def to_model(self, language: str = "en") -> Reply:
        return Moved(id=self.request_id, table=self.table_id, url=self.url,
                     message=render(self.message, language))

"""What the server answers and pushes about accounts, rooms, tables and seats."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from trickroom.server.protocol.base import PROTOCOL, Language, Reply, ServerMessage


class Welcome(Reply):
    """Logged in: the session token to resume with, and whether this is a guest."""

    type: Literal["welcome"] = "welcome"
    name: str
    guest: bool
    session: str
    # A registered login's device token: keep it and send it with later logins of this
    # account (``login.device``); a stranger's wrong guesses then do not keep you out.
    device: str | None = None
    protocol: int = PROTOCOL  # the protocol version this server speaks (docs/changelog.md)
    bot: bool = False  # a BOT account (upgrade_to_bot)
    language: Language = "en"  # the language of this connection's texts (docs/protocol.md)


class Slowed(ServerMessage):
    """Sent once when a connection's messages start to come faster than the rate it may
    send (its own, or its address's): they are not dropped, they wait their turn (this
    one ``wait`` seconds). Sent again only after a message has come within the rate."""

    type: Literal["slowed"] = "slowed"
    wait: float
    message: str


class SignedOut(Reply):
    """Sessions ended (``logout_all``, ``change_password``): how many."""

    type: Literal["signed_out"] = "signed_out"
    sessions: int


class SessionInfo(ServerMessage):
    """One active session: when it was made and last used, and from where."""

    created: float
    last_used: float
    address: str | None
    current: bool  # the session of the connection that asked


class SessionList(Reply):
    type: Literal["sessions"] = "sessions"
    sessions: list[SessionInfo]


class Ok(Reply):
    type: Literal["ok"] = "ok"


class RoomInfo(ServerMessage):
    """A room; ``tables`` counts its open tables on every node. ``not_eligible`` (ranked
    rooms, in a ``rooms`` reply to a logged-in player): why this player may not sit at the
    room's tables, open one or join its queue, as a ``not_eligible`` refusal would say;
    null when they may (and in casual rooms, and for anyone not logged in)."""

    name: str
    game: str
    rated: bool
    system: str | None
    rules: dict[str, Any]
    tables: int
    not_eligible: str | None = None
    # "bots": a ranked room of the bot ladder, where BOT accounts alone sit.
    players: Literal["people", "bots"] = "people"
    # A duplicate room: each game's deals are a board set's, played at several tables and
    # scored against the field (``board_deal``, ``board_result``).
    duplicate: bool = False


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
    reserved_for: str | None = None  # a private table's seat kept for this player
    bot: bool = False  # a BOT account plays here (a program, marked as one)


class SandboxInfo(ServerMessage):
    """A sandbox table: every game dealt from one seed, its first ``deals`` hands as given.
    The seed is told to no one while games may be played on it (it is every hand's cards):
    a finished game's review has it. ``known_deals``: the opener chose the seed or the
    deals, so knows every hand (fair for a bot's own tests, not for a match with another);
    in duplicate matches, the games of the match now played (``match_played``, back to 0
    when a match ends) of its ``match_games``."""

    deals: int
    known_deals: bool
    duplicate: bool
    match_played: int
    match_games: int


class BoardInfo(ServerMessage):
    """A duplicate room's table: its game's board set, which of the set's ``tables`` this
    one is (``slot``, from 0: its seats hold the cards of the set's seats ``slot`` places
    on), and the deals this table has played (``played``) and been told the field of
    (``told``). Null while no game has started."""

    board_set: str
    slot: int
    tables: int
    played: int
    told: int


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
    # Whether spectators may chat to the players while a game with a human player is in
    # play (a table option, off unless its players turn it on).
    spectator_chat: bool = False
    # A private table: listed to no one, entered by its invite (see ``invite``); only
    # those at it are told of it.
    private: bool = False
    sandbox: SandboxInfo | None = None  # a sandbox table's fixed deals
    duplicate: bool = False  # a duplicate room's table (its games are board sets)
    board: BoardInfo | None = None  # its board set, once a game has started


class Tables(Reply):
    """A room's open tables: at most the server's ``tables_listed`` of them, those waiting
    for players first, then those playing, then finished ones, and after them the asker's
    own tables of the room past that cut; ``total`` counts them all."""

    type: Literal["tables"] = "tables"
    room: str
    tables: list[TableInfo]
    total: int


class TableUpdate(ServerMessage):
    """Pushed to a room's subscribers when one of its tables changes."""

    type: Literal["table_update"] = "table_update"
    table: TableInfo
    removed: bool = False


class InviteInfo(ServerMessage):
    """A private table's invite: the ``code`` that lets a player in (with the table's id:
    the browser's link is ``/#/join/<table>/<code>``), valid ``expires_in`` seconds more."""

    table: str
    code: str | None
    expires_in: float | None


class TableCreated(Reply):
    type: Literal["table_created"] = "table_created"
    table: TableInfo
    invite: InviteInfo | None = None  # a private table's invite, for its opener to send


class Invited(Reply):
    """The answer to ``invite``."""

    type: Literal["invite"] = "invite"
    invite: InviteInfo


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
    hide_presence: bool = False
    language: Language | None = None  # the language chosen (null: none, the browser's)


class TableRef(ServerMessage):
    """The table a player sits at: its ``room`` and ``game``, and its id (null for a
    private table: its id is told to no one who is not at it)."""

    table: str | None
    room: str
    game: str
    private: bool = False


class FriendInfo(ServerMessage):
    """A player you follow: whether they follow you back (``mutual``: friends), whether
    they are online, and the table they sit at (null: none)."""

    name: str
    mutual: bool
    online: bool
    at: TableRef | None = None


class Friends(Reply):
    """The answer to ``friends``: the players you follow."""

    type: Literal["friends"] = "friends"
    players: list[FriendInfo]


class AnalysisStatus(Reply):
    """Where a game's analysis stands: ``queued``, ``running`` (``done`` of ``total``
    hands), ``done`` or ``failed``; the result is at ``/api/games/<id>/analysis``."""

    type: Literal["analysis"] = "analysis"
    game_id: str
    state: Literal["queued", "running", "done", "failed"]
    done: int
    total: int


class GameRef(ServerMessage):
    """A game in play at a table where the player sits (``seat``)."""

    table: str
    game_id: str
    room: str
    game: str
    seat: int


class EventsReply(Reply):
    """The answer to ``events``: the account's games in play, on every node."""

    type: Literal["events"] = "events"
    games: list[GameRef]


class GameStart(ServerMessage):
    """Pushed to every connection of a registered player whose game starts (any node)."""

    type: Literal["game_start"] = "game_start"
    table: str
    game_id: str
    room: str
    game: str
    seat: int


class GameFinish(ServerMessage):
    """Pushed to every connection of a registered player whose game ended: the final
    ``scores`` and ``winners`` (seats) as ``game_over`` gives them; ``abandoned``: ended
    early on the score so far."""

    type: Literal["game_finish"] = "game_finish"
    table: str
    game_id: str
    room: str
    game: str
    seat: int
    scores: list[int]
    winners: list[int]
    abandoned: bool = False


class ChallengeInfo(ServerMessage):
    """A challenge: who sent it (``by``), the room, its rules and its seats (each a
    player, or null for a robot), and how long it waits for answers."""

    id: str
    by: str
    room: str
    game: str
    rules: dict[str, Any]
    seats: list[str | None]
    expires_in: float
    bots: list[str] = Field(default_factory=list)  # the players named who are BOT accounts


class ChallengeSent(Reply):
    """The answer to ``challenge``: it waits for every player named to accept."""

    type: Literal["challenge"] = "challenge"
    challenge: ChallengeInfo


class Challenged(ServerMessage):
    """Pushed to each player challenged (every connection of theirs)."""

    type: Literal["challenged"] = "challenged"
    challenge: ChallengeInfo


class ChallengeOver(ServerMessage):
    """Pushed to every player of a challenge when it is decided: ``accepted`` (the private
    ``table`` is open, each player's seat kept for them: ``sit`` there), ``declined``
    (``by`` whom and why), or ``expired``."""

    type: Literal["challenge_over"] = "challenge_over"
    challenge: str
    outcome: Literal["accepted", "declined", "expired"]
    by: str | None = None
    reason: str | None = None
    table: str | None = None
    seats: list[str | None] | None = None


class PresenceUpdate(ServerMessage):
    """Pushed: a player you follow came online, went offline, sat at or left a table."""

    type: Literal["presence"] = "presence"
    name: str
    online: bool
    at: TableRef | None = None

"""Room and server settings, read from a TOML file (``server/rooms.toml`` is the default)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from trickroom.game.duplicate import MATCH_GAMES
from trickroom.game.hearts import HeartsRules
from trickroom.game.spades import SpadesRules
from trickroom.game.variants import rules_from
from trickroom.i18n import Msg
from trickroom.ratings import SYSTEMS, RatingError, RatingSystem, system_named
from trickroom.ratings.registry import with_constants
from trickroom.server.loops import LOOPS
from trickroom.server.origins import invalid
from trickroom.server.passwords import PROFILES
from trickroom.server.proxies import IPV4_PREFIXES, IPV6_PREFIXES, networks
from trickroom.server.store.sqlite import DURABILITY
from trickroom.server.thinkers import WORKERS

DEFAULT_CONFIG = Path(__file__).with_name("rooms.toml")
RULES_TYPES: dict[str, type] = {"spades": SpadesRules, "hearts": HeartsRules}


class ConfigError(ValueError):
    """A room file or a setting that cannot be used, naming the room and the field (or
    the variable or option the setting came from)."""


@dataclass(frozen=True)
class ServerSettings:
    turn_seconds: float = 30.0
    reconnect_seconds: float = 180.0
    robot_delay: float = 0.6
    # A game resumed on another server (a restart, a fail-over, a deploy's hand-over): its
    # away players' robots wait this long before playing for them, while they reconnect.
    resume_grace_seconds: float = 5.0
    hand_pause: float = 3.0
    max_frame_bytes: int = 16384
    messages_per_second: float = 50.0
    message_burst: int = 100
    connections_per_ip: int = 32
    messages_per_second_per_address: float = 200.0  # all of one address's sockets together
    message_burst_per_address: int = 400
    chat_max_chars: int = 300
    # Chat lines per second, and saved for a burst, of one connection and of one address
    # (each line goes to every player or subscriber it is for): more are refused.
    chat_per_second: float = 1.0
    chat_burst: int = 5
    chat_per_second_per_address: float = 5.0
    chat_burst_per_address: int = 20
    # One account's connections together (a registered player with many sockets), and all
    # the spectators of one table together (rotating guests and addresses): more refused.
    chat_per_second_per_account: float = 1.0
    chat_burst_per_account: int = 5
    spectator_chat_per_second: float = 0.5
    spectator_chat_burst: int = 5
    # The players one player may ignore at once: more are refused (a guest's list ends with
    # its connection; a registered player's stays with the account).
    ignores_per_player: int = 200
    outbox_bytes: int = 1_048_576
    vote_seconds: float = 30.0
    min_games: int = 5
    leaderboard_min_games: int = 1
    durability: str = "server_crash"  # or "power_loss": fsync every commit (server/store.py)
    # How long the PostgreSQL writer waits for more writes to join a commit, in ms: fewer
    # commits at part load (a cluster node's), each action acknowledged that much later.
    postgres_commit_window_ms: float = 1.0
    # How long a finished game's moves stay in the store beside its packed record (which
    # the review reads), in seconds; 0: dropped at the next pass (server/retention.py).
    keep_moves_seconds: float = 86400.0
    event_loop: str = "uvloop"  # or "asyncio" (server/loops.py); uvloop where installed
    lease_seconds: float = 3.0  # a cluster node's hold on a table (server/cluster/node.py)
    forward_seconds: float = 5.0  # a request forwarded to a table's node: its deadline
    # Where players reach this node directly (a cluster): "/node/1/ws" behind the proxy of
    # docs/nginx.conf, or "ws://host:port/ws". Set, a player sitting at or rejoining a
    # table of this node from another is told to come here (``moved``); unset, their
    # requests are forwarded over Redis. Usually given per node: ``--node-url``.
    node_url: str | None = None
    # A stopping cluster node (SIGTERM, ``trickroom drain``) hands its tables to the other
    # nodes between moves for at most this long, then stops as it is.
    drain_seconds: float = 10.0
    # How often a cluster node holding more than its share of the tables (a node joined,
    # or came back) hands some to the nodes holding the fewest, between moves.
    balance_seconds: float = 10.0
    gc_freeze_seconds: float = 0.25  # server/collector.py; 0: Python's own collection only
    gc_full_seconds: float = 600.0
    gc_freeze_above_ms: float = 20.0  # freeze only once a full collection took this long
    # ... and the heap holds this many objects more than at start-up (a big heap on any
    # machine: a slow one takes 20 ms over the start-up heap alone)
    gc_freeze_above_objects: int = 25_000
    # How often the C allocator hands its free pages back to the system (server/heap.py);
    # 0: never, and the server's memory keeps the peaks it reached.
    heap_trim_seconds: float = 10.0
    event_log_size: int = 1000  # events a table keeps for rejoins; further back: a snapshot
    table_idle_seconds: float = 600.0  # an empty waiting table, or a finished one, then closes
    follows_per_player: int = 500  # players one account may follow
    challenge_seconds: float = 60.0  # a challenge waits this long for every answer
    challenges_per_minute: float = 6.0  # one account's (and one address group's) challenges
    challenge_burst: int = 6
    invite_seconds: float = 86400.0  # a private table's invite code lets players in this long
    tables_listed: int = 100  # tables a room's list gives at most (waiting ones first)
    lobby_push_seconds: float = 0.25  # a room's table_update pushes: each table once a beat
    # Accounts and abuse (DESIGN section 12, docs/protocol.md "Limits").
    password_profile: str = "owasp"  # server/passwords.py PROFILES
    password_workers: int = 2  # threads hashing passwords (one address holds all but one)
    password_queue: int = 8  # hashes waiting for them; more: rate_limited at once
    password_queue_per_address: int = 2  # of those, one address's at most (a fair share)
    # Passwords hashed for one address (logins, registrations): this many, refilled at
    # this rate; more are refused unhashed (0 a second: no budget).
    password_check_burst_per_address: int = 30
    password_checks_per_second_per_address: float = 1.0
    registrations_per_hour_per_address: int = 20  # accounts one address makes in any hour
    login_free_failures: int = 5  # per account, before the back-off
    login_free_failures_per_address: int = 20
    # One password failing this often (over any accounts and addresses) waits as an
    # account does: a spray of one password is checked a few times, not once an account.
    login_free_failures_per_guess: int = 5
    # Everyone's failed logins together: this many, refilled at this rate; past it logins
    # from devices an account does not know wait (known devices are not held).
    login_failure_burst: int = 100
    login_failures_per_second: float = 1.0
    login_backoff_seconds: float = 1.0  # the first wait; it doubles with each failure
    login_backoff_max_seconds: float = 900.0
    logins_per_connection: int = 5  # register, login, guest or resume on one socket
    guest_session_seconds: float = 3600.0  # a guest may resume for this long; then the name is free
    # A registered session not used (logged in, resumed) for this long ends; an account
    # keeps its most lately used sessions, the older ones ending as new ones begin.
    session_idle_seconds: float = 2_592_000.0  # 30 days
    sessions_per_account: int = 20
    guests_per_address: int = 20  # guest names held at once by one address's connections
    tables_per_account: int = 3  # open tables one player created
    tables_per_address: int = 10
    # Tables opened from one address that wait for players in one room (over every node):
    # a room's list is not to be filled by a few addresses' empty tables.
    waiting_tables_per_address: int = 3
    # The public origins of the pages that may open the socket, besides the server's own
    # (http:// with its port and its loopback names, the address it listens on, the
    # address a socket reached): behind a proxy, the site's (server/origins.py). Never the
    # Host header. A client that sends no Origin, such as a bot, is always let in.
    allowed_origins: tuple[str, ...] = ()
    # The host's own proxies (addresses or CIDR blocks), whose X-Forwarded-For names the
    # client every per-address limit counts (server/proxies.py). Empty: no header is read.
    trusted_proxies: tuple[str, ...] = ()
    # The HTTP API's requests (/api/...) per second, and saved for a burst, of one address
    # (the address the socket's limits count): more are answered 429 with Retry-After. A
    # page of the web client asks a few; 0 a second: no limit. Static files, /healthz and
    # /metrics are not counted.
    http_per_second_per_address: float = 10.0
    http_burst_per_address: int = 60
    # Every per-address limit (sockets, messages, guests, tables, failed logins, chat, the
    # HTTP API) counts an address group: an IPv4 address's first ``ipv4_prefix`` bits,
    # an IPv6 address's first ``ipv6_prefix`` (one subscriber is given a whole /64). 32
    # and 128 count each address alone (server/proxies.py).
    ipv4_prefix: int = 32
    ipv6_prefix: int = 64
    # Searching robots' thinking (server/thinking.py): at most ``robot_thinkers`` searches
    # at once, in worker processes ("process") or threads of the server ("thread"); the
    # address groups of the tables' seated players take turns, each group with at most
    # ``robot_queue_per_address`` searches waiting (all together ``robot_queue``), and a
    # budget of ``robot_thinking_burst_per_address`` processor seconds refilled at
    # ``robot_thinking_per_second_per_address`` (a share of one core). Past any of them
    # a robot plays the rule of thumb (the heuristic) at once.
    robot_thinkers: int = 1
    robot_worker: str = "process"
    robot_queue_per_address: int = 2
    robot_queue: int = 16
    robot_thinking_burst_per_address: float = 30.0
    robot_thinking_per_second_per_address: float = 0.25
    # Finished games' reviews (GET /api/games/<id>), encoded, kept for the next request, in
    # bytes at most (server/reviews.py): the least lately read go first.
    review_cache_bytes: int = 67_108_864
    # Games' analyses (server/analysis.py): ``analysis_workers`` worker processes at a
    # lower priority, ``analysis_queue`` games asked for waiting at most (all nodes),
    # ``analysis_queue_per_player`` of them an account's (and an address group's) at most,
    # ``analysis_samples`` deals sampled a decision (game/analysis.py);
    # ``analysis_auto_ranked``: every finished ranked game analysed unasked (behind the
    # asked ones, never counted against them).
    analysis_workers: int = 1
    analysis_queue: int = 8
    analysis_queue_per_player: int = 2
    analysis_samples: int = 64
    analysis_auto_ranked: bool = False


_SETTINGS = TypeAdapter(ServerSettings)


@dataclass(frozen=True)
class Room:
    name: str
    game: str
    rated: bool = False
    system: str | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    turn_seconds: float | None = None  # this room's turn timer; None: the server's
    constants: dict[str, float] = field(default_factory=dict)  # a refit's, adopted
    # Who sits: "people" (and, in casual rooms, BOT accounts too), or "bots": a ranked
    # room of the bot ladder, where only BOT accounts sit and are rated apart from people.
    players: Literal["people", "bots"] = "people"
    # A duplicate room (issue 39): each game's deals are a board set's, played at
    # ``board_tables`` tables (server/tables/board.py) and scored against the field.
    duplicate: bool = False

    @property
    def board_tables(self) -> int:
        """The tables a board set of this room is played at: two in Spades (the second
        table's seats shifted one place), four in Hearts (shifted 0 to 3 places)."""
        return MATCH_GAMES[self.game]

    @property
    def ladder(self) -> bool:
        """A ranked room of the bot ladder."""
        return self.players == "bots"

    def rating_system(self) -> RatingSystem:
        """The system this room's games are rated and predicted with: the preset it names
        with the constants it adopted (``trickroom ratings refit``). A casual room rates
        nothing; its tables name Zone."""
        return with_constants(self.system or "zone", self.constants)

    def make_rules(self, overrides: dict[str, Any] | None = None) -> Any:
        """The room's rules with a table's overrides, validated by the rules dataclass."""
        merged = {**self.rules, **(overrides or {})}
        cls = RULES_TYPES[self.game]
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(merged) - known)
        if unknown:
            raise ConfigError(Msg("unknown {game} rule(s): {unknown}; known: {known}",
                                  game=self.game, unknown=", ".join(unknown),
                                  known=", ".join(sorted(known))))
        merged = {k: tuple(v) if isinstance(v, list) else v for k, v in merged.items()}
        try:
            return rules_from(self.game, cls, merged)
        except (TypeError, ValueError) as exc:
            problem = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
            raise ConfigError(Msg("bad {game} rules: {problem}", game=self.game,
                                  problem=problem)) from None


@dataclass(frozen=True)
class Config:
    settings: ServerSettings
    rooms: dict[str, Room]

    def rating_system(self, game: str, system: str) -> RatingSystem:
        """The system ``system`` as this server rates ``game`` with it: with the constants
        its ranked rooms adopted (rooms sharing a game and a system share them), or the
        preset when no ranked room rates that game with it."""
        for room in self.rooms.values():
            if room.rated and room.game == game and room.system == system:
                return room.rating_system()
        return system_named(system)


def read_room_file(path: str | Path | None = None) -> tuple[Path, dict[str, Any]]:
    """A room file's path (the default one when none is given) and its TOML."""
    source = Path(path) if path else DEFAULT_CONFIG
    try:
        return source, tomllib.loads(source.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read room config {source}: {exc}") from None


def load_config(path: str | Path | None = None, *, origins: Mapping[str, str] | None = None,
                **overrides: Any) -> Config:
    """Read a room file; ``overrides`` replace its server settings (the environment's and
    the command line's, or a test's short timers). ``origins`` names where an override
    came from (``TRICKROOM_TURN_SECONDS``, ``--node-url``), so that an error about its
    value names what the host wrote, not the room file."""
    source, data = read_room_file(path)

    def where(name: str) -> str:
        return (origins or {}).get(name) or f"[server] {name}"

    server = {**data.get("server", {}), **overrides}
    known = {f.name for f in fields(ServerSettings)}
    if set(server) - known:
        raise ConfigError(f"unknown [server] setting(s): {', '.join(sorted(set(server) - known))}")
    settings = server_settings(server, where)
    rooms: dict[str, Room] = {}
    for entry in data.get("rooms", []):
        try:
            room = Room(name=entry["name"], game=entry["game"], rated=entry.get("rated", False),
                        system=entry.get("system"), rules=dict(entry.get("rules", {})),
                        turn_seconds=entry.get("turn_seconds"),
                        players=entry.get("players", "people"),
                        duplicate=entry.get("duplicate", False))
        except KeyError as exc:
            raise ConfigError(f"a room needs a {exc.args[0]!r}") from None
        if not isinstance(room.duplicate, bool):
            raise ConfigError(f"room {room.name!r}: duplicate must be true or false")
        if room.players not in ("people", "bots"):  # a room file's word, unchecked till here
            raise ConfigError(f"room {room.name!r}: players must be \"people\" or \"bots\"")
        if room.ladder and not room.rated:
            raise ConfigError(f"room {room.name!r}: a room of bots is the bot ladder, so it "
                              "is ranked (rated = true, with a system)")
        if room.game not in RULES_TYPES:
            raise ConfigError(f"room {room.name!r}: game must be spades or hearts")
        if room.rated and room.system not in SYSTEMS:
            raise ConfigError(f"ranked room {room.name!r}: system must be one of "
                              f"{', '.join(sorted(SYSTEMS))}")
        if "constants" in entry:
            room = replace(room, constants=adopted_constants(room, entry["constants"]))
        room.make_rules()  # validate now, not when the first table opens
        rooms[room.name] = room
    if not rooms:
        raise ConfigError(f"{source} defines no rooms")
    shared_ratings_agree(rooms.values())
    return Config(settings, rooms)


def server_settings(values: Mapping[str, Any],
                    where: Callable[[str], str] = lambda name: f"[server] {name}",
                    ) -> ServerSettings:
    """The server settings from ``values`` (a room file's ``[server]`` table with what
    overrides it), each of its declared type (a number given as ``"30"`` is read as
    one, a word where a number belongs is refused) and each choice one of its choices.
    An error names the setting by ``where`` it came from."""
    try:
        settings = _SETTINGS.validate_python(dict(values))
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "?"
        message = error["msg"][:1].lower() + error["msg"][1:]
        raise ConfigError(f"{where(name)}: {message}, not {error['input']!r}") from None
    try:
        networks(settings.trusted_proxies)
    except ValueError as exc:
        reason = str(exc).removeprefix("trusted_proxies: ")
        raise ConfigError(f"{where('trusted_proxies')}: {reason}") from None
    for name, bounds in (("ipv4_prefix", IPV4_PREFIXES), ("ipv6_prefix", IPV6_PREFIXES)):
        if getattr(settings, name) not in bounds:
            raise ConfigError(f"{where(name)} must be a prefix length from {bounds[0]} to "
                              f"{bounds[-1]} bits, not {getattr(settings, name)!r}")
    wrong = invalid(settings.allowed_origins)
    if wrong:
        raise ConfigError(f"{where('allowed_origins')}: {wrong[0]!r} is not an origin "
                          "(a scheme, http or https, and a host, with a port if not the "
                          "scheme's own: https://cards.example)")
    choices = {"password_profile": PROFILES, "event_loop": LOOPS, "durability": DURABILITY,
               "robot_worker": WORKERS}
    for name, allowed in choices.items():
        value = getattr(settings, name)
        if value not in allowed:
            raise ConfigError(f"{where(name)} must be one of {', '.join(allowed)}, "
                              f"not {value!r}")
    if not 0 <= settings.postgres_commit_window_ms <= 1000:
        raise ConfigError(f"{where('postgres_commit_window_ms')} must be from 0 to 1000 ms "
                          f"(0: commit at once), not {settings.postgres_commit_window_ms!r}")
    if settings.review_cache_bytes < 0:
        raise ConfigError(f"{where('review_cache_bytes')} must be 0 bytes or more (0: "
                          f"keep none), not {settings.review_cache_bytes!r}")
    for name in ("robot_thinkers", "robot_queue_per_address", "robot_queue",
                 "analysis_workers", "analysis_queue", "analysis_queue_per_player",
                 "analysis_samples"):
        if getattr(settings, name) < 1:
            raise ConfigError(f"{where(name)} must be 1 or more, not {getattr(settings, name)!r}")
    for name in ("robot_thinking_burst_per_address", "robot_thinking_per_second_per_address"):
        if getattr(settings, name) < 0:
            raise ConfigError(f"{where(name)} must be 0 or more (0: no searching), not "
                              f"{getattr(settings, name)!r}")
    if settings.keep_moves_seconds < 0:
        raise ConfigError(f"{where('keep_moves_seconds')} must be 0 seconds or more, "
                          f"not {settings.keep_moves_seconds!r}")
    if settings.heap_trim_seconds < 0:
        raise ConfigError(f"{where('heap_trim_seconds')} must be 0 seconds or more (0: never), "
                          f"not {settings.heap_trim_seconds!r}")
    return settings


def adopted_constants(room: Room, constants: Any) -> dict[str, float]:
    """A ranked room's ``constants`` table, checked by building its system from them: only
    a tuned preset's refitted constants, each a positive number."""
    if not room.rated:
        raise ConfigError(f"room {room.name!r} is casual and rates nothing: constants "
                          "belong to a ranked room's system")
    if not isinstance(constants, dict):
        raise ConfigError(f"ranked room {room.name!r}: constants must be a table, such as "
                          "constants = { beta = 1440 }")
    assert room.system is not None
    try:
        with_constants(room.system, constants)
    except RatingError as exc:
        raise ConfigError(f"ranked room {room.name!r}, constants "
                          f"{', '.join(constants)}: {exc}") from None
    return {name: float(value) for name, value in constants.items()}


def shared_ratings_agree(rooms: Iterable[Room]) -> None:
    """Ratings are kept per player, game and system, so ranked rooms that rate one game
    with one system move the same ratings: they must rate with the same constants."""
    first: dict[tuple[str, str | None], Room] = {}
    for room in rooms:
        if not room.rated:
            continue
        other = first.setdefault((room.game, room.system), room)
        if other.constants != room.constants:
            raise ConfigError(f"ranked rooms {other.name!r} and {room.name!r} both rate "
                              f"{room.game} with {room.system} and so share its ratings: "
                              "they need the same constants")

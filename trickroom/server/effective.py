"""A node's effective settings: each one from the first of the command line, the
environment, the room file and its default that gives it, with where it came from.

Precedence, highest first:

1. ``argv``: the command line (``--port``, ``--store``, ``--node-url``, ...);
2. ``env``: the environment (:mod:`.environment`: ``TRICKROOM_<NAME>``, its ``_FILE``,
   or the secrets directory);
3. ``file``: the room file's ``[server]`` table (the room file itself is ``--config``,
   ``TRICKROOM_CONFIG`` or the default one);
4. ``default``.

So a host may keep the room file as shipped, put what differs between machines in an
environment file, and still override one setting for one run on the command line. The
options of ``trickroom serve`` that a room file does not hold (:class:`ServeOptions`:
where the node listens, its store and cluster, the room file itself) skip step 3.

**Secrets.** The store's and the cluster's passwords may be in their URLs or apart, as
``store_password`` and ``cluster_password``: these have no command-line option (a
command line is shown by ``ps`` to every user), only a variable or a file, and are put
into their URL here. Whatever shows a setting shows :meth:`Setting.shown`: a URL with its
password masked (:func:`.urls.masked`), a password as ``***``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, get_origin, get_type_hints
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import TypeAdapter, ValidationError

from trickroom.server.config import (
    Config,
    ConfigError,
    ServerSettings,
    load_config,
    read_room_file,
)
from trickroom.server.environment import Found, read_environment, variable
from trickroom.server.urls import MASK, masked


@dataclass(frozen=True)
class ServeOptions:
    """What ``trickroom serve`` is told besides the room file's settings."""

    host: str = "127.0.0.1"  # the address to listen on; a container's: 0.0.0.0
    port: int = 8765  # HTTP, the API and the socket, on one port
    db: str | None = None  # an SQLite file; without it or a store, under the data directory
    store: str | None = None  # PostgreSQL instead: postgresql://user@host/db
    store_password: str | None = None  # put into the store's URL
    cluster: str | None = None  # the cluster's Redis: redis://host:6379/0
    cluster_password: str | None = None  # put into the cluster's URL
    cluster_prefix: str = "trickroom"  # the cluster's Redis keys and channels start so
    config: str | None = None  # the room file; without it, the shipped rooms.toml
    log_level: str = "info"  # debug, info, warning or error


SERVE = tuple(f.name for f in fields(ServeOptions))
SERVER = tuple(f.name for f in fields(ServerSettings))
NAMES = SERVE + SERVER
PASSWORDS = frozenset({"store_password", "cluster_password"})
URLS = frozenset({"store", "cluster"})
LOG_LEVELS = ("debug", "info", "warning", "error")
# The command line's option of each setting that has one (passwords never do).
FLAGS = {name: "--" + name.replace("_", "-")
         for name in (*SERVE, "node_url") if name not in PASSWORDS}
# Settings that are lists: a variable gives them comma-separated, or as a JSON list.
LISTS = frozenset(name for name, hint in get_type_hints(ServerSettings).items()
                  if get_origin(hint) is tuple)
_SERVE = TypeAdapter(ServeOptions)


@dataclass(frozen=True)
class Setting:
    """One effective setting: its value, where it came from (``argv``, ``env``, ``file``
    or ``default``) and by what (the option, the variable or the file; empty for a
    default)."""

    name: str
    value: Any
    origin: str
    source: str

    @property
    def variable(self) -> str:
        return variable(self.name)

    def shown(self) -> Any:
        """The value as it may be printed or logged: passwords masked."""
        if self.value is None:
            return None
        if self.name in PASSWORDS:
            return MASK
        if self.name in URLS:
            return masked(str(self.value))
        if isinstance(self.value, tuple):
            return list(self.value)
        return self.value


@dataclass(frozen=True)
class Effective:
    """What a node runs with: its room config, its serve options (the store's and the
    cluster's URLs with their passwords in), and every setting with its origin."""

    config: Config
    serve: ServeOptions
    settings: tuple[Setting, ...]

    @property
    def database(self) -> str:
        """The store's URL, or the SQLite file."""
        database = self.serve.store or self.serve.db
        assert database is not None
        return database


def resolve(argv: Mapping[str, Any]) -> Effective:
    """The effective settings, given the command line's options (a name with None: not
    given) and the process's environment.

    Raises:
        ConfigError: one line naming the setting by where it came from.
    """
    given = {name: value for name, value in argv.items()
             if name in FLAGS and value is not None}
    env = read_environment(NAMES)
    chosen: dict[str, tuple[Any, str, str]] = {}  # name: (value, origin, source)
    for name in SERVE:
        if name in given:
            chosen[name] = (given[name], "argv", FLAGS[name])
        elif name in env:
            chosen[name] = (env[name].text, "env", env[name].source)
    serve = _serve_options(chosen)
    room_file, data = read_room_file(serve.config)
    serve = replace(serve, config=str(room_file))
    in_file = data.get("server", {})
    for name in SERVER:
        if name in given:
            chosen[name] = (given[name], "argv", FLAGS[name])
        elif name in env:
            chosen[name] = (_listed(name, env[name]), "env", env[name].source)
        elif name in in_file:
            chosen[name] = (in_file[name], "file", str(room_file))
    overrides = {name: chosen[name][0] for name in SERVER
                 if name in chosen and chosen[name][1] != "file"}
    config = load_config(room_file, origins={name: chosen[name][2] for name in overrides},
                         **overrides)
    serve = _with_passwords(_stores_agree(serve, chosen), chosen)
    settings = []
    for name in NAMES:
        value = getattr(serve if name in SERVE else config.settings, name)
        origin, source = chosen.get(name, (None, "default", ""))[1:]
        settings.append(Setting(name, value, origin, source))
    return Effective(config, serve, tuple(settings))


def _serve_options(chosen: Mapping[str, tuple[Any, str, str]]) -> ServeOptions:
    values = {name: chosen[name][0] for name in SERVE if name in chosen}
    try:
        serve = _SERVE.validate_python(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0])
        message = error["msg"][:1].lower() + error["msg"][1:]
        shown = "" if name in PASSWORDS else f", not {masked(str(error['input']))!r}"
        raise ConfigError(f"{chosen[name][2]}: {message}{shown}") from None
    if not 0 <= serve.port <= 65535:
        raise ConfigError(f"{chosen['port'][2]}: a port is 0 to 65535, not {serve.port}")
    if serve.log_level.lower() not in LOG_LEVELS:
        raise ConfigError(f"{chosen['log_level'][2]} must be one of {', '.join(LOG_LEVELS)}, "
                          f"not {serve.log_level!r}")
    return replace(serve, log_level=serve.log_level.lower())


def _listed(name: str, found: Found) -> Any:
    """A list setting's variable: comma-separated, or a JSON list."""
    if name not in LISTS:
        return found.text
    if found.text.lstrip().startswith("["):
        try:
            return json.loads(found.text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{found.source}: not a JSON list ({exc.msg}); or give it "
                              "comma-separated") from None
    return [item.strip() for item in found.text.split(",") if item.strip()]


def _stores_agree(serve: ServeOptions, chosen: Mapping[str, tuple[Any, str, str]]
                  ) -> ServeOptions:
    """One store (an SQLite file or PostgreSQL), and PostgreSQL for a cluster; without
    either, the SQLite file under the user's data directory."""
    if serve.db and serve.store:
        raise ConfigError(f"give {chosen['db'][2]} (an SQLite file) or {chosen['store'][2]} "
                          "(PostgreSQL), not both")
    if serve.cluster and not (serve.store or "").startswith(("postgresql://", "postgres://")):
        raise ConfigError("a cluster's nodes share one PostgreSQL store: add --store (or "
                          f"{variable('store')}) postgresql://user@host/db")
    if not (serve.db or serve.store):
        from trickroom.server.app import default_db_path
        serve = replace(serve, db=str(default_db_path()))
    return serve


def _with_passwords(serve: ServeOptions, chosen: Mapping[str, tuple[Any, str, str]]
                    ) -> ServeOptions:
    """The store's and the cluster's URLs with ``store_password`` and ``cluster_password``
    in them (each percent-encoded, as a URL's password is)."""
    for url_name in ("store", "cluster"):
        password = getattr(serve, f"{url_name}_password")
        if password is None:
            continue
        source = chosen[f"{url_name}_password"][2]
        url = getattr(serve, url_name)
        if url is None:
            raise ConfigError(f"{source} is given, but no {url_name}: give its URL too "
                              f"({FLAGS[url_name]} or {variable(url_name)})")
        url = with_password(url, password, source)
        serve = replace(serve, store=url) if url_name == "store" else replace(serve, cluster=url)
    return serve


def with_password(url: str, password: str, source: str = "the password") -> str:
    """``url`` with ``password`` as its user information's password.

    >>> with_password("postgresql://trickroom@db.internal/trickroom", "p@ss/w:rd")
    'postgresql://trickroom:p%40ss%2Fw%3Ard@db.internal/trickroom'
    >>> with_password("redis://redis.internal:6379/0", "s3cret")
    'redis://:s3cret@redis.internal:6379/0'
    """
    parts = urlsplit(url)
    userinfo, _, place = parts.netloc.rpartition("@")
    if not place:
        raise ConfigError(f"{source} is given, but {masked(url)} is no URL with a host")
    if ":" in userinfo:
        raise ConfigError(f"{source} is given, and {masked(url)} has a password too: "
                          "give it in one place")
    netloc = f"{userinfo}:{quote(password, safe='')}@{place}"
    return urlunsplit(parts._replace(netloc=netloc))


def describe(effective: Effective) -> str:
    """``trickroom config``: every setting, its value (passwords masked) and where it
    came from, one a line in columns."""
    rows = [("setting", "value", "from")]
    for setting in effective.settings:
        shown = setting.shown()
        value = "(none)" if shown is None else (
            json.dumps(shown) if isinstance(shown, list) else str(shown))
        origin = f"{setting.origin} {setting.source}".rstrip()
        rows.append((setting.name, value, origin))
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    return "\n".join(f"{name:<{widths[0]}}  {value:<{widths[1]}}  {origin}".rstrip()
                     for name, value, origin in rows)


def as_json(effective: Effective) -> list[dict[str, Any]]:
    """``trickroom config --json``: the same, for a program."""
    return [{"name": s.name, "value": s.shown(), "from": s.origin, "source": s.source,
             "variable": s.variable} for s in effective.settings]

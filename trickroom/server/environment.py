"""Settings from the environment: ``TRICKROOM_<NAME>`` for every setting, read with
pydantic-settings.

A container or a service unit configures a node by its environment, and keeps a secret
(the store's or the cluster's password) in a file rather than on a command line that
``ps`` shows. So each setting ``name`` may be given, from the first found:

1. ``TRICKROOM_<NAME>``: the value itself (an empty variable counts as not given);
2. ``TRICKROOM_<NAME>_FILE``: the path of a file holding the value (Docker's and
   PostgreSQL's images' convention; a systemd unit points it at ``%d/<credential>``);
3. a file named ``trickroom_<name>`` in the directory ``TRICKROOM_SECRETS_DIR`` names
   (pydantic-settings' secrets directory: compose's ``/run/secrets``, or systemd's
   ``$CREDENTIALS_DIRECTORY``).

A file's value is its text without the whitespace around it; an empty value, of a
variable or a file, counts as not given. Giving a variable and its ``_FILE`` both is an
error, as is a ``_FILE`` or a directory that cannot be read.

Values come back as text, each with what gave it (:class:`Found`), for the caller to
read as the setting's type and to name in an error (``TRICKROOM_PORT: ...``).

A ``TRICKROOM_`` variable that names no setting is left alone (the tests' own, such as
``TRICKROOM_REQUIRE_SERVICES``), unless it is so close to a setting's name that it is
surely that one mistyped (``TRICKROOM_TURN_SECOND``): then it is an error naming the
setting, since a host's typo would otherwise be silently ignored.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import create_model
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    SecretsSettingsSource,
    SettingsConfigDict,
)

from trickroom.server.config import ConfigError

PREFIX = "TRICKROOM_"
SECRETS_DIR = f"{PREFIX}SECRETS_DIR"
FILE = "_FILE"

# How alike a variable's name must be to a setting's (difflib's ratio, on the names
# without the prefix) to be taken for that setting mistyped: TURN_SECOND for
# TURN_SECONDS, PORTS for PORT, CLUSTR for CLUSTER; not REQUIRE_SERVICES for anything.
TYPO_RATIO = 0.8


class _Environment(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, case_sensitive=False,
                                      env_ignore_empty=True, extra="ignore")


@dataclass(frozen=True)
class Found:
    """A setting's value as the environment gave it, and what gave it: the variable
    (``TRICKROOM_PORT``), its file (``TRICKROOM_STORE_PASSWORD_FILE``), or the secrets
    directory's file (``TRICKROOM_SECRETS_DIR (/run/secrets/trickroom_store_password)``)."""

    text: str
    source: str


def variable(name: str) -> str:
    """The environment variable of the setting ``name``."""
    return f"{PREFIX}{name.upper()}"


def read_environment(names: Iterable[str]) -> dict[str, Found]:
    """The settings among ``names`` that the process's environment gives, by name.

    Raises:
        ConfigError: a variable and its ``_FILE`` both given, a file or the secrets
            directory unreadable, or a variable that looks like a setting's mistyped.
    """
    names = tuple(names)
    check_spelling(names, os.environ)
    model = _model(names)
    given = {k: v for k, v in EnvSettingsSource(model)().items() if v is not None}
    found: dict[str, Found] = {}
    found.update(_secret_files(model, names))
    for name in names:
        if f"{name}_file" in given:
            if name in given:
                raise ConfigError(f"{variable(name)} and {variable(name)}{FILE} are both "
                                        "given: give the value or its file, not both")
            path = Path(given[f"{name}_file"])
            source = f"{variable(name)}{FILE}"
            text = _read(path, f"{source}={path}")
            if text:
                found[name] = Found(text, source)
        elif name in given:
            found[name] = Found(str(given[name]), variable(name))
    return found


def check_spelling(names: Iterable[str], environ: Mapping[str, str]) -> None:
    """Refuse a ``TRICKROOM_`` variable that is a setting's name mistyped (see the module's
    docstring); leave any other alone."""
    settings = {name.upper() for name in names}
    known = settings | {f"{name}{FILE}" for name in settings} | {SECRETS_DIR[len(PREFIX):]}
    for key in sorted(environ):
        upper = key.upper()
        if not upper.startswith(PREFIX) or upper[len(PREFIX):] in known:
            continue
        close = difflib.get_close_matches(upper[len(PREFIX):], sorted(known), n=1,
                                          cutoff=TYPO_RATIO)
        if close:
            raise ConfigError(f"{key} is no setting: did you mean {PREFIX}{close[0]}? "
                                    "(trickroom config lists every setting)")


@cache
def _model(names: tuple[str, ...]) -> type[BaseSettings]:
    """A settings class of text fields, one for each setting and one for its ``_FILE``:
    the environment is only read here; each value is read as its type by the caller,
    with the room file's values, so that both are checked alike."""
    fields: dict[str, Any] = {}
    for name in names:
        fields[name] = (str | None, None)
        fields[f"{name}_file"] = (str | None, None)
    return create_model("TrickroomEnvironment", __base__=_Environment, **fields)


def _secret_files(model: type[BaseSettings], names: tuple[str, ...]) -> dict[str, Found]:
    """The settings the secrets directory has a (non-empty) file for."""
    directory = os.environ.get(SECRETS_DIR) or None
    if directory is None:
        return {}
    path = Path(directory)
    if not path.is_dir():
        raise ConfigError(f"{SECRETS_DIR}={directory}: no such directory")
    try:
        values = SecretsSettingsSource(model, secrets_dir=path)()
    except OSError as exc:
        raise ConfigError(f"{SECRETS_DIR}={directory}: cannot read it: "
                          f"{exc.strerror or exc}") from None
    found = {}
    for name in names:
        if values.get(name):
            file = SecretsSettingsSource.find_case_path(path, variable(name), False)
            found[name] = Found(str(values[name]), f"{SECRETS_DIR} ({file})")
    return found


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{what}: cannot read it: {reason}") from None

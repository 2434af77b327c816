"""A connection's language, and messages rendered in it (trickroom/i18n).

Each connection has one language: the one its login names (``language`` on
``register``, ``login``, ``guest`` or ``resume``), else its account's setting, else the
best match of its handshake's ``Accept-Language``, else English (:func:`choose`). Its
refusals are rendered in that language as they are sent. A message for many clients (a
table's event, a prompt, a snapshot) is encoded once in English; when it holds texts, it
also carries how to encode it in another language, which the first connection of that
language does, once (:class:`~trickroom.server.tables.log.Shared`).
"""

from __future__ import annotations

from typing import Any

from trickroom.i18n.catalogs import DEFAULT, TEXTS, Language, negotiate, pick, render
from trickroom.i18n.message import from_data, to_data

KEPT = "*"
"""Not a language: :func:`localized` in it keeps each text as its template and values
(:data:`MARK`), for another node to render for each of its readers (:func:`restored`)."""
MARK = "\x00text"
"""The key of the one-key object that stands for a kept text (no wire object has it: a
key of the protocol is a word, and a player's name has no control character)."""


def choose(explicit: str | None, stored: str | None, accept_language: str | None) -> Language:
    """The language of a connection, by the rules above."""
    return pick(explicit) or pick(stored) or negotiate(accept_language) or DEFAULT


def localized(value: Any, language: str) -> Any:
    """``value`` (a wire dict, list or text) with every :class:`Msg` in it rendered in
    ``language``; what holds none is returned as it is."""
    if isinstance(value, TEXTS):
        return {MARK: _plain(to_data(value))} if language == KEPT else render(value, language)
    if isinstance(value, dict):
        return {k: localized(v, language) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [localized(v, language) for v in value]
    return value


def restored(value: Any, language: str) -> Any:
    """A wire value (as JSON read it) with each text :func:`localized` kept rendered in
    ``language``."""
    if isinstance(value, dict):
        if len(value) == 1 and MARK in value:
            return render(from_data(value[MARK]), language)
        return {k: restored(v, language) for k, v in value.items()}
    if isinstance(value, list):
        return [restored(v, language) for v in value]
    return value


def _plain(data: Any) -> Any:
    """A kept text's values as JSON holds them: what is no JSON value (an exception, a
    path) as its text, as the template would have written it."""
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_plain(v) for v in data]
    if data is None or isinstance(data, (str, int, float, bool)):
        return data
    return str(data)


def holds_texts(value: Any) -> bool:
    """Whether a wire value holds a :class:`Msg` anywhere."""
    if isinstance(value, TEXTS):
        return True
    if isinstance(value, dict):
        return any(holds_texts(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_texts(v) for v in value)
    return False

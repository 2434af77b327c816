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


def choose(explicit: str | None, stored: str | None, accept_language: str | None) -> Language:
    """The language of a connection, by the rules above."""
    return pick(explicit) or pick(stored) or negotiate(accept_language) or DEFAULT


def localized(value: Any, language: str) -> Any:
    """``value`` (a wire dict, list or text) with every :class:`Msg` in it rendered in
    ``language``; what holds none is returned as it is."""
    if isinstance(value, TEXTS):
        return render(value, language)
    if isinstance(value, dict):
        return {k: localized(v, language) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [localized(v, language) for v in value]
    return value


def holds_texts(value: Any) -> bool:
    """Whether a wire value holds a :class:`Msg` anywhere."""
    if isinstance(value, TEXTS):
        return True
    if isinstance(value, dict):
        return any(holds_texts(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_texts(v) for v in value)
    return False

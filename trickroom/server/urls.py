"""The URLs of a server's services as they may be shown: with every password masked.

A store's or a cluster's URL may carry a password (``postgresql://user:pw@host/db``,
``redis://:pw@host:6379/0``, ``?password=pw``). Whatever shows one (a log line, the
start-up line, an error) shows it through :func:`masked`, which also masks every URL
inside a longer text (an error message that quotes one), so no secret reaches a log.

>>> masked("postgresql://trickroom:s3cret@db.internal:5432/trickroom?schema=a")
'postgresql://trickroom:***@db.internal:5432/trickroom?schema=a'
>>> masked("no answer from redis://:s3cret@10.0.0.5:6379/0 (or unix:///r?password=s3cret)")
'no answer from redis://:***@10.0.0.5:6379/0 (or unix:///r?password=***)'
>>> masked("/srv/trickroom/trickroom.sqlite3")
'/srv/trickroom/trickroom.sqlite3'
"""

from __future__ import annotations

import re
from pathlib import Path

MASK = "***"

# A URL in a text: a scheme, ``://``, and what follows up to a space or a quote, but for
# the punctuation that ends it (the colon of "at URL: why", the bracket around it).
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]*?(?=[.,:;)\]]*(?:[\s'\"<>]|$))")

# A query's parameter that names a secret (password, sslpassword, pass, secret, token).
_SECRET = re.compile(r"(?i)^(?:[a-z_]*pass(?:word)?|secret|token|auth)$")


def masked(text: str | Path) -> str:
    """``text`` with the password of every URL in it masked: the user information's
    password, and every query parameter that names a secret. A text without a URL (an
    SQLite file's path) comes back as it is."""
    return _URL.sub(lambda found: _masked_url(found.group()), str(text))


def _masked_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    rest, hash_, fragment = rest.partition("#")
    rest, question, query = rest.partition("?")
    # The user information ends at the last "@" (a password may hold an unquoted one, or a
    # "/"): what comes before it, after the first ":", is the password.
    userinfo, at, place = rest.rpartition("@")
    if at and ":" in userinfo:
        user, _, _ = userinfo.partition(":")
        rest = f"{user}:{MASK}@{place}"
    if question:
        query = "&".join(_masked_parameter(p) for p in query.split("&"))
    return f"{scheme}://{rest}{question}{query}{hash_}{fragment}"


def _masked_parameter(parameter: str) -> str:
    name, equals, _ = parameter.partition("=")
    return f"{name}={MASK}" if equals and _SECRET.match(name) else parameter

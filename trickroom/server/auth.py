"""Session tokens and seat tokens (passwords: server/passwords.py).

Tokens are random secrets; only their SHA-256 is stored, so a copy of the
database does not let anyone take a seat or a session. Every comparison is
constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str | None) -> bool:
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)

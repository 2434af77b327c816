"""Passwords, session tokens and seat tokens.

Passwords are hashed with the standard library's scrypt (memory-hard; no C
dependency to build). Tokens are random secrets; only their SHA-256 is
stored, so a copy of the database does not let anyone take a seat or a
session. Every comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,24}$")
_N, _R, _P = 2**14, 8, 1


def valid_name(name: str) -> bool:
    return bool(NAME_RE.match(name))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        _, n, r, p, salt, digest = stored.split("$")
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=32)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str | None) -> bool:
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)

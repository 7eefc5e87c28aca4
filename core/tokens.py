"""Seat and bot-owner tokens: random, shown once, stored as a sha256 hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from core.errors import TokenRequired

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a fast unsalted hash is enough: nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)


def token_tag(token: str) -> str:
    """A short hash naming a token in Redis keys (the per-seat move counters), never the token itself.

    >>> len(token_tag("abc")), token_tag("abc") == token_tag("abc") != token_tag("abd")
    (16, True)
    """
    return hashlib.blake2b(token.encode(), digest_size=8).hexdigest()


def require_token(token: str | None, kind: str, realm: str) -> str:
    """The token, or TokenRequired naming what is missing (`kind`: "seat" or "owner")."""
    if not token:
        raise TokenRequired(kind, realm)
    return token

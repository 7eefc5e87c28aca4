"""Tokens: seat and bot-owner tokens and API keys (random, shown once, stored as a sha256 hash, compared in
constant time), the bearer header that carries them, and the operator's token."""

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


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None.

    >>> bearer_token("Bearer abc"), bearer_token("bearer  abc "), bearer_token("Basic abc")
    ('abc', 'abc', None)
    >>> bearer_token(None) is None
    True
    """
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def operator_token_matches(given: str, expected: str) -> bool:
    """Whether `given` is the operator's token (TA_ADMIN_TOKEN), in time independent of where they differ.

    >>> operator_token_matches("s3cret", "s3cret"), operator_token_matches("s3creT", "s3cret")
    (True, False)
    """
    return hmac.compare_digest(given.encode(), expected.encode())

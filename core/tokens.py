"""Seat and bot-owner tokens: random, shown once, stored as a sha256 hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from api.problems import ApiProblem

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    # Tokens carry 256 random bits, so a fast unsalted hash is enough: nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def require_token(token: str | None, kind: str, realm: str) -> str:
    """The token, or the 401 problem asking for it (`kind`: "seat" or "owner")."""
    if not token:
        raise ApiProblem(401, "token-required", f"send the {kind} token as 'Authorization: Bearer <token>'",
                         headers={"WWW-Authenticate": f'Bearer realm="{realm}"'})
    return token

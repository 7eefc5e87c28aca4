"""Bearer tokens in HTTP headers (checking a token against its stored hash is core.tokens), and the
operator's token."""

from __future__ import annotations

import hmac

from core.errors import AdminClosed, AdminForbidden, AdminTokenRequired


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def require_operator(authorization: str | None, expected: str | None) -> None:
    """Pass only the operator's token (`expected`, TA_ADMIN_TOKEN), compared in constant time.

    No bearer token: AdminTokenRequired (401). No operator token configured: AdminClosed (403), whatever
    was sent. Any other token (a bot owner's, a seat's, an account's, a wrong one): AdminForbidden (403).
    """
    token = bearer_token(authorization)
    if token is None:
        raise AdminTokenRequired()
    if not expected:
        raise AdminClosed()
    if not hmac.compare_digest(token.encode(), expected.encode()):
        raise AdminForbidden()

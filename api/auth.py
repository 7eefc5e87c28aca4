"""Bearer tokens in HTTP headers (checking a token against its stored hash is core.tokens), and the
operator's token."""

from __future__ import annotations

from core.errors import AdminClosed, AdminForbidden, AdminTokenRequired
from core.tokens import bearer_token, operator_token_matches

__all__ = ["bearer_token", "require_operator"]


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
    if not operator_token_matches(token, expected):
        raise AdminForbidden()

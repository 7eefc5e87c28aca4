"""The moves endpoint's rate limit: Flask-Limiter's own strategy and Redis storage, called directly.

Flask-Limiter's per-request decorator machinery (limit resolution, exemption scopes, request context
bookkeeping) cost about a third of a move's CPU time in profiles; moves are the hot path, so for them we ask
the extension's configured rate limiter (same storage, strategy and key prefix) in one call. Registration
and table creation keep the ordinary decorator.
"""

from __future__ import annotations

import time

from flask import current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import RateLimitItem, parse

from api.problems import ApiProblem

EXTENSION = "trick_arena_move_limit"


def install_move_limit(app: object, limiter: Limiter, limit: str) -> None:
    app.extensions[EXTENSION] = (limiter, parse(limit))  # type: ignore[attr-defined]


def check_move_rate() -> None:
    """Count one move for the client address; 429 problem with Retry-After once over the limit."""
    limiter, item = current_app.extensions[EXTENSION]
    if not current_app.config.get("RATELIMIT_ENABLED", True):
        return
    strategy = limiter.limiter
    identifiers = (current_app.config["RATELIMIT_KEY_PREFIX"], "moves", get_remote_address())
    if strategy.hit(item, *identifiers):
        return
    reset_at, _remaining = strategy.get_window_stats(item, *identifiers)
    retry_after = max(1, int(reset_at - time.time()) + 1)
    raise ApiProblem(429, "rate-limited", f"too many moves from this address (limit: {_describe(item)}); "
                     f"retry in {retry_after} s", title="Too Many Requests",
                     headers={"Retry-After": str(retry_after)})


def _describe(item: RateLimitItem) -> str:
    return f"{item.amount} per {item.multiples} {item.GRANULARITY.name}"

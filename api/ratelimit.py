"""The moves endpoint's limit: per seat and per table version, never per client address.

A seat can only make progress one decision at a time: every accepted move raises the table's version, so a
client that posts once per decision (plus a retry after a 409 or a corrected 422) makes one to three posts at
any version. The limit counts a seat's posts at the table's *current* version (read by the same Lua call, so a
client cannot reset it by inventing versions) and refuses the post beyond `LIMIT_SEAT_POSTS`: a compliant
client can never reach it however fast it plays, many seats behind one address do not share a budget, and a
client that hammers a seat with refused moves is stopped until the table moves on or the window expires.
Registration and table creation keep Flask-Limiter's per-address limits (api/app.py).

The count costs no round trip of its own: the table store counts the post inside the first Lua call the move
makes (`core.tables.store.PostLimit`; the record read or the commit). Only a post refused before it reaches
the
store (a malformed body) is counted by a call of its own, `check_seat_posts`.
"""

from __future__ import annotations

import redis
from flask import Flask, current_app

from core import keys
from core.errors import TooManyMovePosts
from core.tables.lua import SEAT_POSTS_SCRIPT
from core.tables.store import PostLimit
from core.tokens import token_tag

SEAT_WINDOW_S = 60  # a seat's count at one version is forgotten this long after its first post
EXTENSION = "trick_arena_seat_limit"


def install_seat_limit(app: Flask, client: redis.Redis) -> None:
    app.extensions[EXTENSION] = client.register_script(SEAT_POSTS_SCRIPT)


def seat_post_limit() -> PostLimit | None:
    """This app's per-seat move limit, None when rate limits are off."""
    config = current_app.config
    if not config.get("RATELIMIT_ENABLED", True):
        return None
    return PostLimit(int(config["LIMIT_SEAT_POSTS"]), SEAT_WINDOW_S)


def check_seat_posts(table_id: str, seat: int, token: str) -> None:
    """Count one move post with `token` on (table, seat) at the table's current version; 429 over the limit.

    The count is kept per token (a short hash of it): posts with a wrong token, refused with 403 anyway,
    cannot use up the budget of the client that holds the seat.
    """
    limit = seat_post_limit()
    if limit is None:
        return
    prefix = current_app.config["KEY_PREFIX"]
    wait = current_app.extensions[EXTENSION](
        keys=[keys.table(prefix, table_id), keys.seat_posts(prefix, table_id, seat, token_tag(token))],
        args=[limit.limit, limit.window_s])
    if int(wait):
        raise TooManyMovePosts(seat, limit.limit, int(wait))  # 429 rate-limited (api/problems.py)

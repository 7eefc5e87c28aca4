"""The moves endpoint's limit: per seat and per table version, never per client address.

A seat can only make progress one decision at a time: every accepted move raises the table's version, so a
client that posts once per decision (plus a retry after a 409 or a corrected 422) makes one to three posts at
any version. The limit counts a seat's posts at the table's *current* version (read by the same Lua call, so a
client cannot reset it by inventing versions) and refuses the post beyond `LIMIT_SEAT_POSTS`: a compliant
client can never reach it however fast it plays, many seats behind one address do not share a budget, and a
client that hammers a seat with refused moves is stopped until the table moves on or the window expires.
Registration and table creation keep Flask-Limiter's per-address limits (api/app.py).
"""

from __future__ import annotations

import hashlib

import redis
from flask import Flask, current_app

from api.problems import RATE_LIMITED_SLUG, ApiProblem
from core import keys

SEAT_WINDOW_S = 60  # a seat's count at one version is forgotten this long after its first post

# KEYS: 1 table hash, 2 the seat's counter hash. ARGV: 1 window s.
# Returns {posts at the current version (this one included), seconds left in the window}.
SEAT_POSTS_LUA = """
local version = redis.call('HGET', KEYS[1], 'version') or '-'
if redis.call('HGET', KEYS[2], 'v') ~= version then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'v', version, 'n', 1)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[1]))
  return {1, tonumber(ARGV[1])}
end
return {redis.call('HINCRBY', KEYS[2], 'n', 1), redis.call('TTL', KEYS[2])}
"""
EXTENSION = "trick_arena_seat_limit"


def install_seat_limit(app: Flask, client: redis.Redis) -> None:
    app.extensions[EXTENSION] = client.register_script(SEAT_POSTS_LUA)


def check_seat_posts(table_id: str, seat: int, token: str) -> None:
    """Count one move post with `token` on (table, seat) at the table's current version; 429 over the limit.

    The count is kept per token (a short hash of it): posts with a wrong token, refused with 403 anyway,
    cannot use up the budget of the client that holds the seat.
    """
    config = current_app.config
    if not config.get("RATELIMIT_ENABLED", True):
        return
    prefix = config["KEY_PREFIX"]
    tag = hashlib.blake2b(token.encode(), digest_size=8).hexdigest()
    posts, ttl = current_app.extensions[EXTENSION](
        keys=[keys.table(prefix, table_id), keys.seat_posts(prefix, table_id, seat, tag)],
        args=[SEAT_WINDOW_S])
    limit = int(config["LIMIT_SEAT_POSTS"])
    if int(posts) <= limit:
        return
    retry_after = max(1, int(ttl))
    raise ApiProblem(429, RATE_LIMITED_SLUG,
                     f"{limit} move posts on seat {seat} at this table version already (the limit: one "
                     f"decision at a time needs far fewer); retry in {retry_after} s or once the table moves",
                     title="Too Many Requests", headers={"Retry-After": str(retry_after)})

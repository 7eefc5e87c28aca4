"""Presence of polling bots: a bot without a URL is seated only while it is around to play. Two sorted sets
per key prefix hold when each bot last called and until when its longest running long-poll is held.

Design: docs/bot-protocol.md#presence-be-there-or-be-skipped
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from core import keys

# KEYS: 1 holding zset. ARGV: 1 bot id, 2 the held-until this call set, 3 now.
# A call that ends stops holding, unless a later call raised the mark since (it is still held).
RELEASE_LUA = """
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1])) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 0
"""


def is_present(seen_at: float | None, held_until: float | None, now: float, window_s: float) -> bool:
    """Present: a call within the last `window_s` seconds, or a long-poll held now.

    >>> is_present(100.0, None, 109.0, 10.0), is_present(100.0, None, 111.0, 10.0)
    (True, False)
    >>> is_present(50.0, 130.0, 111.0, 10.0), is_present(None, None, 0.0, 10.0)
    (True, False)
    """
    called_lately = seen_at is not None and now - seen_at <= window_s
    return called_lately or (held_until is not None and held_until >= now)


@contextmanager
def seats_call(conn: redis.Redis, prefix: str, bot_id: str, wait_s: float) -> Iterator[None]:
    """Mark `bot_id` present for one ladder-seats call that may be held `wait_s` seconds."""
    now = time.time()
    held = repr(round(now + wait_s, 6))
    pipe = conn.pipeline(transaction=False)
    pipe.zadd(keys.arena_poll_seen(prefix), {bot_id: now})
    if wait_s > 0:
        pipe.zadd(keys.arena_poll_holding(prefix), {bot_id: float(held)}, gt=True)
    pipe.execute()
    try:
        yield
    finally:
        end = time.time()
        pipe = conn.pipeline(transaction=False)
        pipe.zadd(keys.arena_poll_seen(prefix), {bot_id: end})
        if wait_s > 0:
            pipe.eval(RELEASE_LUA, 1, keys.arena_poll_holding(prefix), bot_id, held, repr(end))
        pipe.execute()


def present_bots(conn: redis.Redis, prefix: str, bot_ids: list[str], window_s: float,
                 now: float | None = None) -> set[str]:
    """The polling bots among `bot_ids` that are present now for a ladder with this window."""
    if not bot_ids:
        return set()
    now = time.time() if now is None else now
    pipe = conn.pipeline(transaction=False)
    pipe.zmscore(keys.arena_poll_seen(prefix), bot_ids)
    pipe.zmscore(keys.arena_poll_holding(prefix), bot_ids)
    seen, held = pipe.execute()
    return {b for b, s, h in zip(bot_ids, seen, held, strict=True) if is_present(s, h, now, window_s)}


def present_now(conn: redis.Redis, prefix: str, window_s: float, now: float | None = None) -> set[str]:
    """Every polling bot present now for a ladder with this window, read by score range: the cost is the
    number present, not the number of polling bots ever seen."""
    now = time.time() if now is None else now
    pipe = conn.pipeline(transaction=False)
    pipe.zrangebyscore(keys.arena_poll_seen(prefix), now - window_s, "+inf")
    pipe.zrangebyscore(keys.arena_poll_holding(prefix), now, "+inf")
    seen, held = pipe.execute()
    return {b.decode() if isinstance(b, bytes) else b for b in (*seen, *held)}

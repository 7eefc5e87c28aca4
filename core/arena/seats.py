"""Ladder seats of polling bots: where the arena leaves a seat token for each game a polling bot plays.

The arena publishes an entry when it seats the bot at a match table and withdraws it when the game is done;
the bot reads its entries through ``GET /api/bots/{bot_id}/ladder-seats`` (owner token).
"""

from __future__ import annotations

import json
from typing import Any

import redis

from core import keys
from core.redis.notify import get_watcher

POLL_SEAT_TTL_S = 24 * 3600


def publish_poll_seat(conn: redis.Redis, prefix: str, bot_id: str, entry: dict[str, Any]) -> None:
    """Publish `entry` (table, seat, token, match, ladder, game_no, deadline_ms) for the bot."""
    key = keys.arena_poll_seats(prefix, bot_id)
    pipe = conn.pipeline(transaction=True)
    pipe.hset(key, entry["table"], json.dumps(entry))
    pipe.expire(key, POLL_SEAT_TTL_S)
    pipe.execute()
    seats_changed(conn, prefix, bot_id)


def withdraw_poll_seat(conn: redis.Redis, prefix: str, bot_id: str, table_id: str) -> None:
    conn.hdel(keys.arena_poll_seats(prefix, bot_id), table_id)
    seats_changed(conn, prefix, bot_id)


def seats_changed(conn: redis.Redis, prefix: str, bot_id: str) -> None:
    """Bump the bot's seats version and wake its ladder-seats long-polls (they wait on that version)."""
    key = keys.arena_poll_seats_version(prefix, bot_id)
    pipe = conn.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, POLL_SEAT_TTL_S)
    version, _ = pipe.execute()
    conn.publish(keys.bot_seats_events(prefix, bot_id), version)


def seats_version(conn: redis.Redis, prefix: str, bot_id: str) -> int:
    return int(conn.get(keys.arena_poll_seats_version(prefix, bot_id)) or 0)


def wait_for_seats(conn: redis.Redis, prefix: str, bot_id: str, after: int, timeout: float) -> int:
    """Block until the bot's seats version exceeds `after` or `timeout` passes (woken by seats_changed)."""
    watcher = get_watcher(conn, prefix)
    return watcher.wait(keys.bot_seats_events(prefix, bot_id), after, timeout,
                        lambda: seats_version(conn, prefix, bot_id))


def poll_seats(conn: redis.Redis, prefix: str, bot_id: str) -> list[dict[str, Any]]:
    """The bot's current ladder seats, by match and game number."""
    raw = conn.hgetall(keys.arena_poll_seats(prefix, bot_id))
    return sorted((json.loads(v) for v in raw.values()), key=lambda e: (e["match"], e["game_no"]))

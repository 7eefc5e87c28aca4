"""The arena's Redis state, one section a module: ladders, ratings, matches, results, health.

Every key comes from ``core.keys``; the one write that must never happen twice (a match's result and its
ratings) is one Lua script that also sets the match's idempotency key (``core.arena.store.results``).
"""

from __future__ import annotations

import redis

from core import keys
from core.arena.store.health import HealthStore
from core.arena.store.ladders import LadderStore
from core.arena.store.matches import MatchStore
from core.arena.store.ratings import RatingStore
from core.arena.store.results import FINISHED_MATCH_TTL_S, HISTORY_LIMIT, REPLAY_TTL_S, ResultStore
from core.redis.connections import decoding_client, redis_client


class ArenaStore(LadderStore, RatingStore, MatchStore, ResultStore, HealthStore):
    """Every section over one connection and key prefix (build it from Settings: ``core.stores``)."""

    def __init__(self, conn: redis.Redis, prefix: str = keys.DEFAULT_PREFIX,
                 record_limit: int = HISTORY_LIMIT, wait_ms: int = 0, match_ttl_s: int = FINISHED_MATCH_TTL_S,
                 replay_ttl_s: int = REPLAY_TTL_S) -> None:
        self.redis = decoding_client(conn)  # RQ hands jobs a bytes client; the arena reads JSON strings
        self.prefix = prefix
        self.record_limit = record_limit
        self.wait_ms = wait_ms
        self.match_ttl_s = match_ttl_s
        self.replay_ttl_s = replay_ttl_s

    @classmethod
    def from_url(cls, url: str, prefix: str = keys.DEFAULT_PREFIX) -> ArenaStore:
        return cls(redis_client(url, decode_responses=True), prefix)

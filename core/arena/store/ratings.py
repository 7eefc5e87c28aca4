"""The arena store's ratings section: ratings, the ranking's pages, per-bot stats, history and versions."""

from __future__ import annotations

import json
from typing import Any

import redis

from core import keys
from core.arena.model import HOUSE_PREFIX
from core.arena.store.base import StoreBase
from core.redis.connections import StrRedis

MAX_VERSION_CHARS = 64
DEFAULT_VERSION = "1"  # a bot that never reported one (the SDKs' default too)
HOUSE_VERSION = "house"


def bot_versions(conn: StrRedis, prefix: str, bot_ids: list[str]) -> dict[str, str]:
    """Each bot's current version: the one last reported; house bots are "house"; never reported: "1"."""
    pipe = conn.pipeline(transaction=False)
    for bot_id in bot_ids:
        pipe.hget(keys.arena_health(prefix, bot_id), "version")
    return {bot_id: version or (HOUSE_VERSION if bot_id.startswith(HOUSE_PREFIX) else DEFAULT_VERSION)
            for bot_id, version in zip(bot_ids, pipe.execute(), strict=True)}


class RatingStore(StoreBase):
    def ratings(self, ladder_id: str) -> dict[str, float]:
        return dict(self.redis.zrange(keys.arena_ratings(self.prefix, ladder_id), 0, -1, withscores=True))

    def ratings_of(self, ladder_id: str, bot_ids: list[str]) -> dict[str, float]:
        """The ratings of `bot_ids` that are on the ladder."""
        if not bot_ids:
            return {}
        scores = self.redis.zmscore(keys.arena_ratings(self.prefix, ladder_id), bot_ids)
        return {b: float(s) for b, s in zip(bot_ids, scores, strict=True) if s is not None}

    def rating(self, ladder_id: str, bot_id: str) -> float | None:
        """The bot's rating on the ladder, None if it has never been on it."""
        rating: float | None = self.redis.zscore(keys.arena_ratings(self.prefix, ladder_id), bot_id)
        return rating

    def ranked(self, ladder_id: str) -> list[tuple[str, float]]:
        key = keys.arena_ratings(self.prefix, ladder_id)
        ranked: list[tuple[str, float]] = self.redis.zrevrange(key, 0, -1, withscores=True)
        return ranked

    def ensure_ranking(self, ladder_id: str) -> None:
        """Build the ranking's sorted sets from the ratings and stats once (a ladder rated before they
        existed); every later rating change keeps them (APPLY_RESULT_LUA, the void script)."""
        p = self.prefix
        if self.redis.exists(keys.arena_ranking_built(p, ladder_id)):
            return
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(keys.arena_ratings(p, ladder_id))
                    ratings = dict(pipe.zrange(keys.arena_ratings(p, ladder_id), 0, -1, withscores=True))
                    stats = self.stats(ladder_id, list(ratings))
                    pipe.multi()
                    pipe.delete(keys.arena_ranked(p, ladder_id), keys.arena_unrated(p, ladder_id))
                    ranked = {b: r for b, r in ratings.items() if stats[b]["completed"]}
                    if ranked:
                        pipe.zadd(keys.arena_ranked(p, ladder_id), ranked)
                    if len(ranked) < len(ratings):
                        new = {b: 0 for b in ratings if b not in ranked}
                        pipe.zadd(keys.arena_unrated(p, ladder_id), new)
                    pipe.set(keys.arena_ranking_built(p, ladder_id), "1")
                    pipe.execute()
                    return
                except redis.WatchError:
                    continue

    def matches_played(self, ladder_id: str, bot_ids: list[str]) -> dict[str, int]:
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hget(keys.arena_stats(self.prefix, ladder_id, bot_id), "matches")
        return {b: int(m or 0) for b, m in zip(bot_ids, pipe.execute(), strict=True)}

    def ranking_page(self, ladder_id: str, offset: int, limit: int
                     ) -> tuple[list[tuple[str, float]], list[str], int, int]:
        """One page of the ranking: bots with a rated match by rating, then the new ones by id.

        Returns (ranked bots with their ratings, new bot ids, how many are ranked, how many are new); the
        page holds positions ``offset`` .. ``offset + limit - 1`` of that order. O(log n + limit).
        """
        p = self.prefix
        built, ranked_total, new_total, ranked = self._ranked_page(ladder_id, offset, limit)
        if not built:  # once per ladder: the page is read in the same round trip as this check
            self.ensure_ranking(ladder_id)
            _, ranked_total, new_total, ranked = self._ranked_page(ladder_id, offset, limit)
        new: list[str] = []
        if len(ranked) < limit:
            start = max(0, offset - ranked_total)
            new = self.redis.zrange(keys.arena_unrated(p, ladder_id), start, start + limit - len(ranked) - 1)
        return ranked, new, ranked_total, new_total

    def _ranked_page(self, ladder_id: str, offset: int, limit: int) -> list[Any]:
        """Whether the ranking's sets are built, the ranked and new counts, and the ranked bots of a page."""
        p = self.prefix
        pipe = self.redis.pipeline(transaction=False)
        pipe.exists(keys.arena_ranking_built(p, ladder_id))
        pipe.zcard(keys.arena_ranked(p, ladder_id))
        pipe.zcard(keys.arena_unrated(p, ladder_id))
        pipe.zrevrange(keys.arena_ranked(p, ladder_id), offset, offset + limit - 1, withscores=True)
        answers: list[Any] = pipe.execute()
        return answers

    def ranked_position(self, ladder_id: str, bot_id: str) -> int | None:
        """A bot's 0-based place among the ranked bots of a ladder, None if it has no rated match."""
        self.ensure_ranking(ladder_id)
        place: int | None = self.redis.zrevrank(keys.arena_ranked(self.prefix, ladder_id), bot_id)
        return place

    def stats(self, ladder_id: str, bot_ids: list[str]) -> dict[str, dict[str, float | None]]:
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hgetall(keys.arena_stats(self.prefix, ladder_id, bot_id))
        out: dict[str, dict[str, float | None]] = {}
        for bot_id, raw in zip(bot_ids, pipe.execute(), strict=True):
            calls = int(raw.get("move_calls", 0))
            out[bot_id] = {
                "matches": int(raw.get("matches", 0)), "wins": int(raw.get("wins", 0)),
                # rated before this count existed: every rated match counts as completed
                "completed": int(raw.get("completed", raw.get("matches", 0))),
                "strikes": int(raw.get("strikes", 0)), "forfeits": int(raw.get("forfeits", 0)),
                "move_calls": calls,
                "mean_latency_ms": round(float(raw.get("latency_ms_sum", 0)) / calls, 3) if calls else None,
            }
        return out

    def history(self, ladder_id: str, bot_id: str, limit: int = 100) -> list[dict[str, Any]]:
        raw = self.redis.lrange(keys.arena_history(self.prefix, ladder_id, bot_id), 0, limit - 1)
        return [json.loads(item) for item in raw]

    def record_version(self, bot_id: str, version: str) -> None:
        """The version a bot reports (an HTTP bot's GET /, a polling bot's ladder-seats?version=)."""
        self.redis.hset(keys.arena_health(self.prefix, bot_id), "version", version[:MAX_VERSION_CHARS])

    def versions(self, bot_ids: list[str]) -> dict[str, str]:
        """Each bot's current version (``bot_versions``)."""
        return bot_versions(self.redis, self.prefix, bot_ids)

    def version_lines(self, ladder_id: str, bot_id: str) -> list[dict[str, Any]]:
        """A bot's rating line per version on a ladder, oldest first: version, start, rating, matches,
        wins."""
        raw = self.redis.hgetall(keys.arena_versions(self.prefix, ladder_id, bot_id))
        lines = [{"version": version, **json.loads(line)} for version, line in raw.items()]
        return sorted(lines, key=lambda line: line["first"])

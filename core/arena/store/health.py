"""The arena store's health section: bot health checks, URL blocks, and the bench after forfeits."""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from typing import Any

from core import keys
from core.arena.presence import present_bots
from core.arena.store.base import LuaScript, StoreBase

HEALTH_FAILURES_TO_PAUSE = 3
PRESENCE_S = 10.0  # a ladder's default presence window (LadderConfig.presence_s)
FORFEITS_TO_BENCH = 3  # forfeited matches in a row (per ladder) that bench a bot ...
BENCH_S = 600  # ... for this long the first time, whatever its health checks say; each further bench ...
BENCH_MAX_S = 24 * 3600  # ... doubles it, up to a day ...
CLEAN_TO_FORGIVE = 20  # ... until the bot plays this many matches in a row without forfeiting
# The reason a bot whose URL the arena's address policy refuses is out of matchmaking starts with this. The
# owner did nothing wrong at the time (an operator stopped allowing private addresses, or the host moved to
# one), so it is a pause with a reason, never a failed check, a strike or a forfeit.
URL_DISALLOWED = "url_disallowed"

# Health check bookkeeping in one step: consecutive failures and the paused flag can never disagree.
# KEYS: 1 health hash. ARGV: 1 ok (1/0), 2 now, 3 error text, 4 failures to pause, 5 latency ms.
# Returns paused (0/1). A passing check reached the bot, so its URL is allowed: it lifts a URL block too.
HEALTH_LUA = """
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'failures', 0, 'paused', 0, 'checked_at', ARGV[2], 'last_error', '',
             'latency_ms', ARGV[5], 'answered_at', ARGV[2])
  redis.call('HDEL', KEYS[1], 'url_blocked')
  return 0
end
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
local paused = 0
if failures >= tonumber(ARGV[4]) then paused = 1 end
redis.call('HSET', KEYS[1], 'paused', paused, 'checked_at', ARGV[2], 'last_error', ARGV[3],
           'latency_ms', ARGV[5])
return paused
"""



class HealthStore(StoreBase):
    _health = LuaScript(HEALTH_LUA)

    def record_health(self, bot_id: str, ok: bool, error: str = "", latency_ms: float = 0.0) -> bool:
        """Record one health check; returns True if the bot is (now) paused."""
        return bool(self._health(keys=[keys.arena_health(self.prefix, bot_id)],
                                 args=["1" if ok else "0", repr(time.time()), error[:300],
                                       HEALTH_FAILURES_TO_PAUSE, repr(round(latency_ms, 3))]))

    def block_urls(self, reasons: Mapping[str, str | None]) -> None:
        """Pause each bot whose URL the address policy refuses, with the reason; lift it where it is None.

        Only the block is written: the failure count, strikes and ratings stay as they are.
        """
        pipe = self.redis.pipeline(transaction=False)
        for bot_id, reason in reasons.items():
            health = keys.arena_health(self.prefix, bot_id)
            if reason is None:
                pipe.hdel(health, "url_blocked")
            else:
                pipe.hset(health, "url_blocked", f"{URL_DISALLOWED}: {reason}"[:500])
        pipe.execute()

    def health(self, bot_id: str) -> dict[str, Any]:
        raw = self.redis.hgetall(keys.arena_health(self.prefix, bot_id))
        health = {"failures": int(raw.get("failures", 0)), "paused": raw.get("paused") == "1",
                  "checked_at": float(raw["checked_at"]) if raw.get("checked_at") else None,
                  "last_error": raw.get("last_error") or None,
                  "benched_until": float(raw["paused_until"]) if raw.get("paused_until") else None,
                  "bench_reason": raw.get("bench_reason") or None,
                  "latency_ms": float(raw["latency_ms"]) if raw.get("latency_ms") else None,
                  "url_blocked": raw.get("url_blocked") or None,
                  "answered_at": float(raw["answered_at"]) if raw.get("answered_at") else None}
        # Paused: out until something changes (a passing check, an allowed URL); benched bots wait out a time.
        health["paused"] = health["paused"] or health["url_blocked"] is not None
        return {**health, "reason": pause_reason(health, time.time())}

    def health_failures(self, bot_ids: list[str]) -> dict[str, int]:
        """Failed health checks in a row of each bot (0 for a bot never checked)."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hget(keys.arena_health(self.prefix, bot_id), "failures")
        return {b: int(f or 0) for b, f in zip(bot_ids, pipe.execute(), strict=True)}

    def matchmaking_reason(self, bot_id: str, url: str | None) -> str | None:
        """Why the bot is out of matchmaking (``pause_reason``), or, for a bot with a URL that has never
        passed a health check, that it waits for one; None while it can be seated (a polling bot: while it
        polls, ``present``)."""
        health = self.health(bot_id)
        reason: str | None = health["reason"]
        if reason is None and url and health["answered_at"] is None:
            return (f"waiting for its first passing health check: the arena seats it once GET {url} answers "
                    "(the scheduler checks a new bot, or a new URL, within seconds)")
        return reason

    def present(self, bot_id: str) -> bool:
        """A polling bot is around to be seated (a ladder's default presence window)."""
        return bool(present_bots(self.redis, self.prefix, [bot_id], PRESENCE_S))

    def paused_bots(self, bot_ids: list[str], need_answer: Collection[str] = ()) -> set[str]:
        """Bots out of matchmaking: failing health checks, benched after forfeiting matches in a row, or,
        among `need_answer` (bots with a URL), never yet past a health check: a bot that never answers plays
        no match, and so is never ranked."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hmget(keys.arena_health(self.prefix, bot_id),
                       ["paused", "paused_until", "url_blocked", "answered_at"])
        now = time.time()
        return {b for b, (flag, until, blocked, answered) in zip(bot_ids, pipe.execute(), strict=True)
                if flag == "1" or (until is not None and float(until) > now) or blocked
                or (b in need_answer and not answered)}


def pause_reason(health: dict[str, Any], now: float) -> str | None:
    """Why a bot is out of matchmaking, in words for its owner; None while it can be matched.

    >>> pause_reason({"url_blocked": "url_disallowed: private", "paused": True}, 0.0)
    'url_disallowed: private'
    >>> pause_reason({"paused": True, "failures": 3, "last_error": "timeout: no answer"}, 0.0)
    'health_check_failed: 3 failed health checks in a row (last: timeout: no answer)'
    >>> pause_reason({"benched_until": 70.0, "bench_reason": "benched for 600 s: ...", "last_error": "?"}, 1)
    'benched for 600 s: ... (69 s left)'
    >>> pause_reason({"paused": False, "benched_until": 5.0}, 10.0) is None
    True
    """
    if health.get("url_blocked"):  # first: no health check can pass until the URL or the policy changes
        return str(health["url_blocked"])
    if health.get("paused"):
        return (f"health_check_failed: {health.get('failures', 0)} failed health checks in a row "
                f"(last: {health.get('last_error')})")
    until = health.get("benched_until")
    if until is not None and until > now:
        # The bench's own reason: a health check meanwhile writes its error apart (last_error).
        return f"{health.get('bench_reason') or 'benched'} ({int(until - now)} s left)"
    return None

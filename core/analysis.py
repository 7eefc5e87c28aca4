"""One seat's analysis of one finished game, kept in Redis: requested once, progress, result or failure.

One Lua call decides whether a request is new (then the caller enqueues the job), already queued, running or
done, or refused for the queue's cap or the requester's share (:func:`share_decision`).
Design: docs/api.md#analysis-of-a-finished-game
"""

from __future__ import annotations

import enum
import json
import time
from dataclasses import dataclass
from typing import Any

import redis

from core import keys
from core.redis.connections import decoding_client

RESULT_TTL = 24 * 3600
QUEUED_TTL = 3600
STALL_TTL = 600
FAILED_TTL = 3600


class AnalysisStatus(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class RequestOutcome(enum.Enum):
    """What :meth:`AnalysisStore.request` did: NEW (enqueue the job now), EXISTING (nothing to do), FULL
    (refused: too many pending), SHARE_EXHAUSTED (refused: too many of the requester's own pending)."""

    NEW = "new"
    EXISTING = "existing"
    FULL = "full"
    SHARE_EXHAUSTED = "share"


class ShareDecision(enum.Enum):
    """Whether a new analysis may be queued, given what is pending (:func:`share_decision`)."""

    ADMIT = 1
    QUEUE_FULL = -1
    SHARE_EXHAUSTED = -2


def share_decision(pending_total: int, pending_owner: int, max_total: int,
                   max_per_owner: int) -> ShareDecision:
    """The rule REQUEST_LUA applies (its return codes are these values).

    The owner's share is checked first: an owner at its share is refused whatever room the queue has, so it
    is told the reason that stays true (its own analyses) rather than one that may change under it.

    >>> share_decision(5, 1, 20, 3), share_decision(5, 3, 20, 3), share_decision(20, 1, 20, 3)
    (<ShareDecision.ADMIT: 1>, <ShareDecision.SHARE_EXHAUSTED: -2>, <ShareDecision.QUEUE_FULL: -1>)
    """
    if pending_owner >= max_per_owner:
        return ShareDecision.SHARE_EXHAUSTED
    if pending_total >= max_total:
        return ShareDecision.QUEUE_FULL
    return ShareDecision.ADMIT


@dataclass(frozen=True)
class AnalysisSubject:
    """Which analysis: a game of a ladder match (``game_no``) or an API table (``game_no`` None), a seat and
    the search budget per decision (a different budget is a different analysis).

    >>> subject = AnalysisSubject.for_match("m1", 2, seat=1, budget_ms=250)
    >>> subject.key, AnalysisSubject.parse(subject.key) == subject
    ('match:m1:2:1:250', True)
    >>> AnalysisSubject.for_table("t9", seat=0, budget_ms=40).key
    'table:t9:-:0:40'
    """

    source: str  # "match" or "table"
    source_id: str
    game_no: int | None
    seat: int
    budget_ms: int

    @classmethod
    def for_match(cls, match_id: str, game_no: int, seat: int, budget_ms: int) -> AnalysisSubject:
        return cls("match", match_id, game_no, seat, budget_ms)

    @classmethod
    def for_table(cls, table_id: str, seat: int, budget_ms: int) -> AnalysisSubject:
        return cls("table", table_id, None, seat, budget_ms)

    @property
    def key(self) -> str:
        game = "-" if self.game_no is None else str(self.game_no)
        return f"{self.source}:{self.source_id}:{game}:{self.seat}:{self.budget_ms}"

    @classmethod
    def parse(cls, key: str) -> AnalysisSubject:
        """The subject a :attr:`key` names (ids never hold ':'; they are URL path segments of the API)."""
        source, source_id, game, seat, budget = key.split(":")
        if source not in ("match", "table"):
            raise ValueError(f"not an analysis subject: {key!r}")
        return cls(source, source_id, None if game == "-" else int(game), int(seat), int(budget))


# KEYS: 1 the analysis hash, 2 the pending set, 3 the owner's pending set. ARGV: 1 subject, 2 now, 3 cap on
# pending, 4 queued TTL, 5 seconds after which a pending entry is stale (its hash expired: worker lost),
# 6 budget_ms, 7 owner, 8 cap on the owner's pending. Returns {1 new | 0 existing | ShareDecision code,
# status}: an analysis queued, running or done is answered before anything is counted.
REQUEST_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if status and status ~= 'failed' then return {0, status} end
local now = tonumber(ARGV[2])
local stale = now - tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', stale)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', stale)
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local total, own = redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3])
-- share_decision (above), in the same order
if own >= tonumber(ARGV[8]) then return {-2, 'share'} end
if total >= tonumber(ARGV[3]) then return {-1, 'full'} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'status', 'queued', 'done', 0, 'total', 0, 'budget_ms', ARGV[6],
           'queued_at', ARGV[2], 'owner', ARGV[7])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[3], now, ARGV[1])
-- an owner's set outlives none of its entries, so the sets of addresses gone for good do not pile up
redis.call('EXPIRE', KEYS[3], tonumber(ARGV[5]))
return {1, 'queued'}
"""

# KEYS: 1 the analysis hash. ARGV: 1 done, 2 total, 3 TTL. Only an analysis still queued or running moves.
PROGRESS_LUA = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'running', 'done', ARGV[1], 'total', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""


# REQUEST_LUA's return codes: 1 and 0, else a refusing ShareDecision.
OUTCOMES = {1: RequestOutcome.NEW, 0: RequestOutcome.EXISTING,
            ShareDecision.QUEUE_FULL.value: RequestOutcome.FULL,
            ShareDecision.SHARE_EXHAUSTED.value: RequestOutcome.SHARE_EXHAUSTED}


class AnalysisStore:
    """Requests, progress and results of analyses under one key prefix."""

    def __init__(self, conn: redis.Redis, prefix: str = keys.DEFAULT_PREFIX, max_pending: int = 20,
                 max_pending_per_owner: int = 3) -> None:
        self.redis = decoding_client(conn)
        self.prefix = prefix
        self.max_pending = max_pending
        self.max_pending_per_owner = max_pending_per_owner
        self._request = self.redis.register_script(REQUEST_LUA)
        self._progress = self.redis.register_script(PROGRESS_LUA)

    def _key(self, subject: AnalysisSubject) -> str:
        return keys.analysis(self.prefix, subject.key)

    def request(self, subject: AnalysisSubject, owner: str, now: float | None = None
                ) -> tuple[RequestOutcome, str]:
        """Queue the analysis for ``owner`` (the client address) unless it is queued, running or done
        already, or the owner's share or the pending cap is reached.

        Returns the outcome and the analysis status. Only NEW asks the caller to enqueue the job, so
        requests repeated (or made at once from many clients) queue it once.
        """
        now = time.time() if now is None else now
        code, status = self._request(
            keys=[self._key(subject), keys.analysis_pending(self.prefix),
                  keys.analysis_owner_pending(self.prefix, owner)],
            args=[subject.key, now, self.max_pending, QUEUED_TTL, QUEUED_TTL + STALL_TTL, subject.budget_ms,
                  owner, self.max_pending_per_owner])
        return OUTCOMES[int(code)], str(status)

    def progress(self, subject: AnalysisSubject, done: int, total: int) -> bool:
        """Record ``done`` of ``total`` decisions (now running); False if it is no longer pending."""
        return bool(self._progress(keys=[self._key(subject)], args=[done, total, STALL_TTL]))

    def finish(self, subject: AnalysisSubject, result: dict[str, Any]) -> None:
        """Store the result (kept RESULT_TTL) and free its place in the pending cap."""
        self._end(subject, RESULT_TTL, status=AnalysisStatus.DONE.value, result=json.dumps(result),
                  done=len(result.get("decisions", [])), total=len(result.get("decisions", [])))

    def fail(self, subject: AnalysisSubject, reason: str) -> None:
        """Record why the analysis failed (kept FAILED_TTL; a new request retries it)."""
        self._end(subject, FAILED_TTL, status=AnalysisStatus.FAILED.value, reason=reason[:500])

    def _end(self, subject: AnalysisSubject, ttl: int, **fields: Any) -> None:
        key = self._key(subject)
        # Only a new request changes the owner, and none is taken while the analysis is still pending.
        owner = self.redis.hget(key, "owner")
        pipe = self.redis.pipeline()
        pipe.hset(key, mapping=fields)
        pipe.expire(key, ttl)
        pipe.zrem(keys.analysis_pending(self.prefix), subject.key)
        if owner is not None:
            pipe.zrem(keys.analysis_owner_pending(self.prefix, owner), subject.key)
        pipe.execute()

    def get(self, subject: AnalysisSubject) -> dict[str, Any] | None:
        """``{status, progress: {done, total}, result?, reason?}``; None if never asked for (or expired)."""
        raw = self.redis.hgetall(self._key(subject))
        if not raw or "status" not in raw:
            return None
        progress = {"done": int(raw.get("done", 0)), "total": int(raw.get("total", 0))}
        state: dict[str, Any] = {"status": AnalysisStatus(raw["status"]).value, "progress": progress}
        if raw.get("result"):
            state["result"] = json.loads(raw["result"])
        if raw.get("reason"):
            state["reason"] = raw["reason"]
        return state

    def pending(self) -> int:
        """Analyses queued or running (stale entries included until the next request sweeps them)."""
        return int(self.redis.zcard(keys.analysis_pending(self.prefix)))

    def pending_for(self, owner: str) -> int:
        """The owner's analyses queued or running (stale entries included, as in :meth:`pending`)."""
        return int(self.redis.zcard(keys.analysis_owner_pending(self.prefix, owner)))

"""The arena store's matches section: match documents, their attempts and leases, the live feed, the lists."""

from __future__ import annotations

import json
import time
from typing import Any, NotRequired, TypedDict, cast

from core import keys
from core.arena.live import LIVE_TTL_S, WATCHED_TTL_S
from core.arena.model import FINAL_STATUSES, MatchSpec, MatchStatus
from core.arena.store.base import LuaScript, StoreBase
from core.redis.watched import read_modify_write

MATCH_TTL_S = 14 * 24 * 3600  # a match document that never finishes (its ladder deleted) expires
RECENT_KEEP = 300  # the ladder's most recent matches listed (a busy ladder makes ~30 000 a day)
RECENT_LIMIT = 10 * RECENT_KEEP  # hard bound on the recent list even when no scheduler trims it
APPLIED_TTL_S = 60 * 24 * 3600  # far beyond any job retry: a re-run can never re-apply
STOPPED_REASON = "worker stopped"

# The `ARGV[2]` ids after id `ARGV[1]` in list `KEYS[1]`, in one step (the list may grow meanwhile); nil if
# that id is not in the list.
RECENT_AFTER_LUA = """
local i = redis.call('LPOS', KEYS[1], ARGV[1])
if not i then return nil end
return redis.call('LRANGE', KEYS[1], i + 1, i + tonumber(ARGV[2]))
"""

# Extend the leases `KEYS` each held by the worker in the ARGV pair (worker, milliseconds) of the same rank,
# in one step: a lease that lapsed, or that another worker took after it, is left alone. Returns how many.
REFRESH_LEASES_LUA = """
local kept = 0
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[2 * i - 1] then
    redis.call('PEXPIRE', key, ARGV[2 * i])
    kept = kept + 1
  end
end
return kept
"""


class MatchDoc(TypedDict):
    """A match's document (``GET /api/matches/{id}`` shows it): its spec, where it stands, and its result."""

    match_id: str
    ladder_id: str  # "" for a challenge
    status: str  # a MatchStatus value
    spec: dict[str, Any]  # MatchSpec.to_json()
    attempts: int  # runs started (a worker that stopped gave its run back: `stopped`)
    created: float
    worker: NotRequired[str]  # the worker of the latest attempt
    started: NotRequired[float]
    stopped: NotRequired[int]
    requeued_because: NotRequired[str]
    aborted_because: NotRequired[str]
    finished: NotRequired[float]
    result: NotRequired[dict[str, Any]]  # MatchResult.summary_json() and the bots' versions
    challenge: NotRequired[dict[str, str]]  # a challenge's owner and challenger (core.arena.challenges)
    tournament: NotRequired[dict[str, Any]]  # its event and round (core.arena.tournament_store)
    voided: NotRequired[dict[str, Any]]  # an operator voided the rated match (core.arena.moderation)


class MatchStore(StoreBase):
    _recent_after = LuaScript(RECENT_AFTER_LUA)
    _refresh_leases = LuaScript(REFRESH_LEASES_LUA)

    def create_match(self, spec: MatchSpec) -> None:
        doc: MatchDoc = {"match_id": spec.match_id, "ladder_id": spec.ladder_id,
                         "status": MatchStatus.QUEUED.value, "spec": spec.to_json(), "attempts": 0,
                         "created": spec.created or time.time()}
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.arena_match(self.prefix, spec.match_id), json.dumps(doc), ex=MATCH_TTL_S)
        pipe.sadd(keys.arena_active(self.prefix, spec.ladder_id), spec.match_id)
        pipe.set(keys.arena_last_group(self.prefix, spec.ladder_id),
                 json.dumps(sorted(m.bot_id for m in spec.entrants)))
        pipe.execute()

    def match(self, match_id: str) -> MatchDoc | None:
        raw = self.redis.get(keys.arena_match(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def match_docs(self, match_ids: list[str]) -> list[MatchDoc | None]:
        """The documents of `match_ids` in one round trip (None where one is gone)."""
        if not match_ids:
            return []
        raws = self.redis.mget([keys.arena_match(self.prefix, match_id) for match_id in match_ids])
        return [json.loads(raw) if raw else None for raw in raws]

    def publish_live(self, match_id: str, snapshot: dict[str, Any]) -> None:
        """The public table of the match's current game, for spectators (core.arena.live); expires on its
        own."""
        self.redis.set(keys.arena_match_live(self.prefix, match_id), json.dumps(snapshot), ex=LIVE_TTL_S)

    def mark_watched(self, match_id: str) -> None:
        """Somebody reads the match's live table: the worker refreshes it for the next ``WATCHED_TTL_S``.
        Watches that ended leave the set here; the set itself goes once nobody has watched for a while."""
        key, now = keys.arena_watched_matches(self.prefix), time.time()
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(key, {match_id: now + WATCHED_TTL_S})
        pipe.zremrangebyscore(key, "-inf", now)
        pipe.expire(key, 2 * WATCHED_TTL_S)
        pipe.execute()

    def watched_matches(self) -> set[str]:
        """The matches somebody reads now (by the clock of this machine: machines kept in step by NTP
        disagree by far less than a watch lasts)."""
        ids = self.redis.zrangebyscore(keys.arena_watched_matches(self.prefix), f"({time.time()}", "+inf")
        return {raw.decode() if isinstance(raw, bytes) else raw for raw in ids}

    def watched(self, match_id: str) -> bool:
        until = self.redis.zscore(keys.arena_watched_matches(self.prefix), match_id)
        return until is not None and until > time.time()

    def live(self, match_id: str) -> MatchDoc | None:
        raw = self.redis.get(keys.arena_match_live(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def match_log(self, match_id: str) -> dict[str, list[list[Any]]] | None:
        """Each bot's decision log of a finished match (core.arena.decisions); None once it expired."""
        raw = self.redis.get(keys.arena_match_log(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def match_games(self, match_id: str) -> list[dict[str, Any]] | None:
        raw = self.redis.get(keys.arena_match_games(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def active_matches(self, ladder_id: str) -> list[str]:
        return sorted(self.redis.smembers(keys.arena_active(self.prefix, ladder_id)))

    def last_group(self, ladder_id: str) -> frozenset[str] | None:
        raw = self.redis.get(keys.arena_last_group(self.prefix, ladder_id))
        return frozenset(json.loads(raw)) if raw else None

    def update_match(self, match_id: str, **changes: Any) -> MatchDoc | None:
        """Read-modify-write of the match document under WATCH (status moves are rare and small)."""
        key = keys.arena_match(self.prefix, match_id)

        def update(pipe: Any, raw: str | None) -> MatchDoc | None:
            if raw is None:
                return None
            doc: MatchDoc = json.loads(raw)
            if doc["status"] in FINAL_STATUSES:
                return doc  # final states never change
            values = {k: (v.value if isinstance(v, MatchStatus) else v) for k, v in changes.items()}
            doc = cast(MatchDoc, {**doc, **values})
            pipe.multi()
            pipe.set(key, json.dumps(doc), keepttl=True)
            return doc

        return read_modify_write(self.redis, key, update)

    def start_attempt(self, match_id: str, worker: str, lease_s: float) -> MatchDoc | None:
        doc = self.match(match_id)
        if doc is None or doc["status"] in FINAL_STATUSES:
            return doc
        self.refresh_lease(match_id, worker, lease_s)
        return self.update_match(match_id, status=MatchStatus.RUNNING, attempts=doc["attempts"] + 1,
                                 worker=worker, started=time.time())

    def refresh_lease(self, match_id: str, worker: str, lease_s: float) -> None:
        self.redis.set(keys.arena_match_lease(self.prefix, match_id), worker, px=int(lease_s * 1000))

    def refresh_leases(self, leases: list[tuple[str, str, float]]) -> int:
        """Extend each (match id, worker, lease seconds) still held by that worker, in one round trip (a
        worker process's matches in flight, together); how many were."""
        if not leases:
            return 0
        args: list[str | int] = []
        for _match_id, worker, lease_s in leases:
            args += [worker, int(lease_s * 1000)]
        kept: int = self._refresh_leases(keys=[keys.arena_match_lease(self.prefix, m) for m, _, _ in leases],
                                         args=args)
        return kept

    def lease_holders(self, match_ids: list[str]) -> list[str | None]:
        """The workers holding the leases of `match_ids` (None where a lease is gone), in one round trip."""
        if not match_ids:
            return []
        leases = [keys.arena_match_lease(self.prefix, m) for m in match_ids]
        holders: list[str | None] = self.redis.mget(leases)
        return holders

    def lease_holder(self, match_id: str) -> str | None:
        holder: str | None = self.redis.get(keys.arena_match_lease(self.prefix, match_id))
        return holder

    def abandon_attempt(self, match_id: str, worker: str, detail: str) -> MatchDoc | None:
        """A stopping worker gave the match back: queued again (the scheduler re-enqueues it), lease released.

        `stopped` counts these runs apart from `attempts`, so stopping the service never uses up the attempts
        after which a failing match is aborted.
        """
        doc = self.match(match_id)
        if doc is None:
            return None
        if self.lease_holder(match_id) == worker:
            self.redis.delete(keys.arena_match_lease(self.prefix, match_id))
        return self.update_match(match_id, status=MatchStatus.QUEUED, stopped=doc.get("stopped", 0) + 1,
                                 requeued_because=f"{STOPPED_REASON} ({detail})")

    def requeue_match(self, match_id: str, reason: str) -> MatchDoc | None:
        return self.update_match(match_id, status=MatchStatus.QUEUED, requeued_because=reason)

    def abort_match(self, ladder_id: str, match_id: str, reason: str) -> None:
        """Final: the match costs nobody any rating (it was never applied, and now never will be)."""
        doc = self.update_match(match_id, status=MatchStatus.ABORTED, aborted_because=reason,
                                finished=time.time())
        pipe = self.redis.pipeline(transaction=True)
        pipe.srem(keys.arena_active(self.prefix, ladder_id), match_id)
        if doc is not None and doc["status"] == MatchStatus.ABORTED:
            # Claim the idempotency key: a zombie worker finishing this match later cannot rate it.
            pipe.set(keys.arena_match_applied(self.prefix, match_id), f"aborted {time.time()}", nx=True,
                     ex=APPLIED_TTL_S)
            pipe.lpush(keys.arena_recent(self.prefix, ladder_id), match_id)
            pipe.ltrim(keys.arena_recent(self.prefix, ladder_id), 0, RECENT_LIMIT - 1)
        pipe.execute()

    def recent_matches(self, ladder_id: str, limit: int = 20, after: str | None = None) -> list[str] | None:
        """The ladder's finished matches, newest first: the first `limit`, or the `limit` after match `after`
        (None if `after` is no longer in the list). Paging by match id never shifts when matches finish."""
        key = keys.arena_recent(self.prefix, ladder_id)
        if after is None:
            recent: list[str] = self.redis.lrange(key, 0, limit - 1)
            return recent
        page: list[str] | None = self._recent_after(keys=[key], args=[after, limit])
        return page

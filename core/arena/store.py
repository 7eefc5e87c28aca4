"""The arena's Redis state: ladders, members, ratings, per-bot stats and history, matches, health.

Every key comes from ``core.keys`` (arena section). The one write that must never happen twice — applying a
match's rating changes — is a single Lua script that checks and sets the match's idempotency key in the same
atomic step as every rating, stat, history and match-status write.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import redis

from core import keys
from core.arena.elo import INITIAL_RATING
from core.arena.live import LIVE_TTL_S
from core.arena.model import (
    FINAL_STATUSES,
    HOUSE_PREFIX,
    LadderConfig,
    MatchResult,
    MatchSpec,
    MatchStatus,
    Member,
    MemberKind,
)
from core.redis.connections import StrRedis, decoding_client, redis_client
from core.redis.scripts import run_and_wait

# Retention: a finished match's document and replays are kept while anything links to them: the ladder's
# recent list (its RECENT_KEEP newest matches) or the record of any of its bots (each bot's HISTORY_LIMIT
# newest matches per ladder). A reference count per match says how many still do; at 0 both are deleted, so
# a bot's record never links to a match that is gone. Ratings, stats and rating history are kept forever.
MATCH_TTL_S = 14 * 24 * 3600  # a match document that never finishes (its ladder deleted) expires
# ... and on top of the links, time: a finished match's replays (nine tenths of its bytes) expire
# REPLAY_TTL_S after it finished, its document FINISHED_MATCH_TTL_S after (TA_REPLAY_TTL, TA_MATCH_TTL).
REPLAY_TTL_S = 3 * 24 * 3600
FINISHED_MATCH_TTL_S = 30 * 24 * 3600
RECENT_KEEP = 300  # the ladder's most recent matches listed (a busy ladder makes ~30 000 a day)
RECENT_LIMIT = 10 * RECENT_KEEP  # hard bound on the recent list even when no scheduler trims it
APPLIED_TTL_S = 60 * 24 * 3600  # far beyond any job retry: a re-run can never re-apply
HISTORY_LIMIT = 500
HEALTH_FAILURES_TO_PAUSE = 3
MAX_VERSION_CHARS = 64
DEFAULT_VERSION = "1"  # a bot that never reported one (the SDKs' default too)
HOUSE_VERSION = "house"
FORFEITS_TO_BENCH = 3  # forfeited matches in a row (per ladder) that bench a bot ...
BENCH_S = 600  # ... for this long the first time, whatever its health checks say; each further bench ...
BENCH_MAX_S = 24 * 3600  # ... doubles it, up to a day ...
CLEAN_TO_FORGIVE = 20  # ... until the bot plays this many matches in a row without forfeiting
# The reason a bot whose URL the arena's address policy refuses is out of matchmaking starts with this. The
# owner did nothing wrong at the time (an operator stopped allowing private addresses, or the host moved to
# one), so it is a pause with a reason, never a failed check, a strike or a forfeit.
URL_DISALLOWED = "url_disallowed"

# KEYS: 1 applied, 2 match doc, 3 ratings zset, 4 recent list, 5 active set, 6 games doc,
#       then per bot: stats hash, history list, health hash, record zset, versions hash; then the match's
#       reference count, the ladder's ranked zset and its unrated zset (the ranking's pages).
# ARGV: 1 match id, 2 now, 3 bot count, 4 final match doc, 5 games doc, 6 recent limit, 7 history limit,
#       8 record limit, 9 applied ttl, 10 initial rating, 11 forfeits in a row that bench a bot, 12 first
#       bench seconds, 13 longest bench seconds, 14 clean matches in a row that reset the bench length,
#       15 rated (1/0), then 10 per bot: bot id, delta, won, strikes, forfeited, latency sum, move calls,
#       place, record entry (a JSON object; the script adds the rating after the match), version; after
#       them: 16 + 10 * bots: the match document's TTL, then the replays' TTL (seconds).
# Returns {0} if the match was applied before, else {1, ids of the matches that a record or the recent list
# stopped linking to} (the caller releases those: see RELEASE_MATCH_LUA).
# A match that is not rated (every bot forfeited) moves no rating, adds no rated match, win or history point;
# its strikes, forfeits, calls and the bots' records are kept.
# A bot's versions each keep a rating line: the ladder rating carries on across a new version (its line
# starts at the previous version's rating), and the versions hash records where each line started and
# stands, with its rated matches and wins.
APPLY_RESULT_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0}
end
local n = tonumber(ARGV[3])
local dropped = {}
local rated = ARGV[15] == '1'
for i = 0, n - 1 do
  local a = 16 + i * 10
  local bot = ARGV[a]
  local delta = tonumber(ARGV[a + 1])
  redis.call('ZADD', KEYS[3], 'NX', ARGV[10], bot)
  local rating
  if rated then
    rating = redis.call('ZINCRBY', KEYS[3], delta, bot)
  else
    rating = redis.call('ZSCORE', KEYS[3], bot)
  end
  local stats = KEYS[7 + i * 5]
  local history = KEYS[8 + i * 5]
  local health = KEYS[9 + i * 5]
  local record = KEYS[10 + i * 5]
  local versions = KEYS[11 + i * 5]
  local version = ARGV[a + 9]
  if rated then
    redis.call('HINCRBY', stats, 'matches', 1)
    redis.call('HINCRBY', stats, 'wins', tonumber(ARGV[a + 2]))
    local raw_line = redis.call('HGET', versions, version)
    local line
    if raw_line then
      line = cjson.decode(raw_line)
    else
      line = {start = tonumber(rating) - delta, matches = 0, wins = 0, first = tonumber(ARGV[2])}
    end
    line.rating = tonumber(rating)
    line.matches = line.matches + 1
    line.wins = line.wins + tonumber(ARGV[a + 2])
    line.last = tonumber(ARGV[2])
    redis.call('HSET', versions, version, cjson.encode(line))
    redis.call('ZADD', KEYS[#KEYS - 1], rating, bot)
    redis.call('ZREM', KEYS[#KEYS], bot)
  end
  redis.call('HINCRBY', stats, 'strikes', tonumber(ARGV[a + 3]))
  redis.call('HINCRBY', stats, 'forfeits', tonumber(ARGV[a + 4]))
  if tonumber(ARGV[a + 4]) == 1 then
    -- A bot that keeps forfeiting sits out a while even if its health check passes, longer each time.
    redis.call('HSET', stats, 'clean_streak', 0)
    if redis.call('HINCRBY', stats, 'forfeit_streak', 1) >= tonumber(ARGV[11]) then
      redis.call('HSET', stats, 'forfeit_streak', 0)
      local level = redis.call('HINCRBY', stats, 'bench_level', 1)
      local bench = math.min(tonumber(ARGV[12]) * 2 ^ (level - 1), tonumber(ARGV[13]))
      redis.call('HSET', health, 'paused_until', tonumber(ARGV[2]) + bench,
                 'last_error', 'benched for ' .. bench .. ' s: forfeited ' .. ARGV[11] .. ' matches in a row')
    end
  else
    redis.call('HSET', stats, 'forfeit_streak', 0)
    if redis.call('HINCRBY', stats, 'clean_streak', 1) >= tonumber(ARGV[14]) then
      redis.call('HSET', stats, 'bench_level', 0)
    end
  end
  redis.call('HINCRBYFLOAT', stats, 'latency_ms_sum', ARGV[a + 5])
  redis.call('HINCRBY', stats, 'move_calls', tonumber(ARGV[a + 6]))
  if rated then
    redis.call('LPUSH', history, cjson.encode({match = ARGV[1], rating = tonumber(rating), delta = delta,
                                               place = tonumber(ARGV[a + 7]), at = tonumber(ARGV[2]),
                                               version = version}))
    redis.call('LTRIM', history, 0, tonumber(ARGV[7]) - 1)
  end
  local top = redis.call('ZREVRANGE', record, 0, 0, 'WITHSCORES')
  local seq = 1
  if top[2] then seq = tonumber(top[2]) + 1 end
  local entry = string.sub(ARGV[a + 8], 1, -2) .. ',"rating":' .. tostring(tonumber(rating)) .. '}'
  redis.call('ZADD', record, seq, entry)
  local limit = tonumber(ARGV[8])
  for _, old in ipairs(redis.call('ZRANGE', record, 0, -(limit + 1))) do
    table.insert(dropped, cjson.decode(old).match)
  end
  redis.call('ZREMRANGEBYRANK', record, 0, -(limit + 1))
end
local ttl_at = 16 + n * 10
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[ttl_at])
redis.call('SET', KEYS[6], ARGV[5], 'EX', ARGV[ttl_at + 1])
redis.call('SET', KEYS[#KEYS - 2], n + 1, 'EX', ARGV[ttl_at])
redis.call('LPUSH', KEYS[4], ARGV[1])
for _, old in ipairs(redis.call('LRANGE', KEYS[4], tonumber(ARGV[6]), -1)) do
  table.insert(dropped, old)
end
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[6]) - 1)
redis.call('SREM', KEYS[5], ARGV[1])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[9])
return {1, unpack(dropped)}
"""

# One list stopped linking to a finished match: count it down, and delete the match's document and replays
# when nothing links to it any more. KEYS: 1 reference count, 2 match doc, 3 games doc. Returns 1 if deleted.
# A match without a count (an aborted one: only the recent list links to it) goes with its first release.
RELEASE_MATCH_LUA = """
if redis.call('DECR', KEYS[1]) > 0 then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1
"""

# Health check bookkeeping in one step: consecutive failures and the paused flag can never disagree.
# KEYS: 1 health hash. ARGV: 1 ok (1/0), 2 now, 3 error text, 4 failures to pause, 5 latency ms.
# Returns paused (0/1). A passing check reached the bot, so its URL is allowed: it lifts a URL block too.
HEALTH_LUA = """
if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'failures', 0, 'paused', 0, 'checked_at', ARGV[2], 'last_error', '',
             'latency_ms', ARGV[5])
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


def record_entry(spec: MatchSpec, result: MatchResult, bot_id: str, strikes: list[dict[str, Any]],
                 now: float, version: str) -> dict[str, Any]:
    """What a bot's own record keeps of one finished match (it outlives the match document)."""
    return {"match": spec.match_id, "ladder": spec.ladder_id, "game": spec.game, "at": now,
            "status": (MatchStatus.RATED if result.rated else MatchStatus.VOID).value,
            "players": spec.players, "place": result.places[bot_id], "delta": result.deltas[bot_id],
            "won": bot_id in result.winners, "forfeited": bot_id in result.forfeited, "version": version,
            "strikes": [{k: s[k] for k in ("game_no", "version", "reason", "detail")} for s in strikes]}


# The `ARGV[2]` ids after id `ARGV[1]` in list `KEYS[1]`, in one step (the list may grow meanwhile); nil if
# that id is not in the list.
RECENT_AFTER_LUA = """
local i = redis.call('LPOS', KEYS[1], ARGV[1])
if not i then return nil end
return redis.call('LRANGE', KEYS[1], i + 1, i + tonumber(ARGV[2]))
"""


STOPPED_REASON = "worker stopped"


class ArenaStore:
    def __init__(self, conn: redis.Redis, prefix: str = keys.DEFAULT_PREFIX,
                 record_limit: int = HISTORY_LIMIT, wait_ms: int = 0, match_ttl_s: int = FINISHED_MATCH_TTL_S,
                 replay_ttl_s: int = REPLAY_TTL_S) -> None:
        conn = decoding_client(conn)  # RQ hands jobs a bytes client; the arena reads JSON strings
        self.wait_ms = wait_ms  # a rating is applied once a replica has it, or after this (0: at once)
        self.redis: StrRedis = conn
        self.prefix = prefix
        self.record_limit = record_limit  # a bot's record on a ladder lists its newest this-many matches
        self.match_ttl_s = match_ttl_s  # a finished match's document expires this long after it finished
        self.replay_ttl_s = replay_ttl_s  # ... and its replays this long (at most as long as the document)
        self._apply = conn.register_script(APPLY_RESULT_LUA)
        self._release = conn.register_script(RELEASE_MATCH_LUA)
        self._health = conn.register_script(HEALTH_LUA)
        self._recent_after = conn.register_script(RECENT_AFTER_LUA)

    @classmethod
    def from_url(cls, url: str, prefix: str = keys.DEFAULT_PREFIX) -> ArenaStore:
        return cls(redis_client(url, decode_responses=True), prefix)

    # --- ladders and members -------------------------------------------------------------------------------

    def save_ladder(self, config: LadderConfig) -> None:
        """Create or update a ladder; its house bots become (permanent) members rated from 1500, and house
        bots an update no longer names stop being matched (their rating and history stay, as a removed
        registered bot's do)."""
        p = self.prefix
        wanted = [Member.house(name) for name in config.house_bots or ()]
        retired = [m.bot_id for m in self.members(config.ladder_id) if m.kind is MemberKind.HOUSE
                   and m.bot_id not in {w.bot_id for w in wanted}]
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.arena_ladder(p, config.ladder_id), json.dumps(config.to_json()))
        pipe.incr(keys.bots_generation(p))  # its house bots may have changed: the scheduler re-reads members
        pipe.sadd(keys.arena_ladders(p), config.ladder_id)
        if retired:
            pipe.hdel(keys.arena_members(p, config.ladder_id), *retired)
        for member in wanted:
            pipe.hset(keys.arena_members(p, config.ladder_id), member.bot_id, json.dumps(member.to_json()))
            pipe.zadd(keys.arena_ratings(p, config.ladder_id), {member.bot_id: INITIAL_RATING}, nx=True)
        answers = pipe.execute()
        if wanted:
            self._add_unrated(config.ladder_id, [m.bot_id for m in wanted], answers[-2 * len(wanted) + 1::2])

    def ladder(self, ladder_id: str) -> LadderConfig | None:
        raw = self.redis.get(keys.arena_ladder(self.prefix, ladder_id))
        return LadderConfig.from_json(json.loads(raw)) if raw else None

    def ladders(self) -> list[LadderConfig]:
        ids = sorted(self.redis.smembers(keys.arena_ladders(self.prefix)))
        return [ladder for ladder in (self.ladder(i) for i in ids) if ladder is not None]

    def members(self, ladder_id: str) -> list[Member]:
        raw = self.redis.hgetall(keys.arena_members(self.prefix, ladder_id))
        return [Member.from_json(json.loads(v)) for _, v in sorted(raw.items())]

    def members_of(self, ladder_id: str, bot_ids: list[str]) -> dict[str, Member]:
        """The members among `bot_ids` by bot id (one that left the ladder is missing)."""
        if not bot_ids:
            return {}
        raws = self.redis.hmget(keys.arena_members(self.prefix, ladder_id), bot_ids)
        return {b: Member.from_json(json.loads(raw)) for b, raw in zip(bot_ids, raws, strict=True) if raw}

    def member_count(self, ladder_id: str) -> int:
        return int(self.redis.hlen(keys.arena_members(self.prefix, ladder_id)))

    def member_names(self, ladder_id: str) -> dict[str, str]:
        """Display name of every member by bot id (the bot id where a member has no name)."""
        return {m.bot_id: m.name or m.bot_id for m in self.members(ladder_id)}

    def set_members(self, ladder_id: str, wanted: list[Member]) -> tuple[list[str], list[str]]:
        """Make the registered (non-house) members exactly `wanted`; returns (added, removed) bot ids.

        A removed bot keeps its rating and history (it may come back); it just is not matched any more.
        """
        p = self.prefix
        current = {m.bot_id: m for m in self.members(ladder_id) if m.kind is not MemberKind.HOUSE}
        wanted_by_id = {m.bot_id: m for m in wanted}
        removed = [b for b in current if b not in wanted_by_id]
        changed = [m for b, m in wanted_by_id.items() if current.get(b) != m]
        if not removed and not changed:
            return [], []
        pipe = self.redis.pipeline(transaction=True)
        if removed:
            pipe.hdel(keys.arena_members(p, ladder_id), *removed)
        for member in changed:
            pipe.hset(keys.arena_members(p, ladder_id), member.bot_id, json.dumps(member.to_json()))
            pipe.zadd(keys.arena_ratings(p, ladder_id), {member.bot_id: INITIAL_RATING}, nx=True)
        answers = pipe.execute()
        if changed:
            self._add_unrated(ladder_id, [m.bot_id for m in changed], answers[-2 * len(changed) + 1::2])
        return [m.bot_id for m in changed if m.bot_id not in current], removed

    def _add_unrated(self, ladder_id: str, bot_ids: list[str], added: list[int]) -> None:
        """List the bots whose rating was just created (`added`: ZADD NX's answers) as new on the ranking."""
        fresh = {bot_id: 0 for bot_id, one in zip(bot_ids, added, strict=True) if one}
        if fresh:
            self.redis.zadd(keys.arena_unrated(self.prefix, ladder_id), fresh)

    # --- ratings and stats ---------------------------------------------------------------------------------

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
                    matches = self.matches_played(ladder_id, list(ratings))
                    pipe.multi()
                    pipe.delete(keys.arena_ranked(p, ladder_id), keys.arena_unrated(p, ladder_id))
                    ranked = {b: r for b, r in ratings.items() if matches[b] > 0}
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
                "strikes": int(raw.get("strikes", 0)), "forfeits": int(raw.get("forfeits", 0)),
                "move_calls": calls,
                "mean_latency_ms": round(float(raw.get("latency_ms_sum", 0)) / calls, 3) if calls else None,
            }
        return out

    def history(self, ladder_id: str, bot_id: str, limit: int = 100) -> list[dict[str, Any]]:
        raw = self.redis.lrange(keys.arena_history(self.prefix, ladder_id, bot_id), 0, limit - 1)
        return [json.loads(item) for item in raw]

    # --- versions ------------------------------------------------------------------------------------------

    def record_version(self, bot_id: str, version: str) -> None:
        """The version a bot reports (an HTTP bot's GET /, a polling bot's ladder-seats?version=)."""
        self.redis.hset(keys.arena_health(self.prefix, bot_id), "version", version[:MAX_VERSION_CHARS])

    def versions(self, bot_ids: list[str]) -> dict[str, str]:
        """Each bot's current version: the one last reported; house bots are "house"; never reported: "1"."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hget(keys.arena_health(self.prefix, bot_id), "version")
        return {bot_id: version or (HOUSE_VERSION if bot_id.startswith(HOUSE_PREFIX) else DEFAULT_VERSION)
                for bot_id, version in zip(bot_ids, pipe.execute(), strict=True)}

    def version_lines(self, ladder_id: str, bot_id: str) -> list[dict[str, Any]]:
        """A bot's rating line per version on a ladder, oldest first: version, start, rating, matches,
        wins."""
        raw = self.redis.hgetall(keys.arena_versions(self.prefix, ladder_id, bot_id))
        lines = [{"version": version, **json.loads(line)} for version, line in raw.items()]
        return sorted(lines, key=lambda line: line["first"])

    def recent_matches(self, ladder_id: str, limit: int = 20, after: str | None = None) -> list[str] | None:
        """The ladder's finished matches, newest first: the first `limit`, or the `limit` after match `after`
        (None if `after` is no longer in the list). Paging by match id never shifts when matches finish."""
        key = keys.arena_recent(self.prefix, ladder_id)
        if after is None:
            recent: list[str] = self.redis.lrange(key, 0, limit - 1)
            return recent
        page: list[str] | None = self._recent_after(keys=[key], args=[after, limit])
        return page

    # --- matches -------------------------------------------------------------------------------------------

    def create_match(self, spec: MatchSpec) -> None:
        doc = {"match_id": spec.match_id, "ladder_id": spec.ladder_id, "status": MatchStatus.QUEUED.value,
               "spec": spec.to_json(), "attempts": 0, "created": spec.created or time.time()}
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.arena_match(self.prefix, spec.match_id), json.dumps(doc), ex=MATCH_TTL_S)
        pipe.sadd(keys.arena_active(self.prefix, spec.ladder_id), spec.match_id)
        pipe.set(keys.arena_last_group(self.prefix, spec.ladder_id),
                 json.dumps(sorted(m.bot_id for m in spec.entrants)))
        pipe.execute()

    def match(self, match_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(keys.arena_match(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def match_docs(self, match_ids: list[str]) -> list[dict[str, Any] | None]:
        """The documents of `match_ids` in one round trip (None where one is gone)."""
        if not match_ids:
            return []
        raws = self.redis.mget([keys.arena_match(self.prefix, match_id) for match_id in match_ids])
        return [json.loads(raw) if raw else None for raw in raws]

    def publish_live(self, match_id: str, snapshot: dict[str, Any]) -> None:
        """The public table of the match's current game, for spectators (core.arena.live); expires on its
        own."""
        self.redis.set(keys.arena_match_live(self.prefix, match_id), json.dumps(snapshot), ex=LIVE_TTL_S)

    def live(self, match_id: str) -> dict[str, Any] | None:
        raw = self.redis.get(keys.arena_match_live(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def match_games(self, match_id: str) -> list[dict[str, Any]] | None:
        raw = self.redis.get(keys.arena_match_games(self.prefix, match_id))
        return json.loads(raw) if raw else None

    def active_matches(self, ladder_id: str) -> list[str]:
        return sorted(self.redis.smembers(keys.arena_active(self.prefix, ladder_id)))

    def last_group(self, ladder_id: str) -> frozenset[str] | None:
        raw = self.redis.get(keys.arena_last_group(self.prefix, ladder_id))
        return frozenset(json.loads(raw)) if raw else None

    def update_match(self, match_id: str, **changes: Any) -> dict[str, Any] | None:
        """Read-modify-write of the match document under WATCH (status moves are rare and small)."""
        key = keys.arena_match(self.prefix, match_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    pipe.watch(key)
                    raw = pipe.get(key)
                    if raw is None:
                        return None
                    doc: dict[str, Any] = json.loads(raw)
                    if doc["status"] in FINAL_STATUSES:
                        return doc  # final states never change
                    doc.update({k: (v.value if isinstance(v, MatchStatus) else v)
                                for k, v in changes.items()})
                    pipe.multi()
                    pipe.set(key, json.dumps(doc), keepttl=True)
                    pipe.execute()
                    return doc
                except redis.WatchError:
                    continue

    def start_attempt(self, match_id: str, worker: str, lease_s: float) -> dict[str, Any] | None:
        doc = self.match(match_id)
        if doc is None or doc["status"] in FINAL_STATUSES:
            return doc
        self.refresh_lease(match_id, worker, lease_s)
        return self.update_match(match_id, status=MatchStatus.RUNNING, attempts=doc["attempts"] + 1,
                                 worker=worker, started=time.time())

    def refresh_lease(self, match_id: str, worker: str, lease_s: float) -> None:
        self.redis.set(keys.arena_match_lease(self.prefix, match_id), worker, px=int(lease_s * 1000))

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

    def abandon_attempt(self, match_id: str, worker: str, detail: str) -> dict[str, Any] | None:
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

    def requeue_match(self, match_id: str, reason: str) -> dict[str, Any] | None:
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

    def apply_result(self, spec: MatchSpec, result: MatchResult, doc: dict[str, Any]) -> bool:
        """Store the result and apply every rating change, once per match. True if this call did it.

        A match every bot forfeited is stored as ``void``: recorded (strikes, forfeits, the bots' records),
        but it moves no rating and counts as no rated match and no win.
        """
        p, lid, mid = self.prefix, spec.ladder_id, spec.match_id
        now = time.time()
        status = MatchStatus.RATED if result.rated else MatchStatus.VOID
        versions = self.versions([m.bot_id for m in spec.entrants])
        final = {**doc, "status": status.value, "finished": now,
                 "result": {**result.summary_json(), "versions": versions}}
        bot_keys: list[str] = []
        bot_args: list[Any] = []
        for member in spec.entrants:
            bot = member.bot_id
            calls = result.calls.get(bot)
            strikes = [s.to_json() for s in result.strikes if s.bot_id == bot]
            bot_keys += [keys.arena_stats(p, lid, bot), keys.arena_history(p, lid, bot),
                         keys.arena_health(p, bot), keys.arena_record(p, lid, bot),
                         keys.arena_versions(p, lid, bot)]
            bot_args += [bot, repr(result.deltas[bot]), int(bot in result.winners),
                         len(strikes), int(bot in result.forfeited),
                         repr(calls.latency_sum_ms if calls else 0.0), calls.move_calls if calls else 0,
                         repr(float(result.places[bot])),
                         json.dumps(record_entry(spec, result, bot, strikes, now, versions[bot])),
                         versions[bot]]
        script_keys = [keys.arena_match_applied(p, mid), keys.arena_match(p, mid), keys.arena_ratings(p, lid),
                       keys.arena_recent(p, lid), keys.arena_active(p, lid), keys.arena_match_games(p, mid),
                       *bot_keys, keys.arena_match_refs(p, mid), keys.arena_ranked(p, lid),
                       keys.arena_unrated(p, lid)]
        args = [mid, repr(now), len(spec.entrants), json.dumps(final), json.dumps(result.records),
                RECENT_LIMIT, HISTORY_LIMIT, self.record_limit, APPLIED_TTL_S, repr(INITIAL_RATING),
                FORFEITS_TO_BENCH, BENCH_S, BENCH_MAX_S, CLEAN_TO_FORGIVE, int(result.rated), *bot_args,
                self.match_ttl_s, min(self.replay_ttl_s, self.match_ttl_s)]
        if self.wait_ms:  # answered once a replica has the rating (core.redis.scripts.replicated)
            applied, *dropped = run_and_wait(self.redis, self._apply, script_keys, args, self.wait_ms)
        else:
            applied, *dropped = self._apply(keys=script_keys, args=args)
        self.release_matches(dropped)
        return bool(applied)

    def release_matches(self, match_ids: list[str]) -> int:
        """One link to each of `match_ids` is gone; returns how many matches nothing links to any more (their
        document and replays are deleted)."""
        if not match_ids:
            return 0
        pipe = self.redis.pipeline(transaction=False)  # one round trip: a match releases up to five at once
        for mid in match_ids:
            self._release(keys=[keys.arena_match_refs(self.prefix, mid), keys.arena_match(self.prefix, mid),
                                keys.arena_match_games(self.prefix, mid)], client=pipe)
        return sum(int(deleted) for deleted in pipe.execute())

    def bot_record(self, ladder_id: str, bot_id: str, limit: int = 20,
                   before: int | None = None) -> tuple[list[dict[str, Any]], int | None]:
        """A page of a bot's finished matches on a ladder, newest first, and the cursor of the next page.

        ``before``: the cursor a previous page returned (None: the newest). The cursor is the sequence number
        of the page's last entry, so pages never shift when new matches finish meanwhile.
        """
        top = "+inf" if before is None else f"({before}"
        raw = self.redis.zrevrangebyscore(keys.arena_record(self.prefix, ladder_id, bot_id), top, "-inf",
                                          start=0, num=limit + 1, withscores=True)
        entries = [{**json.loads(item), "seq": int(score)} for item, score in raw[:limit]]
        return entries, (entries[-1]["seq"] if len(raw) > limit else None)

    def trim_recent(self, ladder_id: str, keep: int = RECENT_KEEP) -> int:
        """List only the `keep` most recent matches; returns how many documents that deleted.

        A match no longer listed keeps its document and replays while a bot's record still links to it.
        Ratings, stats and history entries stay; the idempotency keys stay too (they expire on their own),
        so a forgotten match can still never be rated twice.
        """
        recent = keys.arena_recent(self.prefix, ladder_id)
        old = self.redis.lrange(recent, keep, -1)
        if not old:
            return 0
        self.redis.ltrim(recent, 0, keep - 1)
        return self.release_matches(old)

    def is_applied(self, match_id: str) -> bool:
        return bool(self.redis.exists(keys.arena_match_applied(self.prefix, match_id)))

    # --- health --------------------------------------------------------------------------------------------

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
                  "latency_ms": float(raw["latency_ms"]) if raw.get("latency_ms") else None,
                  "url_blocked": raw.get("url_blocked") or None}
        # Paused: out until something changes (a passing check, an allowed URL); benched bots wait out a time.
        health["paused"] = health["paused"] or health["url_blocked"] is not None
        return {**health, "reason": pause_reason(health, time.time())}

    def health_failures(self, bot_ids: list[str]) -> dict[str, int]:
        """Failed health checks in a row of each bot (0 for a bot never checked)."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hget(keys.arena_health(self.prefix, bot_id), "failures")
        return {b: int(f or 0) for b, f in zip(bot_ids, pipe.execute(), strict=True)}

    def paused_bots(self, bot_ids: list[str]) -> set[str]:
        """Bots out of matchmaking: failing health checks, or benched after forfeiting matches in a row."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hmget(keys.arena_health(self.prefix, bot_id), ["paused", "paused_until", "url_blocked"])
        now = time.time()
        return {b for b, (flag, until, blocked) in zip(bot_ids, pipe.execute(), strict=True)
                if flag == "1" or (until is not None and float(until) > now) or blocked}


def pause_reason(health: dict[str, Any], now: float) -> str | None:
    """Why a bot is out of matchmaking, in words for its owner; None while it can be matched.

    >>> pause_reason({"url_blocked": "url_disallowed: private", "paused": True}, 0.0)
    'url_disallowed: private'
    >>> pause_reason({"paused": True, "failures": 3, "last_error": "timeout: no answer"}, 0.0)
    'health_check_failed: 3 failed health checks in a row (last: timeout: no answer)'
    >>> pause_reason({"benched_until": 70.0, "last_error": "benched for 600 s: ..."}, 10.0)
    'benched for 600 s: ... (60 s left)'
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
        return f"{health.get('last_error') or 'benched'} ({int(until - now)} s left)"
    return None

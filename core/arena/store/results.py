"""The arena store's results section: applying a match's result and ratings once, and what it links to."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from core import keys
from core.arena.decisions import compact_json
from core.arena.elo import INITIAL_RATING
from core.arena.model import MatchResult, MatchSpec, MatchStatus
from core.arena.store.base import LuaScript, StoreBase
from core.arena.store.health import BENCH_MAX_S, BENCH_S, CLEAN_TO_FORGIVE, FORFEITS_TO_BENCH
from core.arena.store.matches import APPLIED_TTL_S, RECENT_KEEP, RECENT_LIMIT, MatchDoc
from core.arena.store.ratings import bot_versions
from core.redis.scripts import run_and_wait
from engine.shapes import Record

# Retention: a finished match's document and replays are kept while anything links to them: the ladder's
# recent list (its RECENT_KEEP newest matches) or the record of any of its bots (each bot's HISTORY_LIMIT
# newest matches per ladder). A reference count per match says how many still do; at 0 both are deleted, so
# a bot's record never links to a match that is gone. Ratings, stats and rating history are kept forever.
# ... and on top of the links, time: a finished match's replays (nine tenths of its bytes) expire
# REPLAY_TTL_S after it finished, its document FINISHED_MATCH_TTL_S after (TA_REPLAY_TTL, TA_MATCH_TTL).
REPLAY_TTL_S = 3 * 24 * 3600
FINISHED_MATCH_TTL_S = 30 * 24 * 3600
HISTORY_LIMIT = 500

# The arguments are laid out by ResultArgs (below).
# KEYS: 1 applied, 2 match doc, 3 ratings zset, 4 recent list, 5 active set, 6 games doc, 7 decision log,
#       then per bot: stats hash, history list, health hash, record zset, versions hash; then the match's
#       reference count, the ladder's ranked zset and its unrated zset (the ranking's pages).
# ARGV: 1 match id, 2 now, 3 bot count, 4 final match doc, 5 games doc, 6 recent limit, 7 history limit,
#       8 record limit, 9 applied ttl, 10 initial rating, 11 forfeits in a row that bench a bot, 12 first
#       bench seconds, 13 longest bench seconds, 14 clean matches in a row that reset the bench length,
#       15 rated (1/0), then 10 per bot: bot id, delta, won, strikes, forfeited, latency sum, move calls,
#       place, record entry (a JSON object; the script adds the rating after the match), version; after
#       them: 16 + 10 * bots: the match document's TTL, then the replays' TTL (seconds), then the decision
#       log (JSON: each bot's rows, core.arena.decisions), kept as long as the replays.
# Returns {0} if the match was applied before, else {1, ids of the matches that a record or the recent list
# stopped linking to} (the caller releases those: see RELEASE_MATCH_LUA).
# A match that is not rated (every bot forfeited) moves no rating, adds no rated match, win or history point;
# its strikes, forfeits, calls and the bots' records are kept. A bot is in the ranked zset (ranked) once it
# has `completed` a rated match: finished it without forfeiting; until then it stays with the new bots.
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
  local stats = KEYS[8 + i * 5]
  local history = KEYS[9 + i * 5]
  local health = KEYS[10 + i * 5]
  local record = KEYS[11 + i * 5]
  local versions = KEYS[12 + i * 5]
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
    -- Ranked from its first rated match finished without forfeiting: a bot that has never answered is
    -- never ranked (above one that has). A bot rated before this count existed counts its earlier matches.
    if redis.call('HEXISTS', stats, 'completed') == 0 then
      redis.call('HSET', stats, 'completed', tonumber(redis.call('HGET', stats, 'matches')) - 1)
    end
    if tonumber(ARGV[a + 4]) == 0 then
      redis.call('HINCRBY', stats, 'completed', 1)
    end
    if tonumber(redis.call('HGET', stats, 'completed')) > 0 then
      redis.call('ZADD', KEYS[#KEYS - 1], rating, bot)
      redis.call('ZREM', KEYS[#KEYS], bot)
    end
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
      redis.call('HSET', health, 'paused_until', tonumber(ARGV[2]) + bench, 'bench_reason',
                 'benched for ' .. bench .. ' s: forfeited ' .. ARGV[11] .. ' matches in a row')
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
redis.call('SET', KEYS[7], ARGV[ttl_at + 2], 'EX', ARGV[ttl_at + 1])
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
# when nothing links to it any more. KEYS: 1 reference count, 2 match doc, 3 games doc, 4 decision log.
# Returns 1 if deleted.
# A match without a count (an aborted one: only the recent list links to it) goes with its first release.
RELEASE_MATCH_LUA = """
if redis.call('DECR', KEYS[1]) > 0 then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return 1
"""

def record_entry(spec: MatchSpec, result: MatchResult, bot_id: str, now: float,
                 version: str) -> dict[str, Any]:
    """What a bot's own record keeps of one finished match (it outlives the match document)."""
    strikes = [s.to_json() for s in result.strikes if s.bot_id == bot_id]
    return {"match": spec.match_id, "ladder": spec.ladder_id, "game": spec.game, "at": now,
            "status": (MatchStatus.RATED if result.rated else MatchStatus.VOID).value,
            "players": spec.players, "place": result.places[bot_id], "delta": result.deltas[bot_id],
            "won": bot_id in result.winners, "forfeited": bot_id in result.forfeited, "version": version,
            "strikes": [{k: s[k] for k in ("game_no", "version", "reason", "detail")} for s in strikes]}


@dataclass(frozen=True)
class BotLine:
    """One bot's part of a result, as the rating script reads it (ten ARGV each, in this order)."""

    bot_id: str
    delta: float
    won: bool
    strikes: int
    forfeited: bool
    latency_sum_ms: float
    move_calls: int
    place: float
    record_entry: dict[str, Any]  # what the bot's record keeps; the script adds the rating after the match
    version: str

    def argv(self) -> list[str | int]:
        return [self.bot_id, repr(self.delta), int(self.won), self.strikes, int(self.forfeited),
                repr(self.latency_sum_ms), self.move_calls, repr(self.place), json.dumps(self.record_entry),
                self.version]


@dataclass(frozen=True)
class ResultArgs:
    """Everything ``APPLY_RESULT_LUA`` is given, by name; ``keys`` and ``argv`` lay it out as it reads it."""

    match_id: str
    ladder_id: str
    now: float
    final_doc: MatchDoc
    games: list[Record]
    rated: bool
    bots: list[BotLine]
    record_limit: int
    match_ttl_s: int
    replay_ttl_s: int
    decisions: dict[str, list[list[Any]]]  # each bot's decision log (core.arena.decisions)

    def keys(self, prefix: str) -> list[str]:
        p, lid, mid = prefix, self.ladder_id, self.match_id
        per_bot = [key for bot in self.bots for key in (
            keys.arena_stats(p, lid, bot.bot_id), keys.arena_history(p, lid, bot.bot_id),
            keys.arena_health(p, bot.bot_id), keys.arena_record(p, lid, bot.bot_id),
            keys.arena_versions(p, lid, bot.bot_id))]
        return [keys.arena_match_applied(p, mid), keys.arena_match(p, mid), keys.arena_ratings(p, lid),
                keys.arena_recent(p, lid), keys.arena_active(p, lid), keys.arena_match_games(p, mid),
                keys.arena_match_log(p, mid), *per_bot, keys.arena_match_refs(p, mid),
                keys.arena_ranked(p, lid), keys.arena_unrated(p, lid)]

    def argv(self) -> list[str | int]:
        head: list[str | int] = [
            self.match_id, repr(self.now), len(self.bots), json.dumps(self.final_doc), json.dumps(self.games),
            RECENT_LIMIT, HISTORY_LIMIT, self.record_limit, APPLIED_TTL_S, repr(INITIAL_RATING),
            FORFEITS_TO_BENCH, BENCH_S, BENCH_MAX_S, CLEAN_TO_FORGIVE, int(self.rated)]
        tail: list[str | int] = [self.match_ttl_s, min(self.replay_ttl_s, self.match_ttl_s),
                                 compact_json(self.decisions)]
        return [*head, *(arg for bot in self.bots for arg in bot.argv()), *tail]


def result_args(spec: MatchSpec, result: MatchResult, doc: MatchDoc, versions: dict[str, str], now: float,
                record_limit: int, match_ttl_s: int, replay_ttl_s: int) -> ResultArgs:
    """The rating script's arguments for `result` of `spec`, finishing the match document `doc`."""
    status = MatchStatus.RATED if result.rated else MatchStatus.VOID
    final: MatchDoc = {**doc, "status": status.value, "finished": now,
                       "result": {**result.summary_json(), "versions": versions}}
    lines = []
    for bot in (m.bot_id for m in spec.entrants):
        calls = result.calls.get(bot)
        entry = record_entry(spec, result, bot, now, versions[bot])
        lines.append(BotLine(
            bot, result.deltas[bot], bot in result.winners, len(entry["strikes"]), bot in result.forfeited,
            calls.latency_sum_ms if calls else 0.0, calls.move_calls if calls else 0,
            float(result.places[bot]), entry,
            versions[bot]))
    return ResultArgs(spec.match_id, spec.ladder_id, now, final, result.records, result.rated, lines,
                      record_limit, match_ttl_s, replay_ttl_s, result.decisions)


class ResultStore(StoreBase):
    _apply = LuaScript(APPLY_RESULT_LUA)
    _release = LuaScript(RELEASE_MATCH_LUA)
    record_limit: int  # a bot's record on a ladder lists its newest this-many matches
    wait_ms: int  # a rating is applied once a replica has it, or after this (0: at once)
    match_ttl_s: int  # a finished match's document expires this long after it finished
    replay_ttl_s: int  # ... and its replays this long (at most as long as the document)

    def apply_result(self, spec: MatchSpec, result: MatchResult, doc: MatchDoc) -> bool:
        """Store the result and apply every rating change, once per match. True if this call did it.

        A match every bot forfeited is stored as ``void``: recorded (strikes, forfeits, the bots' records),
        but it moves no rating and counts as no rated match and no win.
        """
        versions = bot_versions(self.redis, self.prefix, [m.bot_id for m in spec.entrants])
        args = result_args(spec, result, doc, versions, time.time(), self.record_limit, self.match_ttl_s,
                           self.replay_ttl_s)
        script_keys, argv = args.keys(self.prefix), args.argv()
        if self.wait_ms:  # answered once a replica has the rating (core.redis.scripts.replicated)
            applied, *dropped = run_and_wait(self.redis, self._apply, script_keys, argv, self.wait_ms)
        else:
            applied, *dropped = self._apply(keys=script_keys, args=argv)
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
                                keys.arena_match_games(self.prefix, mid),
                                keys.arena_match_log(self.prefix, mid)], client=pipe)
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

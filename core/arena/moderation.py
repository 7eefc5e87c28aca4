"""What an operator does to bots and matches: suspend a bot or an account, hide a name, void a rated match
(undoing exactly what applying it did, in one Lua step), find the worst.

Design: docs/admin.md#what-each-action-does
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

import redis

from core import keys
from core.arena.accounts import AccountStore
from core.arena.audit import AuditLog
from core.arena.model import HOUSE_PREFIX, MatchStatus
from core.errors import BotNotFound, MatchNotFound, MatchNotVoidable
from core.redis.connections import StrRedis, decoding_client

HIDDEN_PREFIX = "hidden-"
SUSPENDED = "suspended"
NAME_HIDDEN = "name_hidden"

# Set or clear a flag on several bots at once, all or none. KEYS: 1 the suspended set (or the flag's own
# listing), 2.. the bot hashes. ARGV: 1 field, 2 "1" set / "0" clear, 3 reason, 4 now, 5.. the bot ids.
# Returns {-1, index} if bot `index` does not exist (nothing changed), else {1, ids whose flag changed}.
SET_FLAG_LUA = """
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then return {-1, i - 2} end
end
local changed = {}
for i = 2, #KEYS do
  local bot = ARGV[i + 3]
  local before = redis.call('HGET', KEYS[i], ARGV[1]) or '0'
  if before ~= ARGV[2] then table.insert(changed, bot) end
  if ARGV[2] == '1' then
    redis.call('HSET', KEYS[i], ARGV[1], '1', ARGV[1] .. '_reason', ARGV[3], ARGV[1] .. '_at', ARGV[4])
    redis.call('SADD', KEYS[1], bot)
  else
    redis.call('HSET', KEYS[i], ARGV[1], '0')
    redis.call('HDEL', KEYS[i], ARGV[1] .. '_reason', ARGV[1] .. '_at')
    redis.call('SREM', KEYS[1], bot)
  end
end
return {1, unpack(changed)}
"""

# Undo one rated match. KEYS: 1 match doc, 2 the ladder's ratings, then per bot: stats hash, rating history
# list, record zset, versions hash; last the ladder's ranked and unrated zsets. ARGV: 1 the match doc as read
# (compare-and-set: nothing changes if it changed meanwhile), 2 the void doc, 3 match id, 4 when it was
# applied (the doc's `finished`), 5 bot count, then 5 per bot: bot id, delta, won (1/0), version,
# forfeited (1/0). Returns -1 if the doc is gone, 0 if it changed, else 1.
# Numbers go through tonumber() as in APPLY_RESULT_LUA, so each rating moves back by exactly the delta that
# moved it. The record's entries are the API's JSON, edited as text (a decode/encode in Lua would turn its
# empty lists into objects); the history's and the versions' are Lua's own cjson and are decoded.
VOID_MATCH_LUA = """
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
local mid = ARGV[3]
local at = tonumber(ARGV[4])
local needle = '"match": "' .. mid .. '"'
local function shift_rating(raw, delta)
  local head, value = string.match(raw, '^(.*,"rating":)([^,}]+)}$')
  if not head then return raw end
  return head .. tostring(tonumber(value) - delta) .. '}'
end
for i = 0, tonumber(ARGV[5]) - 1 do
  local a = 6 + i * 5
  local bot = ARGV[a]
  local delta = tonumber(ARGV[a + 1])
  local won = tonumber(ARGV[a + 2])
  local version = ARGV[a + 3]
  local stats, history, record, versions = KEYS[3 + i * 4], KEYS[4 + i * 4], KEYS[5 + i * 4], KEYS[6 + i * 4]
  redis.call('ZINCRBY', KEYS[2], -delta, bot)
  redis.call('HINCRBY', stats, 'matches', -1)
  redis.call('HINCRBY', stats, 'wins', 0 - won)  -- never "-0": not an integer to Redis
  if ARGV[a + 4] == '0' and redis.call('HEXISTS', stats, 'completed') == 1 then
    redis.call('HINCRBY', stats, 'completed', -1)
  end
  -- The ranking's pages: a bot left with no completed rated match is not ranked.
  local completed = redis.call('HGET', stats, 'completed') or redis.call('HGET', stats, 'matches') or '0'
  if tonumber(completed) > 0 then
    redis.call('ZADD', KEYS[#KEYS - 1], redis.call('ZSCORE', KEYS[2], bot), bot)
  else
    redis.call('ZREM', KEYS[#KEYS - 1], bot)
    redis.call('ZADD', KEYS[#KEYS], 0, bot)
  end
  -- History, newest first: the points after the match move by its delta, its own point goes.
  local points = redis.call('LRANGE', history, 0, -1)
  for j, raw in ipairs(points) do
    local point = cjson.decode(raw)
    if point.match == mid then
      redis.call('LREM', history, 1, raw)
      break
    end
    point.rating = point.rating - delta
    redis.call('LSET', history, j - 1, cjson.encode(point))
  end
  -- Record: the match's entry says void with no delta; the later entries' ratings move by its delta.
  local entries = redis.call('ZRANGE', record, 0, -1, 'WITHSCORES')
  local seq = nil
  for j = 1, #entries, 2 do
    if string.find(entries[j], needle, 1, true) then seq = tonumber(entries[j + 1]) end
  end
  for j = 1, #entries, 2 do
    local raw, score = entries[j], tonumber(entries[j + 1])
    local new = raw
    if seq == nil or score > seq then
      new = shift_rating(raw, delta)
    elseif score == seq then
      new = string.gsub(raw, '"status": "rated"', '"status": "void"', 1)
      new = string.gsub(new, '"delta": [^,}]+', '"delta": 0.0', 1)
      new = string.sub(shift_rating(new, delta), 1, -2) .. ',"voided":true}'
    end
    if new ~= raw then
      redis.call('ZREM', record, raw)
      redis.call('ZADD', record, score, new)
    end
  end
  -- Rating lines per version: the match's own loses the match; any line reaching past it moves by delta.
  local lines = redis.call('HGETALL', versions)
  for j = 1, #lines, 2 do
    local line = cjson.decode(lines[j + 1])
    if lines[j] == version then
      line.matches = line.matches - 1
      line.wins = line.wins - won
      line.rating = line.rating - delta
    else
      if line.last and line.last > at then line.rating = line.rating - delta end
      if line.first and line.first > at then line.start = line.start - delta end
    end
    redis.call('HSET', versions, lines[j], cjson.encode(line))
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""


def hidden_name(bot_id: str) -> str:
    """The name public views show for a bot whose name the operator hid.

    >>> hidden_name("3f9a0c1d2e4b5a69")
    'hidden-3f9a0c1d'
    """
    return f"{HIDDEN_PREFIX}{bot_id[:8]}"


def public_name(raw: Mapping[str, str]) -> str:
    """The name of a registered bot (its hash, `raw`) as the public sees it.

    >>> public_name({"bot_id": "3f9a0c1d2e4b5a69", "name": "rude", "name_hidden": "1"})
    'hidden-3f9a0c1d'
    >>> public_name({"bot_id": "3f9a0c1d2e4b5a69", "name": "polite"})
    'polite'
    """
    return hidden_name(raw["bot_id"]) if raw.get(NAME_HIDDEN) == "1" else raw["name"]


def moved_by_account(raw: Mapping[str, str], tag: str, suspending: bool) -> bool:
    """Whether suspending (lifting) an account changes this bot of it: suspending takes the bots not yet
    suspended; lifting takes back only the suspensions that carry the account's `tag`, so a bot suspended on
    its own keeps that suspension and its reason either way.

    >>> mine = {"suspended": "1", "suspended_reason": "account a1: spam"}
    >>> moved_by_account(mine, "account a1: ", False), moved_by_account({}, "account a1: ", True)
    (True, True)
    >>> moved_by_account({"suspended": "1", "suspended_reason": "its own"}, "account a1: ", False)
    False
    """
    if suspending:
        return not is_suspended(raw)
    return is_suspended(raw) and raw.get(f"{SUSPENDED}_reason", "").startswith(tag)


def is_suspended(raw: Mapping[str, str]) -> bool:
    """Whether the operator suspended the bot of hash `raw` (the owner's `enabled` is another matter)."""
    return raw.get(SUSPENDED) == "1"


def void_plan(doc: Mapping[str, Any]) -> list[tuple[str, float, int, str, int]]:
    """What voiding the rated match `doc` undoes per bot: (bot id, delta, won 1/0, version rated under,
    forfeited 1/0).

    >>> doc = {"spec": {"entrants": [{"bot_id": "a"}, {"bot_id": "b"}]},
    ...        "result": {"deltas": {"a": 8.5, "b": -8.5}, "winners": ["a"], "forfeited": ["b"],
    ...                   "versions": {"a": "2", "b": "1"}}}
    >>> void_plan(doc)
    [('a', 8.5, 1, '2', 0), ('b', -8.5, 0, '1', 1)]
    """
    result = doc["result"]
    versions = result.get("versions") or {}
    winners = set(result.get("winners") or ())
    forfeited = set(result.get("forfeited") or ())
    return [(bot, float(result["deltas"][bot]), int(bot in winners),
             versions.get(bot) or ("house" if bot.startswith(HOUSE_PREFIX) else "1"), int(bot in forfeited))
            for bot in (m["bot_id"] for m in doc["spec"]["entrants"])]


def voided_doc(doc: Mapping[str, Any], actor: str, reason: str, now: float) -> dict[str, Any]:
    """The match document once voided: status void, rated false, no deltas, and ``voided`` saying who, when,
    why and which deltas were undone.

    >>> doc = {"status": "rated", "result": {"deltas": {"a": 8.5, "b": -8.5}, "rated": True}}
    >>> new = voided_doc(doc, "ops", "collusion", 5.0)
    >>> new["status"], new["result"]["deltas"], new["voided"]["deltas"]
    ('void', {'a': 0.0, 'b': 0.0}, {'a': 8.5, 'b': -8.5})
    """
    result = doc["result"]
    return {**doc, "status": MatchStatus.VOID.value,
            "result": {**result, "rated": False, "deltas": {bot: 0.0 for bot in result["deltas"]}},
            "voided": {"at": now, "by": actor, "reason": reason, "deltas": result["deltas"]}}


class Moderation:
    """Operator actions on the store at (`conn`, `prefix`); each one is written to the audit log."""

    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.redis: StrRedis = decoding_client(conn)
        self.prefix = prefix
        self.audit = AuditLog(conn, prefix)
        self._set_flag = self.redis.register_script(SET_FLAG_LUA)
        self._void = self.redis.register_script(VOID_MATCH_LUA)

    # --- bots --------------------------------------------------------------------------------------------

    def _flag(self, field: str, listing: str, bot_ids: list[str], on: bool, reason: str) -> list[str]:
        bot_ids = list(dict.fromkeys(bot_ids))
        if not bot_ids:
            return []
        answer = self._set_flag(keys=[listing, *(keys.bot(self.prefix, b) for b in bot_ids)],
                                args=[field, "1" if on else "0", reason, repr(time.time()), *bot_ids])
        if int(answer[0]) == -1:
            raise BotNotFound(bot_ids[int(answer[1])])
        self.redis.incr(keys.bots_generation(self.prefix))  # the scheduler re-reads the flagged bots
        return [str(bot) for bot in answer[1:]]

    def suspend_bots(self, bot_ids: list[str], reason: str, actor: str, via: str,
                     suspended: bool = True) -> list[str]:
        """Suspend (or, with ``suspended=False``, reinstate) every bot of `bot_ids`, all or none: a missing
        id raises BotNotFound and changes nothing. Returns the ids whose state changed; each bot gets an
        audit entry (``bot.suspend`` / ``bot.unsuspend``)."""
        changed = self._flag(SUSPENDED, keys.admin_suspended(self.prefix), bot_ids, suspended, reason)
        action = "bot.suspend" if suspended else "bot.unsuspend"
        for bot_id in dict.fromkeys(bot_ids):
            self.audit.record(actor, action, bot_id, reason, via, {"changed": bot_id in changed})
        return changed

    def suspend_account(self, account_id: str, reason: str, actor: str, via: str,
                        suspended: bool = True) -> dict[str, Any]:
        """Disable (``suspended=False``: enable again) an account and suspend (reinstate) its bots.

        Returns the account and the ids of the bots whose suspension changed. A missing account raises
        AccountNotFound and changes nothing. The audit log gets one ``account.suspend`` /
        ``account.unsuspend`` entry and one entry per bot changed."""
        accounts = AccountStore(self.redis, self.prefix)
        account = accounts.set_disabled(account_id, suspended)
        tag = f"account {account_id}: "
        bot_ids = accounts.bot_ids(account_id)
        pipe = self.redis.pipeline(transaction=False)  # every bot hash in one round trip
        for bot_id in bot_ids:
            pipe.hgetall(keys.bot(self.prefix, bot_id))
        raws = pipe.execute()
        moved = [bot_id for bot_id, raw in zip(bot_ids, raws, strict=True)
                 if moved_by_account(raw, tag, suspended)]
        changed = self.suspend_bots(moved, tag + reason, actor, via, suspended=suspended)
        self.audit.record(actor, "account.suspend" if suspended else "account.unsuspend", account_id, reason,
                          via, {"bots": changed})
        return {**account, "bots_changed": changed}

    def set_name_hidden(self, bot_id: str, hidden: bool, reason: str, actor: str, via: str) -> bool:
        """Hide (or show again) the bot's name in every public view, at once: its member entries on the
        ladders are renamed now (the scheduler keeps them so). Returns whether it changed."""
        changed = bool(self._flag(NAME_HIDDEN, keys.admin_hidden(self.prefix), [bot_id], hidden, reason))
        raw = self.redis.hgetall(keys.bot(self.prefix, bot_id))
        name = public_name(raw)
        for ladder_id in self.redis.smembers(keys.arena_ladders(self.prefix)):
            members = keys.arena_members(self.prefix, ladder_id)
            member = self.redis.hget(members, bot_id)
            if member is not None:
                self.redis.hset(members, bot_id, json.dumps({**json.loads(member), "name": name}))
        self.redis.incr(keys.bots_generation(self.prefix))
        self.audit.record(actor, "bot.hide-name" if hidden else "bot.show-name", bot_id, reason, via,
                          {"changed": changed})
        return changed

    def bot(self, bot_id: str) -> dict[str, Any]:
        """The operator's view of a registered bot: its real name and public one, the owner's flag and the
        operator's, with their reasons."""
        raw = self.redis.hgetall(keys.bot(self.prefix, bot_id))
        if not raw:
            raise BotNotFound(bot_id)
        return {"bot_id": bot_id, "name": raw["name"], "public_name": public_name(raw),
                "games": json.loads(raw["games"]), "url": raw.get("url") or None,
                "enabled": raw.get("enabled") == "1", "owner": raw.get("owner"),
                "suspended": is_suspended(raw), "suspended_reason": raw.get(f"{SUSPENDED}_reason"),
                "suspended_at": float(raw[f"{SUSPENDED}_at"]) if raw.get(f"{SUSPENDED}_at") else None,
                "name_hidden": raw.get(NAME_HIDDEN) == "1", "created": float(raw["created"])}

    def suspended_bots(self) -> list[str]:
        return sorted(self.redis.smembers(keys.admin_suspended(self.prefix)))

    def most_strikes(self, limit: int = 20) -> list[dict[str, Any]]:
        """The bots with the most strikes over every ladder, most first: strikes, forfeits and rated matches
        in all, strikes per ladder, and the real name (house bots count too: a strike of theirs is a bug)."""
        totals: dict[str, dict[str, Any]] = {}
        for ladder_id in sorted(self.redis.smembers(keys.arena_ladders(self.prefix))):
            bot_ids = self.redis.zrange(keys.arena_ratings(self.prefix, ladder_id), 0, -1)
            pipe = self.redis.pipeline(transaction=False)
            for bot_id in bot_ids:
                pipe.hmget(keys.arena_stats(self.prefix, ladder_id, bot_id),
                           ["strikes", "forfeits", "matches"])
            for bot_id, (strikes, forfeits, matches) in zip(bot_ids, pipe.execute(), strict=True):
                row = totals.setdefault(bot_id, {"bot_id": bot_id, "strikes": 0, "forfeits": 0, "matches": 0,
                                                 "ladders": {}})
                row["strikes"] += int(strikes or 0)
                row["forfeits"] += int(forfeits or 0)
                row["matches"] += int(matches or 0)
                if int(strikes or 0):
                    row["ladders"][ladder_id] = int(strikes)
        top = sorted((r for r in totals.values() if r["strikes"] > 0),
                     key=lambda r: (-r["strikes"], -r["forfeits"], r["bot_id"]))[:limit]
        pipe = self.redis.pipeline(transaction=False)
        for row in top:
            pipe.hget(keys.bot(self.prefix, row["bot_id"]), "name")
        for row, name in zip(top, pipe.execute(), strict=True):
            house = row["bot_id"].startswith(HOUSE_PREFIX)
            # None: a bot deleted since
            row["name"] = name or (row["bot_id"].removeprefix(HOUSE_PREFIX) if house else None)
        return top

    # --- matches -----------------------------------------------------------------------------------------

    def void_match(self, match_id: str, reason: str, actor: str, via: str) -> dict[str, Any]:
        """Void a rated match, undoing its rating changes exactly (docs/admin.md, "Void a match"); returns the
        void document. MatchNotFound if there is no such document (never created, or deleted since by the
        retention of old matches), MatchNotVoidable (409) unless it is rated now."""
        key = keys.arena_match(self.prefix, match_id)
        while True:
            raw = self.redis.get(key)
            if raw is None:
                raise MatchNotFound(match_id)
            doc = json.loads(raw)
            if doc["status"] != MatchStatus.RATED:
                raise MatchNotVoidable(match_id, doc["status"], "voided" in doc)
            plan = void_plan(doc)
            new = voided_doc(doc, actor, reason, time.time())
            ladder_id = doc["ladder_id"]
            p = self.prefix
            bot_keys = [k for bot, *_ in plan for k in (
                keys.arena_stats(p, ladder_id, bot), keys.arena_history(p, ladder_id, bot),
                keys.arena_record(p, ladder_id, bot), keys.arena_versions(p, ladder_id, bot))]
            answer = int(self._void(
                keys=[key, keys.arena_ratings(self.prefix, ladder_id), *bot_keys,
                      keys.arena_ranked(self.prefix, ladder_id), keys.arena_unrated(self.prefix, ladder_id)],
                args=[raw, json.dumps(new), match_id, repr(float(doc["finished"])), len(plan),
                      *(item for bot, delta, won, version, forfeited in plan
                        for item in (bot, repr(delta), won, version, forfeited))]))
            if answer == -1:
                raise MatchNotFound(match_id)
            if answer == 1:
                self.audit.record(actor, "match.void", match_id, reason, via,
                                  {"ladder_id": ladder_id, "deltas": new["voided"]["deltas"]})
                return new
            # 0: the document changed between the read and the script (a concurrent void): read it again.

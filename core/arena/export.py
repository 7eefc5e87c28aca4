"""A bot's finished matches as an export: its record on every ladder, its played challenges and tournament
tables, merged oldest first a page at a time, each match one JSON line with its replay records. The cursor
holds a position in each of those lists, so pages never shift or repeat.
Design: docs/api.md#exporting-a-bots-matches
"""

from __future__ import annotations

import base64
import binascii
import heapq
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from redis.client import Pipeline

from core import keys
from core.arena.lookup import PUBLISHED
from core.arena.model import MatchResult, MatchSpec, MatchStatus, MemberKind
from core.arena.store import ArenaStore
from core.arena.store.matches import MatchDoc
from core.arena.store.results import HISTORY_LIMIT, record_entry
from core.redis.connections import StrRedis

DEFAULT_PAGE = 20
MAX_PAGE = 100  # lines of one answer: about 7 MB for 4-player duplicate Spot Hearts (tools.export_bench)
CHALLENGES = ""  # the bot's challenges in a cursor: no ladder has an empty id
TOURNAMENTS = "@tournaments"  # the bot's tournament tables in a cursor (ladder ids are game-and-seats names)
MAX_CURSOR_CHARS = 4096
RECORDS_PER_READ = 8  # replay documents read from Redis at a time while an answer streams
# What a line tells of the bot itself: its entry in its own record (voiding a match changes it there too).
BOT_FIELDS = ("place", "won", "forfeited", "delta", "rating", "version", "strikes")

# The challenge just stored (FINISH_LUA in core.arena.challenges, in the same transaction) goes into the index
# of each registered bot that played it, as its ladder record would list it: once, by the run that stored it.
# KEYS: 1 the match's idempotency key, then each bot's index. ARGV: 1 the value this run's finish gave the
# key, 2 entries an index keeps, 3 the index's ttl, then each bot's entry (JSON). Returns 1 if indexed.
INDEX_CHALLENGE_LUA = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
for i = 2, #KEYS do
  local top = redis.call('ZREVRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local seq = 1
  if top[2] then seq = tonumber(top[2]) + 1 end
  redis.call('ZADD', KEYS[i], seq, ARGV[2 + i])
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(tonumber(ARGV[2]) + 1))
  redis.call('EXPIRE', KEYS[i], ARGV[3])
end
return 1
"""


def index_challenge(pipe: Pipeline, prefix: str, spec: MatchSpec, result: MatchResult, applied: str,
                    versions: Mapping[str, str], now: float, ttl_s: int) -> None:
    """Queue on `pipe` (a transaction that stores the challenge first) the entries of its registered bots."""
    bots = [m.bot_id for m in spec.entrants if m.kind is not MemberKind.HOUSE]
    if not bots:
        return
    entries = [json.dumps({**record_entry(spec, result, bot, now, versions[bot]),
                           "status": MatchStatus.PLAYED.value}) for bot in bots]
    script = pipe.register_script(INDEX_CHALLENGE_LUA)
    script(keys=[keys.arena_match_applied(prefix, spec.match_id),
                 *(keys.challenges_of_bot(prefix, bot) for bot in bots)],
           args=[applied, HISTORY_LIMIT, ttl_s, *entries], client=pipe)


# A tournament's table just published (core.arena.tournament_store, once, in the transaction that publishes
# it) goes into the index of each registered bot that played it. KEYS: each bot's index. ARGV: 1 entries an
# index keeps, 2 the index's ttl, then each bot's entry (JSON).
INDEX_TABLE_LUA = """
for i = 1, #KEYS do
  local top = redis.call('ZREVRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local seq = 1
  if top[2] then seq = tonumber(top[2]) + 1 end
  redis.call('ZADD', KEYS[i], seq, ARGV[2 + i])
  redis.call('ZREMRANGEBYRANK', KEYS[i], 0, -(tonumber(ARGV[1]) + 1))
  redis.call('EXPIRE', KEYS[i], ARGV[2])
end
return 1
"""


def table_entries(spec: MatchSpec, result: MatchResult, versions: Mapping[str, str],
                  now: float) -> dict[str, dict[str, Any]]:
    """What each registered bot's export keeps of a tournament table (kept with the held table until its
    round is published)."""
    return {m.bot_id: {**record_entry(spec, result, m.bot_id, now, versions[m.bot_id]),
                       "status": MatchStatus.PLAYED.value, "tournament": spec.tournament}
            for m in spec.entrants if m.kind is not MemberKind.HOUSE}


def index_table(pipe: Pipeline, prefix: str, entries: Mapping[str, dict[str, Any]], ttl_s: int) -> None:
    """Queue on `pipe` (the transaction that publishes the table) the entries of its registered bots."""
    if not entries:
        return
    script = pipe.register_script(INDEX_TABLE_LUA)
    script(keys=[keys.tournament_tables_of_bot(prefix, bot) for bot in entries],
           args=[HISTORY_LIMIT, ttl_s, *(json.dumps(entry) for entry in entries.values())], client=pipe)


# --- the cursor ---------------------------------------------------------------------------------------------


def encode_cursor(positions: Mapping[str, int]) -> str:
    """The cursor of these positions (list -> sequence number of its last match exported; 0: none yet).

    >>> cursor = encode_cursor({"spot-hearts-4p": 12, CHALLENGES: 3, "sore-spot-4p": 0})
    >>> decode_cursor(cursor), cursor == encode_cursor({CHALLENGES: 3, "spot-hearts-4p": 12})
    ({'': 3, 'spot-hearts-4p': 12}, True)
    """
    kept = {source: seq for source, seq in sorted(positions.items()) if seq}
    text = json.dumps(kept, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, int]:
    """The positions of a cursor this module made; ValueError for anything else.

    >>> decode_cursor("bm9wZQ")
    Traceback (most recent call last):
    ...
    ValueError: not a cursor of this export
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        positions = json.loads(raw)
    except (binascii.Error, ValueError):
        raise ValueError("not a cursor of this export") from None
    if (len(cursor) > MAX_CURSOR_CHARS or not isinstance(positions, dict)
            or not all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in positions.items())):
        raise ValueError("not a cursor of this export")
    return positions


# --- a page -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """A finished match of the bot as a list of its keeps it: the list, its place there, the bot's entry."""

    source: str  # a ladder id, or CHALLENGES
    seq: int
    entry: dict[str, Any]  # core.arena.store.results.record_entry: match, at, place, delta, strikes, ...

    @property
    def match_id(self) -> str:
        return str(self.entry["match"])

    @property
    def at(self) -> float:
        return float(self.entry.get("at") or 0.0)


@dataclass(frozen=True)
class ExportPage:
    listed: list[Listed]  # oldest first
    cursors: list[str]  # after each listed match: where the export goes on from it
    next_cursor: str | None  # more matches are waiting: the next page starts here (the last line's cursor)


def bot_lists(store: ArenaStore, bot_id: str) -> dict[str, str]:
    """The lists holding the bot's finished matches (list -> its key): its record on each ladder it has
    played, its challenges and its published tournament tables."""
    candidates = {ladder.ladder_id: keys.arena_record(store.prefix, ladder.ladder_id, bot_id)
                  for ladder in sorted(store.ladders(), key=lambda ladder: ladder.ladder_id)}
    candidates[CHALLENGES] = keys.challenges_of_bot(store.prefix, bot_id)
    candidates[TOURNAMENTS] = keys.tournament_tables_of_bot(store.prefix, bot_id)
    pipe = store.redis.pipeline(transaction=False)
    for key in candidates.values():
        pipe.exists(key)
    return {source: key for (source, key), found in zip(candidates.items(), pipe.execute(), strict=True)
            if found}


def position_before(redis: StrRedis, key: str, since: float) -> int:
    """The position in a list just before its first match that finished after `since` (the lists are in
    the order the matches finished, by the finishing workers' clocks)."""
    low, high = 0, redis.zcard(key)
    while low < high:
        middle = (low + high) // 2
        found = redis.zrange(key, middle, middle)
        if found and json.loads(found[0])["at"] > since:
            high = middle
        else:
            low = middle + 1
    if low == 0:
        return 0
    before = redis.zrange(key, low - 1, low - 1, withscores=True)
    return int(before[0][1]) if before else 0


def read_page(store: ArenaStore, bot_id: str, limit: int, cursor: Mapping[str, int] | None = None,
              since: float | None = None) -> ExportPage:
    """The next `limit` finished matches of the bot after `cursor` (or after the unix time `since`; neither:
    from its oldest), in the order they finished; each list is read in its own order, so a match that
    finishes while the bot's matches are being exported comes after everything exported before it."""
    lists = bot_lists(store, bot_id)
    positions = dict(cursor or {})
    if cursor is None and since is not None:
        positions = {source: position_before(store.redis, key, since) for source, key in lists.items()}
    pipe = store.redis.pipeline(transaction=False)
    for source, key in lists.items():  # each list's next limit + 1: enough for this page and to know of more
        after = f"({positions.get(source, 0)}"
        pipe.zrangebyscore(key, after, "+inf", start=0, num=limit + 1, withscores=True)
    windows = [[Listed(source, int(score), json.loads(raw)) for raw, score in window]
               for source, window in zip(lists, pipe.execute(), strict=True)]
    merged = list(itertools.islice(heapq.merge(*windows, key=lambda item: item.at), limit + 1))
    listed, cursors = merged[:limit], []
    for item in listed:
        positions[item.source] = item.seq
        cursors.append(encode_cursor(positions))
    return ExportPage(listed, cursors, cursors[-1] if len(merged) > limit else None)


# --- the lines ----------------------------------------------------------------------------------------------


def line_head(item: Listed, doc: MatchDoc | None, bot_id: str, cursor: str) -> dict[str, Any]:
    """A match's line without its replay records: the match document's public part, or what the bot's own
    record kept once the document has expired (``expired: "match"``)."""
    bot = {"bot_id": bot_id, **{name: item.entry.get(name) for name in BOT_FIELDS}}
    if doc is None:
        return {"cursor": cursor, "match_id": item.match_id,
                "ladder_id": "" if item.source == TOURNAMENTS else item.source,
                "challenge": item.source == CHALLENGES, "tournament": item.entry.get("tournament"),
                "status": item.entry.get("status"),
                "game": item.entry.get("game"), "players": item.entry.get("players"), "options": None,
                "duplicate": None, "entrants": None, "finished": item.at, "seed": None, "totals": None,
                "places": None, "deltas": None, "winners": None, "forfeited": None, "games": None, "bot": bot,
                "expired": "match"}
    spec, result = doc["spec"], doc.get("result") or {}
    return {"cursor": cursor, "match_id": doc["match_id"], "ladder_id": doc["ladder_id"],
            "challenge": "challenge" in doc,
            "tournament": doc["tournament"]["tournament_id"] if "tournament" in doc else None,
            "status": doc["status"], "game": spec["game"],
            "players": spec["players"], "options": spec["options"], "duplicate": spec["duplicate"],
            "entrants": [m["bot_id"] for m in spec["entrants"]], "finished": doc.get("finished", item.at),
            "seed": result.get("seed"), "totals": result.get("totals"), "places": result.get("places"),
            "deltas": result.get("deltas"), "winners": result.get("winners"),
            "forfeited": result.get("forfeited"), "games": result.get("games"), "bot": bot, "expired": None}


def page_heads(store: ArenaStore, bot_id: str, page: ExportPage) -> list[tuple[dict[str, Any], bool]]:
    """Each line's head, and whether its match's replays are published (played to the end: never a match in
    play, whose records would show every hand)."""
    docs = store.match_docs([item.match_id for item in page.listed])
    return [(line_head(item, doc, bot_id, cursor), doc is not None and doc["status"] in PUBLISHED)
            for item, doc, cursor in zip(page.listed, docs, page.cursors, strict=True)]


def export_lines(store: ArenaStore, heads: Sequence[tuple[dict[str, Any], bool]]) -> Iterator[str]:
    """The lines of a page, each ending with its match's replay records exactly as stored (the records
    ``GET /api/matches/{id}/games/{n}/replay`` serves), read a few matches at a time as the answer streams."""
    for start in range(0, len(heads), RECORDS_PER_READ):
        chunk = heads[start:start + RECORDS_PER_READ]
        wanted = [head["match_id"] for head, published in chunk if published]
        stored = dict(zip(wanted, store.redis.mget([keys.arena_match_games(store.prefix, match_id)
                                                    for match_id in wanted]) if wanted else [], strict=True))
        for head, _published in chunk:
            records = stored.get(head["match_id"])
            if records is None and head["expired"] is None:
                head = {**head, "expired": "replays"}  # the retention policy deleted them (TA_REPLAY_TTL)
            yield json.dumps(head, separators=(",", ":"))[:-1] + ',"records":' + (records or "null") + "}\n"

"""Challenges: unrated matches between bots a bot's owner picks, played by the arena's match code as a ladder
match is, on the challenges' own queue, with quotas claimed in the Lua call that creates the match.

Design: docs/arena.md#challenges
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from core import keys
from core.arena.decisions import compact_json
from core.arena.export import index_challenge
from core.arena.model import HOUSE_PREFIX, MatchResult, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.moderation import is_suspended, public_name
from core.arena.store import ArenaStore
from core.arena.store.matches import APPLIED_TTL_S, MatchDoc
from core.errors import (
    BadChallenge,
    BadToken,
    ChallengeNotAccepted,
    ChallengeNotFound,
    ChallengeQueueFull,
    ChallengeQuotaExceeded,
)
from engine.bots.names import describe_house_bot_names, is_house_bot_name
from engine.seeds import new_seed

CHALLENGE_TTL_S = 14 * 24 * 3600  # a challenge's match document and replays are kept this long
# An entry of the pending sets older than this is dropped when the next challenge is created: the backstop
# if a challenge were never finished nor aborted (the scheduler aborts a lost one long before).
PENDING_STALE_S = 24 * 3600
MAX_GAMES = 16
DEADLINE_MS = 1000  # as the ladders'
STRIKE_LIMIT = 5
JOB_TIMEOUT_S = 1800
QUEUE_FULL_RETRY_AFTER_S = 30
PENDING_RETRY_AFTER_S = 30  # a challenge of a few games takes well under a minute
ONE_SEAT = "a bot takes one seat of a challenge: name each once"


@dataclass(frozen=True)
class ChallengeQuota:
    pending_per_owner: int = 2
    per_day: int = 50
    pending: int = 20


DEFAULT_CHALLENGE_QUOTA = ChallengeQuota()

# KEYS: 1 every pending challenge (zset), 2 the owner's pending ones (zset), 3 the owner's count today,
# 4 the match document. ARGV: 1 id, 2 now, 3 global cap, 4 owner cap, 5 day cap, 6 document, 7 document
# ttl, 8 day counter ttl, 9 drop pending entries older than this time.
# Returns {1} created, {-1, n} the owner's pending cap, {-2, n} its daily cap, {-3, n} the global cap.
CREATE_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[9])
local n = redis.call('ZCARD', KEYS[2])
if n >= tonumber(ARGV[4]) then return {-1, n} end
local today = tonumber(redis.call('GET', KEYS[3]) or '0')
if today >= tonumber(ARGV[5]) then return {-2, today} end
local all = redis.call('ZCARD', KEYS[1])
if all >= tonumber(ARGV[3]) then return {-3, all} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[7])
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[3], ARGV[8])
redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[7])
return {1}
"""

# KEYS: 1 applied (idempotency), 2 match document, 3 games document, 4 every pending, 5 the owner's pending.
# ARGV: 1 id, 2 now, 3 final document, 4 games (replay records), 5 ttl, 6 applied ttl. Returns 1 if this
# call stored the result, 0 if a result (or an abort) was stored before.
FINISH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[5])
redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5])
redis.call('SET', KEYS[6], ARGV[7], 'EX', ARGV[5])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[6])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
return 1
"""


@dataclass(frozen=True)
class ChallengeRequest:
    game: str
    bots: list[str]  # registered bot ids or house bot names (``heuristic`` or ``house:heuristic``)
    players: int | None = None  # None: as many as bots
    games: int | None = None  # None: one per rotation if duplicate, else one
    duplicate: bool | None = None  # None: on for 4 players, as on the ladders
    options: dict[str, Any] | None = None


def house_name(name: str) -> str | None:
    """The house bot `name` stands for (with or without the ``house:`` prefix), else None.

    >>> house_name("heuristic"), house_name("house:search-5"), house_name("0f3c9a1b2c3d4e5f")
    ('heuristic', 'search-5', None)
    """
    bare = name[len(HOUSE_PREFIX):] if name.startswith(HOUSE_PREFIX) else name
    return bare if is_house_bot_name(bare) else None


def match_format(request: ChallengeRequest) -> tuple[int, bool, int]:
    """(players, duplicate, games) of a challenge, or BadChallenge.

    >>> match_format(ChallengeRequest("spot-hearts", ["a", "b", "c", "d"]))
    (4, True, 4)
    >>> match_format(ChallengeRequest("sore-spot", ["a", "b", "c"], games=2))
    (3, False, 2)
    """
    players = request.players if request.players is not None else len(request.bots)
    if players != len(request.bots):
        raise BadChallenge(f"{players} players need {players} bots, not {len(request.bots)}",
                           errors={"bots": [f"name exactly {players} bots"]})
    duplicate = players == 4 if request.duplicate is None else request.duplicate
    games = request.games if request.games is not None else (players if duplicate else 1)
    if not 1 <= games <= MAX_GAMES:
        raise BadChallenge(f"a challenge is 1 to {MAX_GAMES} games", errors={"games": ["1 to 16"]})
    if duplicate and games % players:
        raise BadChallenge(f"a duplicate challenge seats every bot in every seat: its games must be a "
                           f"multiple of {players}", errors={"games": [f"a multiple of {players}"]})
    return players, duplicate, games


def registered_member(bot_id: str, raw: dict[str, str], game: str, owned: bool) -> Member:
    """The member a registered bot plays a challenge as, or why it cannot (a pure check of its record)."""
    if game not in json.loads(raw.get("games") or "[]"):
        raise BadChallenge(f"bot {bot_id} does not play {game}", errors={"bots": [f"{bot_id}: not {game}"]})
    if raw.get("enabled") != "1" and not owned:  # off the ladder: its owner may still challenge with it
        raise ChallengeNotAccepted(bot_id, "it is disabled")
    if is_suspended(raw):
        raise ChallengeNotAccepted(bot_id, "it is suspended by the operator")
    if not owned and raw.get("accepts_challenges") != "1":
        raise ChallengeNotAccepted(bot_id, "its owner does not accept challenges (accepts_challenges is "
                                   "off). Bots in one account are one owner: put both in an account "
                                   "(trick-arena account create, then trick-arena account adopt BOT --token "
                                   "TOKEN), or have its owner turn accepts_challenges on")
    url = raw.get("url") or None
    return Member(bot_id, MemberKind.HTTP if url else MemberKind.POLL, url=url, name=public_name(raw))


def utc_day(now: float) -> tuple[str, int]:
    """The UTC day of `now` (YYYYMMDD) and the seconds left in it.

    >>> utc_day(86400 * 3 + 3600)
    ('19700104', 82800)
    """
    day = time.strftime("%Y%m%d", time.gmtime(now))
    return day, int(86400 - now % 86400)


class ChallengeStore:
    def __init__(self, arena: ArenaStore, quota: ChallengeQuota = DEFAULT_CHALLENGE_QUOTA) -> None:
        self.arena = arena
        self.redis = arena.redis
        self.prefix = arena.prefix
        self.quota = quota
        self._create = self.redis.register_script(CREATE_LUA)
        self._finish = self.redis.register_script(FINISH_LUA)

    # --- creating -------------------------------------------------------------------------------------------

    def plan(self, request: ChallengeRequest, owns: Callable[[str], dict[str, str] | None]) -> tuple[
            MatchSpec, str, str]:
        """The spec of a challenge, its owner (for the quotas) and the challenger's bot.

        `owns(bot_id)`: the bot's raw record if the caller's token manages it, else None; it raises
        BotNotFound for no such bot. BadToken when the caller owns none of the bots.
        """
        players, duplicate, games = match_format(request)
        options = engine.validate_options(request.game, players, request.options or {})
        if len(set(request.bots)) != len(request.bots):
            raise BadChallenge(ONE_SEAT, errors={"bots": ["a bot named twice"]})
        unknown = [name for name in request.bots
                   if name.startswith(HOUSE_PREFIX) and house_name(name) is None]
        if unknown:
            raise BadChallenge(f"no house bot {unknown[0]!r}; use {describe_house_bot_names()}",
                               errors={"bots": unknown})
        mine: dict[str, dict[str, str] | None] = {name: owns(name) for name in request.bots
                                                  if house_name(name) is None}
        challenger = next((name for name, raw in mine.items() if raw is not None), None)
        if challenger is None:
            raise BadToken("this token manages none of the challenge's bots: a challenge is made by "
                           "the owner of one of them")
        members: list[Member] = []
        for name in request.bots:
            house = house_name(name)
            if house is not None:
                members.append(Member.house(house))
                continue
            raw = mine[name] or self.redis.hgetall(keys.bot(self.prefix, name))
            members.append(registered_member(name, raw, request.game, owned=mine[name] is not None))
        owner_raw = mine[challenger] or {}
        owner = owner_raw.get("owner") or f"bot:{challenger}"
        if len({m.bot_id for m in members}) != len(members):
            raise BadChallenge(ONE_SEAT, errors={"bots": ["a bot named twice"]})
        now = time.time()
        spec = MatchSpec(
            match_id=f"c{secrets.token_hex(8)}", ladder_id="", game=request.game, players=players,
            options=options, seed=new_seed(), duplicate=duplicate, entrants=members, deadline_ms=DEADLINE_MS,
            strike_limit=STRIKE_LIMIT, pre_ratings={m.bot_id: 0.0 for m in members},
            pre_matches={m.bot_id: 0 for m in members}, created=now, challenge=True, game_count=games)
        return spec, owner, challenger

    def create(self, spec: MatchSpec, owner: str, challenger: str) -> MatchDoc:
        """Store the challenge's match, queued, claiming its quotas (or the quota error)."""
        now = spec.created or time.time()
        day, left = utc_day(now)
        doc: MatchDoc = {"match_id": spec.match_id, "ladder_id": "", "status": MatchStatus.QUEUED.value,
                         "spec": spec.to_json(), "attempts": 0, "created": now,
                         "challenge": {"owner": owner, "challenger": challenger}}
        p = self.prefix
        answer = self._create(
            keys=[keys.challenges_pending(p), keys.challenges_owner_pending(p, owner),
                  keys.challenges_owner_day(p, owner, day), keys.arena_match(p, spec.match_id)],
            args=[spec.match_id, repr(now), self.quota.pending, self.quota.pending_per_owner,
                  self.quota.per_day, json.dumps(doc), CHALLENGE_TTL_S, left + 3600,
                  repr(now - PENDING_STALE_S)])
        if answer[0] == -1:
            raise ChallengeQuotaExceeded("pending", self.quota.pending_per_owner, PENDING_RETRY_AFTER_S)
        if answer[0] == -2:
            raise ChallengeQuotaExceeded("per_day", self.quota.per_day, left)
        if answer[0] == -3:
            raise ChallengeQueueFull(int(answer[1]), QUEUE_FULL_RETRY_AFTER_S)
        return doc

    # --- reading --------------------------------------------------------------------------------------------

    def get(self, challenge_id: str) -> MatchDoc:
        """The challenge's match document (ChallengeNotFound for a ladder match's id or no match)."""
        doc = self.arena.match(challenge_id)
        if doc is None or "challenge" not in doc:
            raise ChallengeNotFound(challenge_id)
        return doc

    def pending(self) -> list[str]:
        """Ids of the challenges queued or running, oldest first."""
        ids: list[str] = self.redis.zrange(keys.challenges_pending(self.prefix), 0, -1)
        return ids

    # --- ending ---------------------------------------------------------------------------------------------

    def finish(self, spec: MatchSpec, result: MatchResult, doc: MatchDoc) -> bool:
        """Store the played challenge (never a rating); True if this call did it (at most once)."""
        p, mid = self.prefix, spec.match_id
        now = time.time()
        versions = self.arena.versions([m.bot_id for m in spec.entrants])
        final = {**doc, "status": MatchStatus.PLAYED.value, "finished": now,
                 "result": {**result.summary_json(), "versions": versions}}
        owner = doc.get("challenge", {}).get("owner", "")
        # One transaction: the challenge is stored, and listed for each registered bot's export, or neither.
        pipe = self.redis.pipeline(transaction=True)
        self._finish(keys=[keys.arena_match_applied(p, mid), keys.arena_match(p, mid),
                           keys.arena_match_games(p, mid), keys.challenges_pending(p),
                           keys.challenges_owner_pending(p, owner), keys.arena_match_log(p, mid)],
                     args=[mid, repr(now), json.dumps(final), json.dumps(result.records),
                           CHALLENGE_TTL_S, APPLIED_TTL_S, compact_json(result.decisions)], client=pipe)
        index_challenge(pipe, p, spec, result, repr(now), versions, now, CHALLENGE_TTL_S)
        done = pipe.execute()[0]
        return bool(done)

    def abort(self, match_id: str, reason: str) -> None:
        """Final: the challenge is given up (its quota places are freed); a late worker cannot store it."""
        doc = self.arena.update_match(match_id, status=MatchStatus.ABORTED, aborted_because=reason,
                                      finished=time.time())
        self.release(match_id, doc)
        if doc is not None and doc["status"] == MatchStatus.ABORTED:
            self.redis.set(keys.arena_match_applied(self.prefix, match_id), f"aborted {time.time()}", nx=True,
                           ex=APPLIED_TTL_S)

    def release(self, match_id: str, doc: MatchDoc | None) -> None:
        """The challenge no longer counts as queued or running (done, aborted, or its document gone)."""
        owner = doc.get("challenge", {}).get("owner") if doc else None
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(keys.challenges_pending(self.prefix), match_id)
        if owner:
            pipe.zrem(keys.challenges_owner_pending(self.prefix, owner), match_id)
        pipe.execute()


def is_challenge(doc: MatchDoc) -> bool:
    return "challenge" in doc


def entrant_names(doc: MatchDoc) -> dict[str, str]:
    """Display name of each entrant of a match document (as it was when the match was made)."""
    return {m["bot_id"]: m.get("name") or m["bot_id"] for m in doc["spec"]["entrants"]}

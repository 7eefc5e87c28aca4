"""Tournaments in Redis: created with their quotas, entered, started, their tables made round by round, each
table held secret until its round is over, the standings from the published rounds.

Design: docs/arena.md#tournaments
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import engine
from core import keys
from core.arena.challenges import house_name, registered_member, utc_day
from core.arena.decisions import compact_json
from core.arena.export import index_table, table_entries
from core.arena.model import (
    FINAL_STATUSES,
    HOUSE_PREFIX,
    MatchResult,
    MatchSpec,
    MatchStatus,
    Member,
    MemberKind,
)
from core.arena.store import ArenaStore
from core.arena.store.matches import APPLIED_TTL_S, MatchDoc
from core.arena.tournaments import (
    FORMATS,
    MAX_ENTRANTS,
    MAX_ROUNDS,
    MAX_TABLES,
    ROUND_ROBIN,
    SWISS,
    Row,
    TableResult,
    group_key,
    pack_round,
    pair_swiss,
    round_robin_groups,
    round_robin_rounds,
    standings,
    swiss_tables,
)
from core.errors import (
    BadTournament,
    ChallengeNotAccepted,
    TournamentClosed,
    TournamentNotFound,
    TournamentQuotaExceeded,
)
from core.redis.watched import read_modify_write
from engine.bots.names import describe_house_bot_names
from engine.seeds import derive_seed, new_seed

TOURNAMENT_TTL_S = 30 * 24 * 3600  # an event, its tables and replays are kept this long after the last change
DEADLINE_MS = 1000  # as the ladders'
STRIKE_LIMIT = 5
JOB_TIMEOUT_S = 1800  # one table
ACTIVE_RETRY_AFTER_S = 600
OPERATOR = "operator"
OPEN, RUNNING, FINISHED = "open", "running", "finished"


@dataclass(frozen=True)
class TournamentQuota:
    active_per_owner: int = 2
    per_day: int = 5


DEFAULT_TOURNAMENT_QUOTA = TournamentQuota()


@dataclass(frozen=True)
class TournamentRequest:
    game: str
    format: str
    bots: list[str]
    name: str = ""
    players: int = 4
    rounds: int | None = None  # Swiss: required
    meetings: int | None = None  # round robin: None for every group, else each two bots at least this often
    options: dict[str, Any] | None = None
    max_tables: int = MAX_TABLES
    open_entry: bool = False  # the operator's: bots enter until `starts_at`
    starts_at: float | None = None
    field_limit: int = MAX_ENTRANTS


# KEYS: 1 every active tournament, 2 the owner's active ones, 3 the owner's count today, 4 the document.
# ARGV: 1 id, 2 now, 3 owner cap (0: none), 4 day cap (0: none), 5 document, 6 ttl, 7 day counter ttl.
# Returns {1} created, {-1, n} the owner's active cap, {-2, n} its daily cap.
CREATE_LUA = """
if tonumber(ARGV[3]) > 0 then
  local n = redis.call('ZCARD', KEYS[2])
  if n >= tonumber(ARGV[3]) then return {-1, n} end
  local today = tonumber(redis.call('GET', KEYS[3]) or '0')
  if today >= tonumber(ARGV[4]) then return {-2, today} end
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
  redis.call('INCR', KEYS[3])
  redis.call('EXPIRE', KEYS[3], ARGV[7])
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('SET', KEYS[4], ARGV[5], 'EX', ARGV[6])
return {1}
"""

# KEYS: 1 applied (idempotency), 2 match document, 3 games, 4 decision log, 5 the round's done set.
# ARGV: 1 id, 2 now, 3 held document, 4 games, 5 log, 6 ttl, 7 applied ttl.
# Returns {stored (1/0), tables of the round over}.
FINISH_LUA = """
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('SCARD', KEYS[5])} end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[6])
redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[6])
redis.call('SET', KEYS[4], ARGV[5], 'EX', ARGV[6])
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[7])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('EXPIRE', KEYS[5], ARGV[6])
return {1, redis.call('SCARD', KEYS[5])}
"""


def planned_tables(request: TournamentRequest, entrants: int) -> tuple[int, int]:
    """(tables, rounds) the event plays if nobody drops out; BadTournament for a format that does not fit.

    >>> planned_tables(TournamentRequest("spot-hearts", "swiss", [], rounds=4), 16)
    (16, 4)
    >>> planned_tables(TournamentRequest("spot-hearts", "round-robin", []), 6)
    (15, 15)
    """
    if request.format not in FORMATS:
        raise BadTournament(f"format is one of {', '.join(FORMATS)}", errors={"format": list(FORMATS)})
    if request.format == SWISS:
        if request.rounds is None or not 1 <= request.rounds <= MAX_ROUNDS:
            raise BadTournament(f"a Swiss event names its rounds, 1 to {MAX_ROUNDS}",
                                errors={"rounds": [f"1 to {MAX_ROUNDS}"]})
        return swiss_tables(entrants, request.players, request.rounds), request.rounds
    if request.rounds is not None:
        raise BadTournament("a round robin's rounds follow from its field: name `meetings` instead",
                            errors={"rounds": ["only for swiss"]})
    names = [f"{i:03d}" for i in range(entrants)]
    groups = round_robin_groups(names, request.players, request.meetings)
    if len(groups) > MAX_TABLES:  # say so before packing a huge schedule
        return len(groups), 0
    return len(groups), round_robin_rounds(groups)


def check_limits(request: TournamentRequest, entrants: int) -> None:
    """BadTournament for an event that would play more tables than its limit or have too few bots."""
    if not 1 <= request.max_tables <= MAX_TABLES:
        raise BadTournament(f"max_tables is 1 to {MAX_TABLES}", errors={"max_tables": [f"1 to {MAX_TABLES}"]})
    tables, rounds = planned_tables(request, entrants)
    if tables > request.max_tables:
        raise BadTournament(f"this event needs {tables} tables, more than its limit of {request.max_tables}: "
                            "fewer bots, rounds or meetings", errors={"max_tables": [f"needs {tables}"]})
    if rounds > MAX_ROUNDS:
        raise BadTournament(f"this event needs {rounds} rounds, more than {MAX_ROUNDS}",
                            errors={"bots": [f"needs {rounds} rounds"]})


def table_status(doc: MatchDoc | None) -> str:
    return doc["status"] if doc else "missing"


class TournamentStore:
    def __init__(self, arena: ArenaStore, quota: TournamentQuota = DEFAULT_TOURNAMENT_QUOTA) -> None:
        self.arena = arena
        self.redis = arena.redis
        self.prefix = arena.prefix
        self.quota = quota
        self._create = self.redis.register_script(CREATE_LUA)
        self._finish = self.redis.register_script(FINISH_LUA)

    # --- creating and entering ------------------------------------------------------------------------------

    def member(self, name: str, game: str, owns: Callable[[str], dict[str, str] | None]) -> Member:
        """The member a bot named by an entry plays as (house bots always; registered bots answering over
        HTTP, the caller's or accepting challenges), or why not."""
        house = house_name(name)
        if house is not None:
            return Member.house(house)
        if name.startswith(HOUSE_PREFIX):
            raise BadTournament(f"no house bot {name!r}; use {describe_house_bot_names()}",
                                errors={"bots": [name]})
        mine = owns(name)
        raw = mine or self.redis.hgetall(keys.bot(self.prefix, name))
        member = registered_member(name, raw, game, owned=mine is not None)
        if member.kind is not MemberKind.HTTP:
            raise ChallengeNotAccepted(name, "a tournament seats bots that answer over HTTP (a bot that "
                                       "polls would see each game's seed when it ends, while other "
                                       "tables of the round still play that deal)")
        return member

    def create(self, request: TournamentRequest, owner: str,
               owns: Callable[[str], dict[str, str] | None]) -> dict[str, Any]:
        """Store the event (quotas claimed for an account; none for the operator's). Invited events start at
        once; the caller enqueues the tables of the first round (`first_tables`)."""
        try:
            options = engine.validate_options(request.game, request.players, request.options or {})
        except engine.OptionsError as exc:
            raise BadTournament(str(exc), errors={"options": [str(exc)]}) from exc
        if len(set(request.bots)) != len(request.bots):
            dup = next(b for b in request.bots if request.bots.count(b) > 1)
            raise TournamentClosed(f"bot {dup} is entered twice: a bot takes one place in an event", dup)
        members = [self.member(name, request.game, owns) for name in request.bots]
        if len({m.bot_id for m in members}) != len(members):
            raise TournamentClosed("a bot is entered twice (house bots with and without the house: prefix)")
        if request.open_entry:
            if request.starts_at is None:
                raise BadTournament("an open event names its start time", errors={"starts_at": ["required"]})
            if len(members) > request.field_limit:
                raise BadTournament("more bots than the field limit", errors={"field_limit": ["too small"]})
            check_limits(request, request.field_limit)
        else:
            if len(members) < request.players:
                raise BadTournament(f"an event needs at least {request.players} bots",
                                    errors={"bots": [f"at least {request.players}"]})
            if len(members) > MAX_ENTRANTS:
                raise BadTournament(f"at most {MAX_ENTRANTS} bots",
                                    errors={"bots": [f"at most {MAX_ENTRANTS}"]})
            check_limits(request, len(members))
        now = time.time()
        tid = f"t{secrets.token_hex(8)}"
        doc: dict[str, Any] = {
            "tournament_id": tid, "name": request.name or tid, "game": request.game,
            "players": request.players, "options": options, "format": request.format,
            "rounds": request.rounds, "meetings": request.meetings,
            "max_tables": request.max_tables, "created": now, "owner": owner,
            "entry": "open" if request.open_entry else "invited", "starts_at": request.starts_at,
            "field_limit": request.field_limit if request.open_entry else len(members),
            "status": OPEN, "seed": new_seed(), "entrants": [m.to_json() for m in members], "dropped": [],
            "round_list": [], "groups": None, "started": None, "finished": None}
        day, left = utc_day(now)
        is_operator = owner == OPERATOR
        p = self.prefix
        answer = self._create(
            keys=[keys.tournaments_active(p), keys.tournaments_owner_active(p, owner),
                  keys.tournaments_owner_day(p, owner, day), keys.tournament(p, tid)],
            args=[tid, repr(now), 0 if is_operator else self.quota.active_per_owner,
                  0 if is_operator else self.quota.per_day, json.dumps(doc), TOURNAMENT_TTL_S, left + 3600])
        if answer[0] == -1:
            raise TournamentQuotaExceeded("active", self.quota.active_per_owner, ACTIVE_RETRY_AFTER_S)
        if answer[0] == -2:
            raise TournamentQuotaExceeded("per_day", self.quota.per_day, left)
        return doc

    def enter(self, tournament_id: str, member: Member) -> dict[str, Any]:
        """Enter a bot in an open event before its start, within its field limit, once."""

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            if doc["entry"] != "open":
                raise TournamentClosed("this event is by invitation: its creator names its bots")
            if doc["status"] != OPEN or (doc["starts_at"] or 0) <= time.time():
                raise TournamentClosed("entry is closed: the event has started")
            if member.bot_id in {m["bot_id"] for m in doc["entrants"]}:
                raise TournamentClosed(f"bot {member.bot_id} is already entered", member.bot_id)
            if len(doc["entrants"]) >= doc["field_limit"]:
                raise TournamentClosed(f"the field is full ({doc['field_limit']} bots)")
            return {**doc, "entrants": [*doc["entrants"], member.to_json()]}

        return self._update(tournament_id, change)

    # --- reading --------------------------------------------------------------------------------------------

    def get(self, tournament_id: str) -> dict[str, Any]:
        raw = self.redis.get(keys.tournament(self.prefix, tournament_id))
        if raw is None:
            raise TournamentNotFound(tournament_id)
        doc: dict[str, Any] = json.loads(raw)
        return doc

    def active(self) -> list[str]:
        ids: list[str] = self.redis.zrange(keys.tournaments_active(self.prefix), 0, -1)
        return ids

    def tables(self, doc: dict[str, Any]) -> dict[str, MatchDoc | None]:
        """Every table's match document, by id."""
        ids = [mid for rnd in doc["round_list"] for mid in rnd["tables"]]
        return dict(zip(ids, self.arena.match_docs(ids), strict=True))

    def standings(self, doc: dict[str, Any], tables: dict[str, MatchDoc | None] | None = None) -> list[Row]:
        """The standings from the rounds over (a round's tables count once all of them are published)."""
        tables = self.tables(doc) if tables is None else tables
        rounds, byes = [], []
        for rnd in doc["round_list"]:
            if rnd["status"] != "done":
                continue
            results = []
            for mid in rnd["tables"]:
                table = tables.get(mid)
                if table is None or table["status"] != MatchStatus.PLAYED:
                    continue
                result = table["result"]
                results.append(TableResult(result["places"], result["totals"], result.get("forfeited", [])))
            rounds.append(results)
            byes.append(rnd["byes"])
        low = engine.rules_for(doc["game"]).low_wins
        return standings([m["bot_id"] for m in doc["entrants"]], doc["players"], rounds, byes, doc["dropped"],
                         low)

    # --- playing --------------------------------------------------------------------------------------------

    def start(self, tournament_id: str) -> list[MatchSpec]:
        """Start the event (invited: at once; open: the scheduler at its start time): the first round's
        tables, to enqueue. An open event with fewer bots than a table ends at once, unplayed."""
        def change(doc: dict[str, Any]) -> dict[str, Any]:
            if doc["status"] != OPEN:
                return doc
            doc = {**doc, "status": RUNNING, "started": time.time()}
            if len(doc["entrants"]) < doc["players"]:
                return self._ended(doc, "fewer bots entered than a table seats")
            if doc["format"] == ROUND_ROBIN:
                doc["groups"] = [list(g) for g in round_robin_groups(
                    [m["bot_id"] for m in doc["entrants"]], doc["players"], doc["meetings"])]
            return self._next_round(doc)

        return self._advance(tournament_id, change)

    def finish_table(self, spec: MatchSpec, result: MatchResult,
                     doc: MatchDoc) -> tuple[bool, list[MatchSpec]]:
        """Store a played table, held (no seed, no replay, no result shown) until its round is over; the
        last table of a round publishes the round and makes the next one. (stored by this call, new tables)"""
        p, mid = self.prefix, spec.match_id
        now = time.time()
        versions = self.arena.versions([m.bot_id for m in spec.entrants])
        # What each registered bot's export keeps of the table: indexed when the round is published.
        entries = table_entries(spec, result, versions, now)
        held = {**doc, "status": MatchStatus.HELD.value, "finished": now,
                "result": {**result.summary_json(), "versions": versions},
                "tournament": {**doc["tournament"], "entries": entries}}
        round_no = doc["tournament"]["round"]
        stored, over = self._finish(
            keys=[keys.arena_match_applied(p, mid), keys.arena_match(p, mid), keys.arena_match_games(p, mid),
                  keys.arena_match_log(p, mid), keys.tournament_round_done(p, spec.tournament, round_no)],
            args=[mid, repr(now), json.dumps(held), json.dumps(result.records),
                  compact_json(result.decisions), TOURNAMENT_TTL_S, APPLIED_TTL_S])
        return bool(stored), self.round_over(spec.tournament, round_no, int(over))

    def abort_table(self, tournament_id: str, round_no: int, match_id: str, reason: str) -> list[MatchSpec]:
        """A table given up (worker lost too often, its URL refused): over, counted for nobody."""
        doc = self.arena.update_match(match_id, status=MatchStatus.ABORTED, aborted_because=reason,
                                      finished=time.time())
        if doc is None or doc["status"] != MatchStatus.ABORTED:
            return []
        p = self.prefix
        self.redis.set(keys.arena_match_applied(p, match_id), f"aborted {time.time()}", nx=True,
                       ex=APPLIED_TTL_S)
        done = keys.tournament_round_done(p, tournament_id, round_no)
        pipe = self.redis.pipeline(transaction=True)
        pipe.sadd(done, match_id)
        pipe.expire(done, TOURNAMENT_TTL_S)
        pipe.scard(done)
        over = pipe.execute()[-1]
        return self.round_over(tournament_id, round_no, int(over))

    def round_over(self, tournament_id: str, round_no: int, over: int) -> list[MatchSpec]:
        """When every table of the round is over: publish them, drop the bots that forfeited, and make the
        next round (or end the event). The tables to enqueue."""
        before = self.get(tournament_id)
        rnd = before["round_list"][round_no] if round_no < len(before["round_list"]) else None
        if rnd is None or rnd["status"] == "done" or over < len(rnd["tables"]):
            return []
        tables = {mid: self.arena.match(mid) for mid in rnd["tables"]}
        forfeited: set[str] = set()
        for mid, table in tables.items():
            if table is not None and table["status"] == MatchStatus.HELD:
                forfeited.update(table["result"].get("forfeited", []))
                self._publish(mid)

        def change(doc: dict[str, Any]) -> dict[str, Any]:
            rounds = [dict(r) for r in doc["round_list"]]
            if rounds[round_no]["status"] == "done":
                return doc
            rounds[round_no]["status"] = "done"
            dropped = sorted(set(doc["dropped"]) | forfeited)
            return self._next_round({**doc, "round_list": rounds, "dropped": dropped})

        return self._advance(tournament_id, change)

    def repair(self, tournament_id: str) -> list[MatchSpec]:
        """Mend what a process that died mid-step left of a running event's current round (the scheduler's
        tick): a table with no match document gets it again (and is returned, to enqueue); a round whose
        tables are all over but which was never closed (the process that ended its last table died first)
        is closed, making the next round. The tables to enqueue."""
        doc = self.get(tournament_id)
        if doc["status"] != RUNNING or not doc["round_list"]:
            return []
        rnd = doc["round_list"][-1]
        if rnd["status"] == "done":  # closed, its next round never made: only an ended event has none
            return []
        tables = dict(zip(rnd["tables"], self.arena.match_docs(rnd["tables"]), strict=True))
        if any(table is None for table in tables.values()):
            specs = []
            for spec, table in self._round_tables(doc, rnd):
                if tables[spec.match_id] is None and self.redis.set(
                        keys.arena_match(self.prefix, spec.match_id), json.dumps(table), ex=TOURNAMENT_TTL_S,
                        nx=True):
                    specs.append(spec)
            return specs
        if all(table is not None and table["status"] in FINAL_STATUSES for table in tables.values()):
            done = keys.tournament_round_done(self.prefix, tournament_id, rnd["round"])
            pipe = self.redis.pipeline(transaction=True)
            pipe.sadd(done, *rnd["tables"])
            pipe.expire(done, TOURNAMENT_TTL_S)
            pipe.execute()
            return self.round_over(tournament_id, rnd["round"], len(rnd["tables"]))
        return []

    def _publish(self, match_id: str) -> None:
        """A held table becomes played: its seed, replays and result are public, and it joins the exports
        of its registered bots (once: the transaction that publishes it)."""
        key = keys.arena_match(self.prefix, match_id)

        def publish(pipe: Any, raw: str | None) -> None:
            if raw is None:
                return
            doc = json.loads(raw)
            if doc["status"] != MatchStatus.HELD:
                return
            doc["status"] = MatchStatus.PLAYED.value
            entries = doc["tournament"].pop("entries", {})
            pipe.multi()
            pipe.set(key, json.dumps(doc), keepttl=True)
            index_table(pipe, self.prefix, entries, TOURNAMENT_TTL_S)

        read_modify_write(self.redis, key, publish)

    def _next_round(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The document with its next round made (tables' ids and bots; their matches stored with it by
        `_advance`), or ended when no table is left to play."""
        played_rounds = len(doc["round_list"])
        dropped = set(doc["dropped"])
        field = [m["bot_id"] for m in doc["entrants"] if m["bot_id"] not in dropped]
        players = doc["players"]
        byes: list[str] = []
        if doc["format"] == SWISS:
            if played_rounds >= doc["rounds"] or len(field) < players:
                return self._ended(doc, "")
            rows = self.standings(doc)
            order = [r.bot_id for r in rows if r.bot_id in field]
            if not played_rounds:  # the first round: the order of entry, shuffled by the event's seed
                order = sorted(field, key=lambda b: derive_seed("order", doc["seed"], b))
            played = {group_key(g) for r in doc["round_list"] for g in r["groups"]}
            bye_counts = {bot: sum(bot in r["byes"] for r in doc["round_list"]) for bot in field}
            groups, byes = pair_swiss(order, players, played, bye_counts)
        else:
            left = [tuple(g) for g in doc["groups"]]
            groups = pack_round(left, dropped)
            chosen = set(groups)
            doc = {**doc, "groups": [list(g) for g in left if g not in chosen and dropped.isdisjoint(g)]}
            seated = {b for g in groups for b in g}
            byes = [b for b in field if b not in seated]
            if not groups:
                return self._ended(doc, "")
        tid = doc["tournament_id"]
        rnd = {"round": played_rounds, "status": "playing", "groups": [list(g) for g in groups], "byes": byes,
               "tables": [f"{tid}r{played_rounds}t{i}" for i in range(len(groups))], "started": time.time()}
        return {**doc, "round_list": [*doc["round_list"], rnd]}

    def _ended(self, doc: dict[str, Any], reason: str) -> dict[str, Any]:
        return {**doc, "status": FINISHED, "finished": time.time(), "ended_because": reason or None}

    def _round_tables(self, doc: dict[str, Any], rnd: dict[str, Any]) -> list[tuple[MatchSpec, MatchDoc]]:
        """The round's tables as matches to store: every table on the round's seed (the same deals)."""
        members = {m["bot_id"]: Member.from_json(m) for m in doc["entrants"]}
        seed = derive_seed("round", doc["seed"], rnd["round"])
        tables = []
        for mid, group in zip(rnd["tables"], rnd["groups"], strict=True):
            spec = MatchSpec(
                match_id=mid, ladder_id="", game=doc["game"], players=doc["players"], options=doc["options"],
                seed=seed, duplicate=True, entrants=[members[b] for b in group], deadline_ms=DEADLINE_MS,
                strike_limit=STRIKE_LIMIT, pre_ratings=dict.fromkeys(group, 0.0),
                pre_matches=dict.fromkeys(group, 0), created=time.time(), game_count=doc["players"],
                tournament=doc["tournament_id"])
            table: MatchDoc = cast(MatchDoc, {
                "match_id": mid, "ladder_id": "", "status": MatchStatus.QUEUED.value, "spec": spec.to_json(),
                "attempts": 0, "created": spec.created,
                "tournament": {"tournament_id": doc["tournament_id"], "round": rnd["round"]}})
            tables.append((spec, table))
        return tables

    def _advance(self, tournament_id: str,
                 change: Callable[[dict[str, Any]], dict[str, Any]]) -> list[MatchSpec]:
        """Change the event and, in the same transaction, store the match documents of the rounds the change
        made and release the event if it ended: a process that dies on the way leaves both or neither. The
        tables this call made, to enqueue (a concurrent call that lost the race makes none)."""
        p = self.prefix
        key = keys.tournament(p, tournament_id)

        def advance(pipe: Any, raw: str | None) -> list[MatchSpec]:
            if raw is None:
                raise TournamentNotFound(tournament_id)
            before = json.loads(raw)
            doc = change(before)
            tables = [table for rnd in doc["round_list"][len(before["round_list"]):]
                      for table in self._round_tables(doc, rnd)]
            pipe.multi()
            pipe.set(key, json.dumps(doc), ex=TOURNAMENT_TTL_S)
            for spec, table in tables:
                pipe.set(keys.arena_match(p, spec.match_id), json.dumps(table), ex=TOURNAMENT_TTL_S, nx=True)
            if doc["status"] == FINISHED and before["status"] != FINISHED:
                pipe.zrem(keys.tournaments_active(p), tournament_id)
                pipe.zrem(keys.tournaments_owner_active(p, doc["owner"]), tournament_id)
            return [spec for spec, _ in tables]

        return read_modify_write(self.redis, key, advance)

    def _update(self, tournament_id: str,
                change: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        key = keys.tournament(self.prefix, tournament_id)

        def update(pipe: Any, raw: str | None) -> dict[str, Any]:
            if raw is None:
                raise TournamentNotFound(tournament_id)
            doc = change(json.loads(raw))
            pipe.multi()
            pipe.set(key, json.dumps(doc), ex=TOURNAMENT_TTL_S)
            return doc

        return read_modify_write(self.redis, key, update)


def is_tournament_table(doc: MatchDoc) -> bool:
    return "tournament" in doc

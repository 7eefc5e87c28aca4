"""Tables in Redis: create, load, join, apply a move atomically, wait for a newer version.

Layout (key builders in core.keys): a hash with the table record, a list with the move log and a hash with
every seat's view (and the spectator's) precomputed at the current version, so reading a seat's state is one
round trip and never runs the engine.

A move is computed on an in-process engine game and committed by a Lua script that checks the version the
move was computed from: two concurrent writers (threads, processes, the API and the house-bot worker) can
never both commit, and a commit is all-or-nothing. The loser re-reads and re-checks the move.

Client-visible optimistic concurrency: a mover sends the version it saw. It is stale if its decision has
changed since: in a simultaneous phase (passing, laying sore cards) another seat's submission bumps the
version without touching yours, so the check is `decision_since[seat] <= expected <= version`.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import orjson
import redis

import engine
import engine.deals
from core import keys
from core.errors import (
    BadSeats,
    BadToken,
    GameNotOver,
    NotYourTurn,
    SeatNotFound,
    SeatNotOpen,
    SeatTaken,
    StaleVersion,
    TableBusy,
    TableNotFound,
    TableOver,
    TooManyMovePosts,
)
from core.redis.connections import StrRedis, decoding_client, script_lane
from core.redis.notify import get_watcher
from core.tables import cache as gamecache
from core.tables.lua import COMMIT_SCRIPT, JOIN_SCRIPT, SNAPSHOT_SCRIPT, SYNC_SCRIPT
from core.tokens import hash_token, new_token, require_token, token_matches, token_tag
from engine.seeds import new_seed

COMMIT_RETRIES = 20
# Seconds a finished table is kept by default (core.settings: $TA_FINISHED_TABLE_TTL, the same for the API
# and the RQ workers).
FINISHED_TABLE_TTL = 30 * 24 * 3600
# Seconds an unfinished table is kept after its last move by default ($TA_IDLE_TABLE_TTL): abandoned
# practice tables do not pile up.
IDLE_TABLE_TTL = 7 * 24 * 3600


class TableStatus(StrEnum):
    PLAYING = "playing"
    OVER = "over"


class SeatKind(StrEnum):
    OPEN = "open"  # a polling client joins it and gets a seat token
    HOUSE = "house"  # played by the house-bot RQ job (engine.bots)
    BOT = "bot"  # a registered bot, driven by the arena (which applies moves through this store)


@dataclass(frozen=True)
class SeatSpec:
    kind: SeatKind
    name: str | None = None  # house bot name or registered bot id; None for an open seat


def house_seats_to_act(seats: list[SeatSpec], to_act: list[int]) -> list[int]:
    """The seats among `to_act` that the house-bot driver plays."""
    return [seat for seat in to_act if seats[seat].kind == SeatKind.HOUSE]


@dataclass
class TableRecord:
    table_id: str
    game: str
    players: int
    options: dict[str, Any]
    seats: list[SeatSpec]
    joined: list[bool]
    seed: int
    nonce: str
    commitment: str
    status: TableStatus
    version: int
    to_act: list[int]
    decision_since: list[int]
    turn_started: list[float]
    created: float
    updated: float
    deals: list[dict[str, Any]] | None = None
    move_timeout: float | None = None
    labels: dict[str, str] = field(default_factory=dict)
    dealing: int = engine.deals.LEGACY_VERSION  # the engine's dealing version (docs/deals.md); absent = 1
    token_hashes: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def over(self) -> bool:
        return self.status == TableStatus.OVER

    def deadline(self, seat: int) -> float | None:
        """When the seat's pending decision is due (advisory for practice tables), None if nothing is due."""
        return decision_deadline(seat, self.to_act, self.turn_started, self.move_timeout)


@dataclass(frozen=True)
class MoveResult:
    version: int
    status: TableStatus
    to_act: list[int]
    seats: list[SeatSpec]


@dataclass(frozen=True)
class SeatSnapshot:
    """What a seat may see, read in one round trip: used by GET seat state and the long-poll."""

    version: int
    status: TableStatus
    to_act: list[int]
    answer_json: str  # the seat's whole GET answer as the last commit stored it: sent as is

    @property
    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = orjson.loads(self.answer_json)["view"]
        return view


def decision_deadline(seat: int, to_act: list[int], turn_started: list[float],
                      move_timeout: float | None) -> float | None:
    """When `seat`'s pending decision is due, None if it has none or the table sets no timeout."""
    if move_timeout is None or seat not in to_act:
        return None
    return turn_started[seat] + move_timeout


def answer_field(seat: int) -> str:
    """The field of the table's views hash that holds `seat`'s GET answer (its view inside)."""
    return f"a:{seat}"


def token_field(seat: int) -> str:
    """The views hash's copy of `seat`'s token hash (the table hash keeps the original), so a plain read of
    the seat's answer checks the token in the same command."""
    return f"t:{seat}"


def seat_answer_json(table_id: str, seat: int, version: int, status: TableStatus, to_act: list[int],
                     deadline: float | None, view: Any) -> bytes:
    """A seat's GET answer (SeatStateSchema's shape), encoded as a commit stores it; `view` a dict, or stored
    JSON as an orjson.Fragment."""
    return orjson.dumps({"table_id": table_id, "seat": seat, "version": version, "status": status.value,
                         "to_act": to_act, "your_turn": seat in to_act, "deadline": deadline, "view": view})


@dataclass(frozen=True)
class PostLimit:
    """The per-seat move limit: at most `limit` move posts with one token on one seat at one table version;
    a count is forgotten `window_s` seconds after its first post. Counted inside the move's own Lua call."""

    limit: int
    window_s: int


class _PostCount:
    """One move post to count: the first Lua call of the move counts it, later ones (retries) do not."""

    __slots__ = ("key", "limit", "seat", "pending")

    def __init__(self, key: str, limit: PostLimit, seat: int) -> None:
        self.key, self.limit, self.seat, self.pending = key, limit, seat, True

    def take(self) -> tuple[list[str], list[int]]:
        """(extra KEYS, ARGV) for the next script: the counter once, then nothing."""
        if not self.pending:
            return [], [0, 0]
        self.pending = False
        return [self.key], [self.limit.limit, self.limit.window_s]

    def refuse(self, retry_after: int) -> TooManyMovePosts:
        return TooManyMovePosts(self.seat, self.limit.limit, retry_after)


def seed_commitment(seed: int, nonce: str) -> str:
    """sha256 published at creation; with the nonce and seed revealed at the end anyone can check the deal."""
    return engine.deals.seed_commitment(seed, nonce)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


class TableStore:
    def __init__(self, conn: redis.Redis, prefix: str = keys.DEFAULT_PREFIX,
                 finished_ttl: int = FINISHED_TABLE_TTL, idle_ttl: int = IDLE_TABLE_TTL,
                 pipelining: bool = True) -> None:
        self.redis: StrRedis = decoding_client(conn)
        self.prefix = prefix
        self.finished_ttl = finished_ttl  # seconds a finished table (and its replay) is kept; 0 = forever
        self.idle_ttl = idle_ttl  # seconds an unfinished table is kept after its last move; 0 = forever
        self._commit = self.redis.register_script(COMMIT_SCRIPT)
        self._snapshot = self.redis.register_script(SNAPSHOT_SCRIPT)
        self._sync_script = self.redis.register_script(SYNC_SCRIPT)
        self._join = self.redis.register_script(JOIN_SCRIPT)
        # The scripts of every move and seat read (one call each); pipelined in a gevent worker.
        self._lane = script_lane(self.redis, pipelining)

    # --- create / load -------------------------------------------------------------------------------------

    def create_table(self, game: str, players: int, options: dict[str, Any] | None, seats: list[SeatSpec],
                     seed: int | None = None, deals: list[dict[str, Any]] | None = None,
                     move_timeout: float | None = None, labels: dict[str, str] | None = None) -> TableRecord:
        """Validate, deal and store a new table. Live tables get a secret seed (pass one only for replays)."""
        if len(seats) != players:
            raise BadSeats(f"{players} players need {players} seats, got {len(seats)}")
        normalized = engine.validate_options(game, players, options or {})
        # 53 bits: still unguessable (and the commitment is salted), and exact as a JSON number in every
        # client (JavaScript and jq read numbers as doubles).
        seed = new_seed() if seed is None else seed
        extra = {"deals": deals} if deals else {}
        live = engine.new_game(game, players=players, options=normalized, seed=seed, **extra)
        table_id = secrets.token_hex(8)
        nonce = secrets.token_hex(16)
        now = time.time()
        to_act = list(live.to_act())
        record = TableRecord(
            table_id=table_id, game=game, players=players, options=dict(live.options), seats=list(seats),
            joined=[False] * players, seed=seed, nonce=nonce, commitment=seed_commitment(seed, nonce),
            status=TableStatus.OVER if live.over else TableStatus.PLAYING, version=live.version,
            to_act=to_act, decision_since=[live.version] * players, turn_started=[now] * players,
            created=now, updated=now, deals=deals, move_timeout=move_timeout, labels=dict(labels or {}),
            dealing=engine.deals.version_of(seed),
        )
        fields = {
            "game": game, "players": players, "options": _dumps(record.options),
            "seats": _dumps([{"kind": s.kind.value, "name": s.name} for s in seats]),
            "seed": str(seed), "nonce": nonce, "commitment": record.commitment,
            "status": record.status.value, "version": record.version, "to_act": _dumps(to_act),
            "decision_since": _dumps(record.decision_since), "turn_started": _dumps(record.turn_started),
            "created": now, "updated": now, "labels": _dumps(record.labels), "dealing": record.dealing,
        }
        if deals:
            fields["deals"] = _dumps(deals)
        if move_timeout is not None:
            fields["move_timeout"] = move_timeout
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.table(self.prefix, table_id), mapping=fields)
        pipe.hset(keys.table_views(self.prefix, table_id),
                  mapping=self._views(record, live))
        pipe.zadd(keys.tables_index(self.prefix), {table_id: now})
        if self.idle_ttl > 0:
            pipe.expire(keys.table(self.prefix, table_id), self.idle_ttl)
            pipe.expire(keys.table_views(self.prefix, table_id), self.idle_ttl)
        if self.finished_ttl > 0:  # the index lists recent tables: forget ids old enough to have expired
            pipe.zremrangebyscore(keys.tables_index(self.prefix), 0, now - self.finished_ttl)
        pipe.execute()
        gamecache.games.put((self.prefix, table_id), live.version, live)
        return record

    def load_table(self, table_id: str) -> TableRecord:
        return self._record_from_raw(table_id, self.redis.hgetall(keys.table(self.prefix, table_id)))

    @staticmethod
    def _record_from_raw(table_id: str, raw: dict[str, str]) -> TableRecord:
        if not raw:
            raise TableNotFound(table_id)
        loads = orjson.loads
        seats = [SeatSpec(SeatKind(s["kind"]), s["name"]) for s in loads(raw["seats"])]
        players = int(raw["players"])
        return TableRecord(
            table_id=table_id, game=raw["game"], players=players, options=loads(raw["options"]),
            seats=seats, joined=[f"token:{i}" in raw for i in range(players)], seed=int(raw["seed"]),
            nonce=raw["nonce"], commitment=raw["commitment"], status=TableStatus(raw["status"]),
            version=int(raw["version"]), to_act=loads(raw["to_act"]),
            decision_since=loads(raw["decision_since"]), turn_started=loads(raw["turn_started"]),
            created=float(raw["created"]), updated=float(raw["updated"]),
            deals=loads(raw["deals"]) if "deals" in raw else None,
            move_timeout=float(raw["move_timeout"]) if "move_timeout" in raw else None,
            labels=loads(raw.get("labels", "{}")),
            dealing=int(raw.get("dealing", engine.deals.LEGACY_VERSION)),
            token_hashes={i: raw[f"token:{i}"] for i in range(players) if f"token:{i}" in raw},
        )

    def _sync(self, table_id: str, cached_version: int | None,
              count: _PostCount | None = None) -> tuple[TableRecord, list[str] | None]:
        """The table record and, if this process caches the game at `cached_version`, the moves since then:
        one atomic round trip, so a game another process moved on is caught up without a second read.
        With `count`, the move post is counted in the same call (TooManyMovePosts over the limit)."""
        count_keys, count_args = ([], [0, 0]) if count is None else count.take()
        table_keys = [keys.table(self.prefix, table_id), keys.table_moves(self.prefix, table_id), *count_keys]
        start = -1 if cached_version is None else cached_version
        flat, missing, wait = self._lane.run(self._sync_script, table_keys, [start, *count_args])
        if wait and count is not None:
            raise count.refuse(int(wait))
        raw = dict(zip(flat[::2], flat[1::2], strict=True))
        return self._record_from_raw(table_id, raw), (None if cached_version is None else list(missing))

    def list_tables(self, limit: int = 50) -> list[str]:
        return list(self.redis.zrevrange(keys.tables_index(self.prefix), 0, limit - 1))

    def table_summaries(self, limit: int = 50) -> list[dict[str, Any]]:
        """Newest first: id, game, status, version (one pipelined read for all of them)."""
        table_ids = self.list_tables(limit)
        pipe = self.redis.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hmget(keys.table(self.prefix, table_id), ["game", "status", "version"])
        return [{"table_id": table_id, "game": game, "status": status, "version": int(version)}
                for table_id, (game, status, version) in zip(table_ids, pipe.execute(), strict=True)
                if game is not None]

    def replay_record(self, table_id: str) -> dict[str, Any]:
        """The engine's replay record; only once the game is over (it contains every hand)."""
        status, record, nonce, commitment = self.redis.hmget(keys.table(self.prefix, table_id),
                                                             ["status", "record", "nonce", "commitment"])
        if status is None:
            raise TableNotFound(table_id)
        if status != TableStatus.OVER or record is None:
            raise GameNotOver()
        # With the commitment opened, the record alone proves its deals (docs/deals.md).
        replay: dict[str, Any] = {**json.loads(record), "seed_commitment": commitment, "seed_nonce": nonce}
        return replay

    def moves(self, table_id: str) -> list[dict[str, Any]]:
        return [json.loads(m) for m in self.redis.lrange(keys.table_moves(self.prefix, table_id), 0, -1)]

    # --- seats ----------------------------------------------------------------------------------------------

    def join(self, table_id: str, seat: int) -> str:
        """Claim an open seat: returns its token (shown once; only its hash is stored)."""
        record = self.load_table(table_id)
        self._check_seat_index(record, seat)
        if record.seats[seat].kind != SeatKind.OPEN:
            kind = record.seats[seat].kind
            raise SeatNotOpen(seat, kind)
        token = new_token()
        table_keys = [keys.table(self.prefix, table_id), keys.table_views(self.prefix, table_id)]
        if not self._join(keys=table_keys, args=[f"token:{seat}", token_field(seat), hash_token(token)]):
            raise SeatTaken(seat)
        return token

    def authenticate(self, table_id: str, seat: int, token: str | None) -> None:
        stored, players = self.redis.hmget(keys.table(self.prefix, table_id), [f"token:{seat}", "players"])
        self._check_token(table_id, seat, token, stored, players)

    def _check_token(self, table_id: str, seat: int, token: str | None, stored: str | None,
                     players: str | None) -> None:
        if players is None:
            raise TableNotFound(table_id)
        if not 0 <= seat < int(players):
            raise SeatNotFound(table_id, seat)
        token = require_token(token, "seat", "seat")
        if stored is None or not token_matches(token, stored):
            raise BadToken(f"this token does not hold seat {seat} of table {table_id}")

    @staticmethod
    def _check_seat_index(record: TableRecord, seat: int) -> None:
        if not 0 <= seat < record.players:
            raise SeatNotFound(record.table_id, seat)

    def seat_answer(self, table_id: str, seat: int, token: str | None) -> str | None:
        """The seat's GET answer as the last commit stored it, if `token` holds the seat: one plain command,
        no script. None for anything else (no such table or seat, no or a wrong token, a table stored before
        answers were): `seat_snapshot` then reads the table and gives the reason."""
        if not token or seat < 0:
            return None
        answer, stored = self._lane.execute("HMGET", keys.table_views(self.prefix, table_id),
                                            answer_field(seat), token_field(seat))
        if answer is None or stored is None or not token_matches(token, stored):
            return None
        return str(answer)

    def seat_snapshot(self, table_id: str, seat: int, token: str | None = None,
                      check_token: bool = True) -> SeatSnapshot:
        """A seat's answer with version, status and who must act, in one round trip (token checked if
        asked)."""
        table_keys = [keys.table(self.prefix, table_id), keys.table_views(self.prefix, table_id)]
        reply = self._lane.run(self._snapshot, table_keys, [f"token:{seat}", answer_field(seat), str(seat)])
        # Lua turns nil into false, and drops trailing nils from the array.
        stored, players, version, status, to_act, turn_started, move_timeout, answer, view = (
            [value or None for value in reply] + [None] * 9)[:9]
        if check_token:
            self._check_token(table_id, seat, token, stored, players)
        elif players is None:
            raise TableNotFound(table_id)
        if (answer is None and view is None) or version is None or status is None or to_act is None:
            raise SeatNotFound(table_id, seat)
        acting = orjson.loads(to_act)
        if answer is None:  # a table stored before answers were: its seat's view alone
            deadline = decision_deadline(seat, acting, orjson.loads(turn_started or "[]"),
                                         None if move_timeout is None else float(move_timeout))
            answer = seat_answer_json(table_id, seat, int(version), TableStatus(status), acting, deadline,
                                      orjson.Fragment(str(view))).decode()
        return SeatSnapshot(int(version), TableStatus(status), acting, answer)

    def spectator_view_json(self, table_id: str) -> str:
        view: str | None = self.redis.hget(keys.table_views(self.prefix, table_id), "spectator")
        if view is None:
            raise TableNotFound(table_id)
        return view

    def spectator_view(self, table_id: str) -> dict[str, Any]:
        view: dict[str, Any] = json.loads(self.spectator_view_json(table_id))
        return view

    # --- moves ----------------------------------------------------------------------------------------------

    def apply_move(self, table_id: str, seat: int, move: Any, expected_version: int, *,
                   authenticate: bool = False, token: str | None = None,
                   post_limit: PostLimit | None = None) -> MoveResult:
        """Apply `move` for `seat` if the seat's decision is still the one seen at `expected_version`.

        Raises a MoveConflict (stale, not your turn, over, busy), or the engine's error for a bad move
        (nothing changes). Safe under any concurrency: the commit re-checks the version atomically. With
        `authenticate`, the seat token is checked against the same read of the table (one round trip less).
        With `post_limit` (and a token), this post is counted against the seat's limit by the first Lua call
        the move makes, before anything else is decided: TooManyMovePosts over the limit.
        """
        cache_key = (self.prefix, table_id)
        count = None
        if post_limit is not None and token:
            counter = keys.seat_posts(self.prefix, table_id, seat, token_tag(token))
            count = _PostCount(counter, post_limit, seat)
        with gamecache.table_lock(f"{self.prefix}{table_id}"):
            result = self._try_on_cached_state(table_id, seat, move, expected_version, authenticate, token,
                                               count)
            if result is not None:
                return result
            for _ in range(COMMIT_RETRIES):
                cached_version = gamecache.games.version_of(cache_key)
                record, missing = self._sync(table_id, cached_version, count)
                self._check_seat_index(record, seat)
                if authenticate:
                    stored = record.token_hashes.get(seat)
                    self._check_token(table_id, seat, token, stored, str(record.players))
                    authenticate = False  # the token cannot change: once is enough across retries
                self._check_can_move(record, seat, expected_version)
                live = self._game_at(record, cached_version, missing)
                try:
                    live.apply(seat, move)
                except engine.EngineError as error:
                    if not error.legal:  # e.g. a malformed move: still tell the client what it may play
                        error.legal = live.legal_moves(seat)
                    gamecache.games.put(cache_key, record.version, live)  # a rejected move changes nothing
                    raise
                after = self._commit_move(record, live, seat, count)
                if after is not None:
                    gamecache.games.put(cache_key, after.version, live, after)
                    return MoveResult(after.version, after.status, list(after.to_act), after.seats)
                # Another writer committed first: the game we moved on is ahead of nothing; rebuild.
        raise TableBusy()

    def _try_on_cached_state(self, table_id: str, seat: int, move: Any, expected_version: int,
                             authenticate: bool, token: str | None,
                             count: _PostCount | None = None) -> MoveResult | None:
        """The common case without reading Redis first: this process made the table's last commit and the
        client answers that very version. The Lua commit still checks the version, so a table that moved on
        elsewhere is caught there. Anything unusual (a refusal, a lost race) returns None and the caller takes
        the authoritative path, so every error a client sees was decided on a fresh read."""
        cache_key = (self.prefix, table_id)
        entry = gamecache.games.take_entry(cache_key)
        if entry is None:
            return None
        version, live, record = entry
        if record is None or version != expected_version or not 0 <= seat < record.players:
            gamecache.games.put(cache_key, version, live, record)
            return None
        stored = record.token_hashes.get(seat)
        token_refused = authenticate and (not token or stored is None or not token_matches(token, stored))
        if token_refused or record.over or seat not in record.to_act or record.decision_since[seat] > version:
            gamecache.games.put(cache_key, version, live, record)
            return None
        try:
            live.apply(seat, move)
        except engine.EngineError:
            # The game is unchanged; the fresh path below gives the client its answer.
            gamecache.games.put(cache_key, version, live, record)
            return None
        after = self._commit_move(record, live, seat, count)
        if after is None:
            return None  # the game is now ahead of a table that moved elsewhere: dropped, rebuilt on demand
        gamecache.games.put(cache_key, after.version, live, after)
        return MoveResult(after.version, after.status, list(after.to_act), after.seats)

    def _check_can_move(self, record: TableRecord, seat: int, expected_version: int) -> None:
        if record.over:
            raise TableOver()
        if seat not in record.to_act:
            raise NotYourTurn(seat, record.to_act, record.version)
        if not record.decision_since[seat] <= expected_version <= record.version:
            raise StaleVersion(record.table_id, expected_version, record.version, record.decision_since[seat])

    def _game_at(self, record: TableRecord, synced_version: int | None = None,
                 missing: list[str] | None = None) -> Any:
        """The engine game at the record's version: cached, caught up from the log, or rebuilt from it.

        With several server processes a table's moves land on different processes; a cached game that is
        a few moves behind only replays those moves (`missing`, read with the record), not the whole log.
        """
        cached = gamecache.games.take((self.prefix, record.table_id), record.version)
        if cached is None:
            return self._rebuild(record)
        version, live = cached
        if version < record.version:
            if version != synced_version or missing is None or version + len(missing) != record.version:
                log_key = keys.table_moves(self.prefix, record.table_id)
                missing = self.redis.lrange(log_key, version, record.version - 1)
            for raw in missing:
                entry = orjson.loads(raw)
                live.apply(entry["seat"], entry["move"])
        return live

    def _rebuild(self, record: TableRecord) -> Any:
        extra = {"deals": record.deals} if record.deals else {}
        seed: int | str = record.seed
        if record.dealing == engine.deals.LEGACY_VERSION:  # opened before dealing version 2: deal as it did
            seed = engine.deals.legacy_seed(seed)
        live = engine.new_game(record.game, players=record.players, options=record.options, seed=seed,
                               **extra)
        for entry in self.moves(record.table_id)[: record.version]:
            live.apply(entry["seat"], entry["move"])
        return live

    @staticmethod
    def _views(record: TableRecord, live: Any) -> dict[str, bytes]:
        """What the views hash holds once `record` (the table at `live`'s version) is stored: every seat's
        whole GET answer (its view inside, the deadline worked out) and the spectator view, encoded; a read
        sends them as they are. The engine builds the public table once for all the views."""
        seat_views, spectator = live.views()
        views = {answer_field(seat): seat_answer_json(record.table_id, seat, record.version, record.status,
                                                      record.to_act, record.deadline(seat), view)
                 for seat, view in enumerate(seat_views)}
        views["spectator"] = orjson.dumps(spectator)
        return views

    def _commit_move(self, record: TableRecord, live: Any, seat: int,
                     count: _PostCount | None = None) -> TableRecord | None:
        """Commit the move just applied to `live` iff the table is still at `record.version`.

        Returns the table record after the move, or None if another writer committed first. With `count`
        (not yet taken), the post is counted first: TooManyMovePosts over the limit, and nothing is committed.
        """
        count_keys, count_args = ([], [0, 0]) if count is None else count.take()
        now = time.time()
        to_act = list(live.to_act())
        decision_since = list(record.decision_since)
        turn_started = list(record.turn_started)
        for other in to_act:
            # A seat's decision is new if it did not have one before, or if it just made one.
            if other not in record.to_act or other == seat:
                decision_since[other] = live.version
                turn_started[other] = now
        over = bool(live.over)
        status = TableStatus.OVER if over else TableStatus.PLAYING
        after = replace(record, version=live.version, status=status, to_act=to_act,
                        decision_since=decision_since, turn_started=turn_started, updated=now)
        final_record = _dumps(live.record()) if over else ""
        view_args: list[str | bytes] = []
        for name, view in self._views(after, live).items():
            view_args += [name, view]
        args = [record.version, live.version, _dumps(live.moves[-1]), after.status.value, _dumps(to_act),
                _dumps(decision_since), _dumps(turn_started), now,
                keys.table_events(self.prefix, record.table_id), final_record,
                self.finished_ttl if over else self.idle_ttl, *count_args, *view_args]
        table_id = record.table_id
        table_keys = [keys.table(self.prefix, table_id), keys.table_moves(self.prefix, table_id),
                      keys.table_views(self.prefix, table_id), *count_keys]
        committed = int(self._lane.run(self._commit, table_keys, args))
        if committed < 0 and count is not None:
            raise count.refuse(-committed)
        if committed <= 0:
            return None
        return after

    # --- waiting --------------------------------------------------------------------------------------------

    def current_version(self, table_id: str) -> int:
        version = self.redis.hget(keys.table(self.prefix, table_id), "version")
        if version is None:
            raise TableNotFound(table_id)
        return int(version)

    def wait_for_version(self, table_id: str, after: int, timeout: float) -> int:
        """Block until the table's version exceeds `after` or `timeout` seconds pass; returns the version.

        Wakes on the table's pub/sub notification (one shared listener per process), never sleep-polls.
        """
        watcher = get_watcher(self.redis, self.prefix)
        return watcher.wait(keys.table_events(self.prefix, table_id), after, timeout,
                            lambda: self.current_version(table_id))


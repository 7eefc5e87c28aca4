"""Tables in Redis: create, load, join, apply a move atomically, wait for a newer version.

Key layout, the version-checked commit and the per-process game cache:
docs/api.md#the-hot-path-seat-state-and-moves; the version a mover sends:
docs/api.md#versions-and-concurrency.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import orjson
import redis

import engine
import engine.deals
from core import keys
from core.errors import (
    BadSeats,
    DomainError,
    GameNotOver,
    SeatNotFound,
    SeatNotOpen,
    SeatTaken,
    TableBusy,
    TableNotFound,
    UnknownGame,
)
from core.redis.connections import StrRedis, decoding_client, script_lane
from core.redis.notify import get_watcher
from core.tables import cache as gamecache
from core.tables.answer import encode_seat_answer, view_of
from core.tables.checks import check_move, check_seat, check_seat_token
from core.tables.lua import COMMIT_SCRIPT, JOIN_SCRIPT, SNAPSHOT_SCRIPT, SYNC_SCRIPT
from core.tables.posts import PostCount
from core.tables.posts import PostLimit as PostLimit
from core.tables.record import (
    MOVE_FIELDS,
    REPLAY_FIELD,
    decode_field,
    decode_record,
    encode_fields,
    encode_record,
    token_hash_field,
)

# The record's values live in core.tables.record; they stay importable from here, with the store.
from core.tables.record import SeatKind as SeatKind
from core.tables.record import SeatSpec as SeatSpec
from core.tables.record import TableRecord as TableRecord
from core.tables.record import TableStatus as TableStatus
from core.tables.record import driven_seats_to_act as driven_seats_to_act
from core.tables.record import has_guest_bots as has_guest_bots
from core.tables.record import house_seats_to_act as house_seats_to_act
from core.tokens import hash_token, new_token, token_matches, token_tag
from engine import shapes
from engine.seeds import new_seed

if TYPE_CHECKING:
    from core.tables.cache import Game

COMMIT_RETRIES = 20
# Seconds a finished table is kept by default (core.settings: $TA_FINISHED_TABLE_TTL, the same for the API
# and the RQ workers).
FINISHED_TABLE_TTL = 30 * 24 * 3600
# Seconds an unfinished table is kept after its last move by default ($TA_IDLE_TABLE_TTL): abandoned
# practice tables do not pile up.
IDLE_TABLE_TTL = 7 * 24 * 3600


@dataclass(frozen=True)
class MoveResult:
    version: int
    status: TableStatus
    to_act: list[int]
    seats: list[SeatSpec]
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SeatSnapshot:
    """What a seat may see, read in one round trip: used by GET seat state and the long-poll."""

    version: int
    status: TableStatus
    to_act: list[int]
    answer_json: str  # the seat's GET answer (core.tables.answer) as the last commit stored it: sent as is


@dataclass(frozen=True)
class SeatView:
    """What the driver of a seat (the house bots) decides from: the seat's view at the table's version."""

    version: int
    view: shapes.SeatView


def answer_field(seat: int) -> str:
    """The field of the table's views hash that holds `seat`'s GET answer (its view inside)."""
    return f"a:{seat}"


def token_field(seat: int) -> str:
    """The views hash's copy of `seat`'s token hash (the table hash keeps the original), so a plain read of
    the seat's answer checks the token in the same command."""
    return f"t:{seat}"


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


class TableStore:
    def __init__(self, conn: redis.Redis, prefix: str = keys.DEFAULT_PREFIX,
                 finished_ttl: int = FINISHED_TABLE_TTL, idle_ttl: int = IDLE_TABLE_TTL,
                 pipelining: bool = True, wait_ms: int = 0) -> None:
        self.redis: StrRedis = decoding_client(conn)
        self.wait_ms = wait_ms  # a move is answered once a replica has it, or after this (0: at once)
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
        if game not in engine.GAMES:  # the same problem as registering a bot for it
            raise UnknownGame([game], list(engine.GAMES), field="game")
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
        commitment = engine.deals.seed_commitment(seed, nonce)
        now = time.time()
        to_act = list(live.to_act())
        record = TableRecord(
            table_id=table_id, game=game, players=players, options=dict(live.options), seats=list(seats),
            joined=[False] * players, seed=seed, nonce=nonce, commitment=commitment,
            status=TableStatus.OVER if live.over else TableStatus.PLAYING, version=live.version,
            to_act=to_act, decision_since=[live.version] * players, turn_started=[now] * players,
            created=now, updated=now, deals=deals or None, move_timeout=move_timeout,
            labels=dict(labels or {}), dealing=engine.deals.CURRENT_VERSION,
        )
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.table(self.prefix, table_id), mapping=encode_record(record))
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
        return decode_record(table_id, self.redis.hgetall(keys.table(self.prefix, table_id)))

    def _sync(self, table_id: str, cached_version: int | None,
              count: PostCount | None = None) -> tuple[TableRecord, list[str] | None]:
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
        return decode_record(table_id, raw), (None if cached_version is None else list(missing))

    def list_tables(self, limit: int = 50) -> list[str]:
        return list(self.redis.zrevrange(keys.tables_index(self.prefix), 0, limit - 1))

    def table_summaries(self, limit: int = 50) -> list[dict[str, Any]]:
        """Newest first: id, game, status, version (one pipelined read for all of them)."""
        table_ids = self.list_tables(limit)
        pipe = self.redis.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hmget(keys.table(self.prefix, table_id), ["game", "status", "version"])
        return [{"table_id": table_id, "game": game, "status": status,
                 "version": decode_field("version", version)}
                for table_id, (game, status, version) in zip(table_ids, pipe.execute(), strict=True)
                if game is not None]

    def replay_record(self, table_id: str) -> dict[str, Any]:
        """The engine's replay record; only once the game is over (it contains every hand)."""
        status, record, nonce, commitment = self.redis.hmget(keys.table(self.prefix, table_id),
                                                             ["status", REPLAY_FIELD, "nonce", "commitment"])
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
        check_seat(record, seat)
        if record.seats[seat].kind != SeatKind.OPEN:
            kind = record.seats[seat].kind
            raise SeatNotOpen(seat, kind)
        token = new_token()
        table_keys = [keys.table(self.prefix, table_id), keys.table_views(self.prefix, table_id)]
        claim = [token_hash_field(seat), token_field(seat), hash_token(token)]
        if not self._join(keys=table_keys, args=claim):
            raise SeatTaken(seat)
        return token

    def seat_answer(self, table_id: str, seat: int, token: str | None) -> str | None:
        """The seat's GET answer as the last commit stored it, if `token` holds the seat: one plain command,
        no script. None for anything else (no such table or seat, no or a wrong token): `seat_snapshot` then
        reads the table and gives the reason."""
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
        reply = self._lane.run(self._snapshot, table_keys, [token_hash_field(seat), answer_field(seat)])
        # Lua turns nil into false, and drops trailing nils from the array.
        padded = [value or None for value in reply] + [None] * 6
        stored, players, version, status, to_act, answer = padded[:6]
        if check_token:
            check_seat_token(table_id, seat, token, stored, players)
        elif players is None:
            raise TableNotFound(table_id)
        if answer is None or version is None or status is None or to_act is None:
            raise SeatNotFound(table_id, seat)
        return SeatSnapshot(decode_field("version", version), decode_field("status", status),
                            decode_field("to_act", to_act), answer)

    def seat_view(self, table_id: str, seat: int) -> SeatView:
        """The seat's view and the version it is at, for the process that plays the seat (no token)."""
        snapshot = self.seat_snapshot(table_id, seat, check_token=False)
        return SeatView(snapshot.version, view_of(snapshot.answer_json))

    def spectator_view_json(self, table_id: str) -> str:
        view: str | None = self.redis.hget(keys.table_views(self.prefix, table_id), "spectator")
        if view is None:
            raise TableNotFound(table_id)
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
        count = None
        if post_limit is not None and token:
            counter = keys.seat_posts(self.prefix, table_id, seat, token_tag(token))
            count = PostCount(counter, post_limit, seat)
        with (gamecache.table_lock(f"{self.prefix}{table_id}"),
              gamecache.checked_out((self.prefix, table_id)) as cached):
            result = self._try_on_cached_state(cached, seat, move, expected_version, authenticate, token,
                                               count)
            if result is not None:
                return result
            for _ in range(COMMIT_RETRIES):
                record, missing = self._sync(table_id, cached.version, count)
                check_move(record, seat, expected_version, authenticate=authenticate, token=token)
                authenticate = False  # the token cannot change: once is enough across retries
                live = self._game_at(record, cached, missing)
                try:
                    live.apply(seat, move)
                except engine.EngineError as error:
                    if not error.legal:  # e.g. a malformed move: still tell the client what it may play
                        error.legal = live.legal_moves(seat)
                    raise  # a rejected move changes nothing: the game goes back at the record's version
                committed = self._commit_and_hold(cached, record, live, seat, count)
                if committed is not None:
                    return committed
        raise TableBusy()

    def _try_on_cached_state(self, cached: gamecache.CheckedOutGame, seat: int, move: Any,
                             expected_version: int, authenticate: bool, token: str | None,
                             count: PostCount | None = None) -> MoveResult | None:
        """The common case without reading Redis first: this process made the table's last commit and the
        client answers that very version. The Lua commit still checks the version, so a table that moved on
        elsewhere is caught there. Anything unusual (a refusal, a lost race) returns None and the caller takes
        the authoritative path, so every error a client sees was decided on a fresh read."""
        record, live = cached.record, cached.game
        if record is None or live is None or cached.version != expected_version:
            return None
        try:
            check_move(record, seat, expected_version, authenticate=authenticate, token=token)
            live.apply(seat, move)
        except (DomainError, engine.EngineError):
            return None  # the game is unchanged; the fresh path gives the client its answer
        return self._commit_and_hold(cached, record, live, seat, count)

    def _commit_and_hold(self, cached: gamecache.CheckedOutGame, record: TableRecord, live: Game, seat: int,
                         count: PostCount | None) -> MoveResult | None:
        """Commit the move just applied to `live`; `cached` then holds the game at the new version. None if
        another writer committed first: the game is ahead of a table that moved elsewhere, so it is dropped
        (rebuilt on demand)."""
        after = self._commit_move(record, live, seat, count)
        if after is None:
            cached.drop()
            return None
        cached.hold(live, after.version, after)
        return MoveResult(after.version, after.status, list(after.to_act), after.seats, after.labels)

    def _game_at(self, record: TableRecord, cached: gamecache.CheckedOutGame,
                 missing: list[str] | None = None) -> Game:
        """The engine game at the record's version: the cached one caught up from the log, or one rebuilt
        from it; `cached` holds it at that version from then on.

        With several server processes a table's moves land on different processes; a cached game that is
        a few moves behind only replays those moves (`missing`, read with the record), not the whole log.
        """
        version, live = cached.version, cached.game
        if version is None or live is None or version > record.version:
            live = self._rebuild(record)
        elif version < record.version:
            if missing is None or version + len(missing) != record.version:
                log_key = keys.table_moves(self.prefix, record.table_id)
                missing = self.redis.lrange(log_key, version, record.version - 1)
            for raw in missing:
                entry = orjson.loads(raw)
                live.apply(entry["seat"], entry["move"])
        cached.hold(live, record.version)
        return live

    def _rebuild(self, record: TableRecord) -> Game:
        extra = {"deals": record.deals} if record.deals else {}
        live = engine.new_game(record.game, players=record.players, options=record.options, seed=record.seed,
                               **extra)
        for entry in self.moves(record.table_id)[: record.version]:
            live.apply(entry["seat"], entry["move"])
        return live

    @staticmethod
    def _views(record: TableRecord, live: Game) -> dict[str, bytes]:
        """What the views hash holds once `record` (the table at `live`'s version) is stored: every seat's
        whole GET answer (its view inside, the deadline worked out) and the spectator view, encoded; a read
        sends them as they are. The engine builds the public table once for all the views."""
        seat_views, spectator = live.views()
        views = {answer_field(seat): encode_seat_answer(record.table_id, seat, record.version, record.status,
                                                        record.to_act, record.deadline(seat), view)
                 for seat, view in enumerate(seat_views)}
        views["spectator"] = orjson.dumps(spectator)
        return views

    def _commit_move(self, record: TableRecord, live: Game, seat: int,
                     count: PostCount | None = None) -> TableRecord | None:
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
        fields: dict[str, str | int | float] = encode_fields(after, MOVE_FIELDS)
        if over:
            fields[REPLAY_FIELD] = _dumps(live.record())
        field_args = [item for pair in fields.items() for item in pair]
        view_args = [item for pair in self._views(after, live).items() for item in pair]
        args = [record.version, live.version, _dumps(live.moves[-1]),
                keys.table_events(self.prefix, record.table_id), self.finished_ttl if over else self.idle_ttl,
                *count_args, len(field_args), *field_args, *view_args]
        table_id = record.table_id
        table_keys = [keys.table(self.prefix, table_id), keys.table_moves(self.prefix, table_id),
                      keys.table_views(self.prefix, table_id), *count_keys]
        committed = int(self._lane.run(self._commit, table_keys, args, self.wait_ms))
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
        current: int = decode_field("version", version)
        return current

    def wait_for_version(self, table_id: str, after: int, timeout: float) -> int:
        """Block until the table's version exceeds `after` or `timeout` seconds pass; returns the version.

        Wakes on the table's pub/sub notification (one shared listener per process), never sleep-polls.
        """
        watcher = get_watcher(self.redis, self.prefix)
        return watcher.wait(keys.table_events(self.prefix, table_id), after, timeout,
                            lambda: self.current_version(table_id))


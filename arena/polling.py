"""Polling bots on ladders: a match game hosted as a real API table, moved through the move API.

A registered bot without a URL plays its ladder seats like any polling client: the arena creates the game as
an API table (``api.store.TableStore``), joins the polling bot's seat itself and publishes the seat token to
the bot (``GET /api/bots/{bot_id}/ladder-seats`` with the owner token). The bot long-polls its seat state and
POSTs moves exactly as on a practice table. When it must act, the arena waits for its move — woken by the
table's Redis version notification, never sleep-polling — until the ladder's per-decision deadline; then it
plays the fallback move through the same store and records a timeout strike. Every other seat of such a table
(house and HTTP bots) is driven by the arena through ``apply_move``; the seat kinds say so (``bot``).

The API rejects an illegal POST with 422 and changes nothing, so a polling bot may correct itself within the
deadline: only running out of time strikes it.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import engine
from api import keys
from api.problems import ApiProblem
from arena.model import MatchSpec, Member, MemberKind

if TYPE_CHECKING:
    from api.store import TableStore

POLL_SEAT_TTL_S = 24 * 3600


class StaleMove(Exception):
    """The table moved on before our move was committed (a polling bot acted at the last moment)."""


class TableHost:
    """One game of a match, stored as an API table; mirrors it in a local engine game for views and totals."""

    def __init__(self, tables: TableStore, spec: MatchSpec, seating: list[Member], game_no: int) -> None:
        from api.store import SeatKind, SeatSpec  # late: api.store pulls in the Flask-side modules

        self.tables = tables
        self.spec = spec
        self.seating = seating
        seats = [SeatSpec(SeatKind.OPEN if m.kind is MemberKind.POLL else SeatKind.BOT, m.bot_id)
                 for m in seating]
        record = tables.create_table(spec.game, spec.players, spec.options, seats, seed=spec.seed,
                                     move_timeout=spec.deadline_ms / 1000.0,
                                     labels={"match": spec.match_id, "ladder": spec.ladder_id,
                                             "game_no": str(game_no)})
        self.table_id = record.table_id
        self.game = engine.new_game(spec.game, spec.players, spec.options, seed=spec.seed)
        self.poll_seats: dict[int, str] = {}
        for seat, member in enumerate(seating):
            if member.kind is MemberKind.POLL:
                token = tables.join(self.table_id, seat)
                self.poll_seats[seat] = member.bot_id
                key = keys.arena_poll_seats(tables.prefix, member.bot_id)
                entry = {"table": self.table_id, "seat": seat, "token": token, "match": spec.match_id,
                         "ladder": spec.ladder_id, "game_no": game_no, "deadline_ms": spec.deadline_ms}
                pipe = tables.redis.pipeline(transaction=True)
                pipe.hset(key, self.table_id, json.dumps(entry))
                pipe.expire(key, POLL_SEAT_TTL_S)
                pipe.execute()
                seats_changed(tables.redis, tables.prefix, member.bot_id)

    # --- the engine-game surface MatchRunner uses ---------------------------------------------------------

    def sync(self) -> None:
        for entry in self.tables.moves(self.table_id)[self.game.version:]:
            self.game.apply(entry["seat"], entry["move"])

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def options(self) -> dict[str, Any]:
        return self.game.options

    @property
    def version(self) -> int:
        return self.game.version

    @property
    def totals(self) -> list[int]:
        return self.game.totals

    @property
    def winners(self) -> list[int]:
        return self.game.winners

    def to_act(self) -> list[int]:
        self.sync()
        return self.game.to_act()

    def view(self, seat: int) -> dict[str, Any]:
        return self.game.view(seat)

    def spectator_view(self) -> dict[str, Any]:
        return self.game.spectator_view()

    def record(self) -> dict[str, Any]:
        return self.game.record()

    def apply(self, seat: int, move: Any) -> None:
        try:
            self.tables.apply_move(self.table_id, seat, move, expected_version=self.game.version)
        except ApiProblem as problem:
            if problem.status == 409:
                self.sync()
                raise StaleMove(problem.detail) from None
            raise
        self.sync()

    # --- polling seats -------------------------------------------------------------------------------------

    def wait_for_move(self, seat: int, deadline: float) -> bool:
        """Wait until the polling `seat` has made its current decision (True) or the deadline passes."""
        self.sync()
        start_version = self.game.version
        opened = self.tables.load_table(self.table_id).decision_since[seat]
        while True:
            record = self.tables.load_table(self.table_id)
            if seat not in record.to_act or record.decision_since[seat] != opened:
                self.sync()
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self.tables.wait_for_version(self.table_id, max(record.version, start_version), remaining)

    def close(self) -> None:
        for bot_id in self.poll_seats.values():
            self.tables.redis.hdel(keys.arena_poll_seats(self.tables.prefix, bot_id), self.table_id)
            seats_changed(self.tables.redis, self.tables.prefix, bot_id)


class PollDriver:
    """The seat driver of a polling bot: nothing to call, only a move to wait for."""

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None

    def end_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None

    def decide(self, request: Any) -> Any:
        from arena.match import MOVE_ALREADY_APPLIED, DriverAnswer
        from arena.policy import Outcome

        host = request.host
        if not isinstance(host, TableHost):
            return DriverAnswer(None, None, Outcome.PROTOCOL_ERROR, "polling seat outside an API table")
        if host.wait_for_move(request.seat, time.monotonic() + request.deadline_s):
            return DriverAnswer(MOVE_ALREADY_APPLIED)
        return DriverAnswer(None, None, Outcome.TIMEOUT,
                            f"no move through the move API within {request.deadline_s * 1000:.0f} ms")


def seats_changed(conn: Any, prefix: str, bot_id: str) -> None:
    """Bump the bot's seats version and wake its ladder-seats long-polls (they wait on that version)."""
    key = keys.arena_poll_seats_version(prefix, bot_id)
    pipe = conn.pipeline(transaction=True)
    pipe.incr(key)
    pipe.expire(key, POLL_SEAT_TTL_S)
    version, _ = pipe.execute()
    conn.publish(keys.table_events(prefix, keys.bot_seats_topic(bot_id)), version)


def seats_version(conn: Any, prefix: str, bot_id: str) -> int:
    return int(conn.get(keys.arena_poll_seats_version(prefix, bot_id)) or 0)


def wait_for_seats(tables: TableStore, bot_id: str, after: int, timeout: float) -> int:
    """Block until the bot's seats version exceeds `after` or `timeout` passes (the tables' notifier)."""
    from api.notify import get_watcher

    watcher = get_watcher(tables.redis, tables.prefix)
    return watcher.wait(keys.bot_seats_topic(bot_id), after, timeout,
                        lambda: seats_version(tables.redis, tables.prefix, bot_id))


def poll_seats(tables: TableStore, bot_id: str) -> list[dict[str, Any]]:
    raw = tables.redis.hgetall(keys.arena_poll_seats(tables.prefix, bot_id))
    return sorted((json.loads(v) for v in raw.values()), key=lambda e: (e["match"], e["game_no"]))

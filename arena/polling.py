"""Polling bots on ladders: a match game hosted as a real API table, moved through the move API.

The arena waits for the bot's move until the ladder's deadline, then plays the fallback and strikes it.
Design: docs/bot-protocol.md#polling-bots.
"""

from __future__ import annotations

import time
from typing import Any

import engine
from arena.drivers import MOVE_ALREADY_APPLIED, DecisionRequest, DriverAnswer, StaleMove
from arena.policy import Outcome
from core.arena.model import MatchSpec, Member, MemberKind
from core.arena.seats import publish_poll_seat, withdraw_poll_seat
from core.errors import MoveConflict
from core.tables.store import SeatKind, SeatSpec, TableStore
from engine.shapes import Move, Record, SeatView, SpectatorView

# Extra time for a polling seat's first decision at a table: picking up the new seat (docs/bot-protocol.md).
SEAT_PICKUP_S = 2.0


class TableHost:
    """One game of a match, stored as an API table; mirrors it in a local engine game for views and totals."""

    def __init__(self, tables: TableStore, spec: MatchSpec, seating: list[Member], game_no: int,
                 seed: int) -> None:
        self.tables = tables
        self.spec = spec
        self.seating = seating
        seats = [SeatSpec(SeatKind.OPEN if m.kind is MemberKind.POLL else SeatKind.BOT, m.bot_id)
                 for m in seating]
        record = tables.create_table(spec.game, spec.players, spec.options, seats, seed=seed,
                                     move_timeout=spec.deadline_ms / 1000.0,
                                     labels={"match": spec.match_id, "ladder": spec.ladder_id,
                                             "game_no": str(game_no)})
        self.table_id = record.table_id
        self.game = engine.new_game(spec.game, spec.players, spec.options, seed=seed)
        self.poll_seats: dict[int, str] = {}
        self.picked_up: set[int] = set()  # polling seats past their first decision (no pickup time any more)
        for seat, member in enumerate(seating):
            if member.kind is MemberKind.POLL:
                token = tables.join(self.table_id, seat)
                self.poll_seats[seat] = member.bot_id
                entry = {"table": self.table_id, "seat": seat, "token": token, "match": spec.match_id,
                         "ladder": spec.ladder_id, "game_no": game_no, "deadline_ms": spec.deadline_ms}
                publish_poll_seat(tables.redis, tables.prefix, member.bot_id, entry)

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

    def view(self, seat: int) -> SeatView:
        return self.game.view(seat)

    def spectator_view(self) -> SpectatorView:
        return self.game.spectator_view()

    def record(self) -> Record:
        return self.game.record()

    def apply(self, seat: int, move: Move) -> None:
        try:
            self.tables.apply_move(self.table_id, seat, move, expected_version=self.game.version)
        except MoveConflict as conflict:
            self.sync()
            raise StaleMove(conflict.detail) from None
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
            withdraw_poll_seat(self.tables.redis, self.tables.prefix, bot_id, self.table_id)


class PollDriver:
    """The seat driver of a polling bot: nothing to call, only a move to wait for."""

    def wake_up(self) -> None:
        return None  # a polling bot calls in itself

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None

    def end_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        host = request.game
        if not isinstance(host, TableHost):
            return DriverAnswer.failed(Outcome.PROTOCOL_ERROR, "polling seat outside an API table")
        allowed_s = request.deadline_s + (0.0 if request.seat in host.picked_up else SEAT_PICKUP_S)
        host.picked_up.add(request.seat)
        if host.wait_for_move(request.seat, time.monotonic() + allowed_s):
            return MOVE_ALREADY_APPLIED
        return DriverAnswer.failed(Outcome.TIMEOUT,
                                   f"no move through the move API within {allowed_s * 1000:.0f} ms")

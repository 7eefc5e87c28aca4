"""What a seat must hold to read or move: the checks both move paths of the store share (core.tables.store).

A move is checked the same way whether it is tried on the game this process cached or on a fresh read of
the table, in this order: the seat exists, its token holds it (when asked), the game is not over, the seat
has a decision, and the client saw that decision (``decision_since[seat] <= expected <= version``).
"""

from __future__ import annotations

from core.errors import BadToken, NotYourTurn, SeatNotFound, StaleVersion, TableNotFound, TableOver
from core.tables.record import TableRecord
from core.tokens import require_token, token_matches


def check_seat(record: TableRecord, seat: int) -> None:
    if not 0 <= seat < record.players:
        raise SeatNotFound(record.table_id, seat)


def check_seat_token(table_id: str, seat: int, token: str | None, stored: str | None,
                     players: int | str | None) -> None:
    """`token` holds `seat` (`stored`: the seat's token hash, None if nobody joined; `players`: the table's
    player count, None if there is no such table)."""
    if players is None:
        raise TableNotFound(table_id)
    if not 0 <= seat < int(players):
        raise SeatNotFound(table_id, seat)
    token = require_token(token, "seat", "seat")
    if stored is None or not token_matches(token, stored):
        raise BadToken(f"this token does not hold seat {seat} of table {table_id}")


def check_move(record: TableRecord, seat: int, expected_version: int, *, authenticate: bool = False,
               token: str | None = None) -> None:
    """`seat` may move now on the table as `record` has it, for a client that saw `expected_version`; with
    `authenticate`, `token` must hold the seat. Raises the domain error that says why not."""
    check_seat(record, seat)
    if authenticate:
        check_seat_token(record.table_id, seat, token, record.token_hashes.get(seat), record.players)
    if record.over:
        raise TableOver()
    if seat not in record.to_act:
        raise NotYourTurn(seat, record.to_act, record.version)
    if not record.decision_since[seat] <= expected_version <= record.version:
        raise StaleVersion(record.table_id, expected_version, record.version, record.decision_since[seat])

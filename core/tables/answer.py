"""A seat's answer to ``GET /api/tables/{id}/seats/{seat}``, as the wire carries it: its fields and encoder.
Each commit stores every seat's answer encoded and a read sends it as it is, so it is declared once, here.

Design: docs/api.md#the-hot-path-seat-state-and-moves
"""

from __future__ import annotations

from typing import Any, TypedDict

import orjson

from core.tables.record import TableStatus
from engine.shapes import SeatView


class SeatAnswer(TypedDict):
    """The answer's fields, in the order they are sent."""

    table_id: str
    seat: int
    version: int
    status: str  # a TableStatus value
    to_act: list[int]
    your_turn: bool  # seat in to_act
    deadline: float | None  # unix time the seat's decision is due; None if nothing is due or no timeout
    view: SeatView  # the seat's view: own hand + public table (+ legal, decision)


SEAT_ANSWER_FIELDS: tuple[str, ...] = tuple(SeatAnswer.__annotations__)


def encode_seat_answer(table_id: str, seat: int, version: int, status: TableStatus, to_act: list[int],
                       deadline: float | None, view: Any) -> bytes:
    """The answer encoded as it is sent; `view` a dict, or already encoded JSON as an ``orjson.Fragment``.

    >>> answer = encode_seat_answer("t1", 1, 4, TableStatus.PLAYING, [1, 2], None, {"hand": ["QS"]})
    >>> tuple(orjson.loads(answer)) == SEAT_ANSWER_FIELDS, orjson.loads(answer)["your_turn"], view_of(answer)
    (True, True, {'hand': ['QS']})
    """
    return orjson.dumps({"table_id": table_id, "seat": seat, "version": version, "status": status.value,
                         "to_act": to_act, "your_turn": seat in to_act, "deadline": deadline, "view": view})


def view_of(answer: str | bytes) -> SeatView:
    """The seat's view inside an encoded answer."""
    decoded: SeatAnswer = orjson.loads(answer)
    return decoded["view"]

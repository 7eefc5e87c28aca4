"""A table's record, as it lives in its Redis hash: the values, and the one codec between them.

Every stored field's encoding is declared once in ``FIELDS``: ``encode_record`` writes a new table, a move's
commit the few ``MOVE_FIELDS`` (``encode_fields``), and every read decodes with ``decode_record``. The hash
also holds each joined seat's token hash and, once the game is over, its replay record (``REPLAY_FIELD``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson

import engine.deals
from core.errors import TableNotFound, UnknownDealing


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


# The label of a table an arena match hosts: its match runner plays the registered bots' seats itself.
MATCH_LABEL = "match"


def driven_seats_to_act(seats: list[SeatSpec], to_act: list[int], labels: dict[str, str]) -> list[int]:
    """The seats among `to_act` the drive job plays: house bots, and registered bots at a table a person
    opened (at a table an arena match hosts, the match plays them).

    >>> seats = [SeatSpec(SeatKind.OPEN), SeatSpec(SeatKind.HOUSE, "random"), SeatSpec(SeatKind.BOT, "b1")]
    >>> driven_seats_to_act(seats, [0, 1, 2], {}), driven_seats_to_act(seats, [0, 1, 2], {"match": "m1"})
    ([1, 2], [1])
    """
    hosted = MATCH_LABEL in labels
    return [seat for seat in to_act
            if seats[seat].kind == SeatKind.HOUSE or (seats[seat].kind == SeatKind.BOT and not hosted)]


def has_guest_bots(seats: list[SeatSpec], labels: dict[str, str]) -> bool:
    """A table a person opened with a registered bot seated: its drives run on the arena's challenge workers
    (they call the bot over HTTP), not on the house-bot worker.

    >>> has_guest_bots([SeatSpec(SeatKind.OPEN), SeatSpec(SeatKind.BOT, "b1")], {})
    True
    """
    return MATCH_LABEL not in labels and any(seat.kind == SeatKind.BOT for seat in seats)


def decision_deadline(seat: int, to_act: list[int], turn_started: list[float],
                      move_timeout: float | None) -> float | None:
    """When `seat`'s pending decision is due, None if it has none or the table sets no timeout."""
    if move_timeout is None or seat not in to_act:
        return None
    return turn_started[seat] + move_timeout


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
    dealing: int = engine.deals.CURRENT_VERSION  # the engine's dealing version (docs/deals.md)
    token_hashes: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def over(self) -> bool:
        return self.status == TableStatus.OVER

    def deadline(self, seat: int) -> float | None:
        """When the seat's pending decision is due (advisory for practice tables), None if nothing is due."""
        return decision_deadline(seat, self.to_act, self.turn_started, self.move_timeout)


def token_hash_field(seat: int) -> str:
    """The table hash's field with the hash of `seat`'s token (absent until the seat is joined)."""
    return f"token:{seat}"


# The table hash's field with the engine's replay record, written by the commit that ends the game.
REPLAY_FIELD = "record"

Encoded = str | int | float


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def _encode_seats(seats: list[SeatSpec]) -> str:
    return _json([{"kind": seat.kind.value, "name": seat.name} for seat in seats])


def _decode_seats(stored: str) -> list[SeatSpec]:
    return [SeatSpec(SeatKind(seat["kind"]), seat["name"]) for seat in orjson.loads(stored)]


Codec = tuple[Callable[[Any], Encoded], Callable[[str], Any]]
_JSON: Codec = (_json, orjson.loads)
_INT: Codec = (int, int)
_FLOAT: Codec = (float, float)
_TEXT: Codec = (str, str)

# Every field of the record in the table hash: (encode, decode). Redis keeps text; numbers go as numbers.
FIELDS: dict[str, Codec] = {
    "game": _TEXT,
    "players": _INT,
    "options": _JSON,
    "seats": (_encode_seats, _decode_seats),
    "seed": (str, int),  # as text: a 53-bit seed survives every client
    "nonce": _TEXT,
    "commitment": _TEXT,
    "status": (lambda status: TableStatus(status).value, TableStatus),
    "version": _INT,
    "to_act": _JSON,
    "decision_since": _JSON,
    "turn_started": _JSON,
    "created": _FLOAT,
    "updated": _FLOAT,
    "labels": _JSON,
    "dealing": _INT,
    "deals": _JSON,
    "move_timeout": _FLOAT,
}
# Fields a table may leave out: absent means None (a table dealt from its seed alone; no move timeout).
OPTIONAL = frozenset({"deals", "move_timeout"})
# The fields a move's commit changes.
MOVE_FIELDS = ("version", "status", "to_act", "decision_since", "turn_started", "updated")


def encode_fields(record: TableRecord, names: Iterable[str]) -> dict[str, Encoded]:
    """The named fields of `record` as the table hash stores them (optional ones that are None left out)."""
    encoded: dict[str, Encoded] = {}
    for name in names:
        value = getattr(record, name)
        if value is None and name in OPTIONAL:
            continue
        encoded[name] = FIELDS[name][0](value)
    return encoded


def encode_record(record: TableRecord) -> dict[str, Encoded]:
    """Every field of a new table's hash (no seat is joined yet: no token fields).

    >>> record = TableRecord("t1", "spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, [False] * 4, 7,
    ...                      "n", "c", TableStatus.PLAYING, 0, [0], [0] * 4, [1.0] * 4, 1.0, 1.0,
    ...                      move_timeout=30.0)
    >>> stored = {name: str(value) for name, value in encode_record(record).items()}
    >>> stored["seed"], stored["status"], stored["dealing"], stored["move_timeout"], "deals" in stored
    ('7', 'playing', '2', '30.0', False)
    >>> decode_record("t1", stored) == record
    True
    >>> encode_fields(record, ["version", "to_act"])
    {'version': 0, 'to_act': '[0]'}
    """
    return encode_fields(record, FIELDS)


def decode_field(name: str, stored: str) -> Any:
    """One field of the record as a partial read of the table hash (HMGET) gets it."""
    return FIELDS[name][1](stored)


def decode_record(table_id: str, stored: dict[str, str]) -> TableRecord:
    """The record in a table's hash: TableNotFound for an empty one, UnknownDealing for a table of a dealing
    version this service does not deal."""
    if not stored:
        raise TableNotFound(table_id)
    stated = stored.get("dealing")
    dealing = int(stated) if stated is not None and stated.isdigit() else stated
    try:
        engine.deals.check_version(dealing)
    except engine.EngineError:
        raise UnknownDealing(table_id, dealing) from None
    values = {name: decode(stored[name]) for name, (_, decode) in FIELDS.items()
              if name in stored or name not in OPTIONAL}
    players: int = values["players"]
    tokens = {seat: stored[token_hash_field(seat)] for seat in range(players)
              if token_hash_field(seat) in stored}
    return TableRecord(table_id=table_id, joined=[seat in tokens for seat in range(players)],
                       token_hashes=tokens, **values)

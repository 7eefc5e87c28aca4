"""The shapes the engine hands out: the phase enum, decisions, seat views, round summaries, records. Typed
dicts, so they stay the plain JSON objects clients read while the type checker knows every key.

Design: docs/engine.md#views
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NotRequired, TypedDict


class Phase(StrEnum):
    """Where a game is: ``sore`` (Sore Spot's secret card), ``pass``, ``play``, or ``over``.

    A ``str`` enum: ``Phase.PLAY == "play"`` and it serialises as ``"play"``.

    >>> Phase.PASS == "pass", str(Phase.PASS)
    (True, 'pass')
    """

    SORE = "sore"
    PASS = "pass"
    PLAY = "play"
    OVER = "over"


#: A move: a card code for a play or a sore card, a list of codes for a pass.
Move = str | list[str]


class Decision(TypedDict):
    """What a seat must decide now: ``{"kind": "play", "count": 1, "legal": ["2C", ...]}``."""

    kind: Phase
    count: int
    legal: list[str]


class TrickCard(TypedDict):
    seat: int
    card: str


class CurrentTrick(TypedDict):
    leader: int | None
    cards: list[TrickCard]


class Trick(TypedDict):
    """A completed trick; ``winner`` is None for Sore Spot's all-Ace trick (R-SS-WIN)."""

    leader: int
    cards: list[str]
    winner: int | None


class RoundPoints(TypedDict):
    dealer: int
    points: list[int]


class RoundSummary(TypedDict):
    """A finished round in ``g.history``; the optional keys belong to the games that have them."""

    dealer: int
    tricks: list[Trick]
    points: list[int]
    pass_direction: NotRequired[str]
    sore_cards: NotRequired[list[str]]
    moon: NotRequired[int | None]
    trump: NotRequired[str | None]


class TableView(TypedDict):
    """The public table: the common part of a spectator's and a seat's view."""

    game: str
    players: int
    options: dict[str, Any]
    version: int
    round: int
    dealer: int
    phase: Phase
    to_act: list[int]
    hand_sizes: list[int]
    trick: CurrentTrick
    tricks: list[Trick]
    scores: list[int]
    rounds: list[RoundPoints]
    over: bool
    winners: list[int]
    pass_direction: NotRequired[str]
    hearts_broken: NotRequired[bool]
    trump: NotRequired[str | None]
    broken: NotRequired[list[str]]
    sore_cards: NotRequired[list[str | None]]


class SpectatorView(TableView):
    """What a spectator sees: the public table, ``seat`` None."""

    seat: None


class SeatView(TableView):
    """A seat's view: the table plus its own hand, pending choice, pass and decision."""

    seat: int
    hand: list[str]
    chosen: NotRequired[list[str]]
    passed: NotRequired[list[str]]
    received: NotRequired[list[str]]
    decision: Decision | None
    legal: list[str]


class Deal(TypedDict):
    """One round's deal in a record: the dealer and every hand in seat order (card codes)."""

    dealer: int
    hands: list[list[str]]


class MoveEntry(TypedDict):
    seat: int
    move: Move


class Record(TypedDict):
    """A replay record (``g.record()``); ``seed`` is absent for a game dealt only explicitly."""

    game: str
    players: int
    options: dict[str, Any]
    deals: list[Deal]
    moves: list[MoveEntry]
    seed: NotRequired[int | str]
    dealing: NotRequired[int]  # the dealing version (docs/deals.md), with the seed

"""Seat drivers: who makes a seat's decisions in a match, and what a driver answers.

An engine bot in-process (``HouseDriver``), a bot behind a URL (``HttpDriver``) or a polling bot that moves
through the move API (``arena.polling.PollDriver``). Design: docs/arena.md#seat-drivers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import engine.bots
from arena.botclient import BotClient, CallResult, encode_json
from arena.policy import Outcome
from core.arena.matchgame import MatchGame
from engine.shapes import Decision, Move, SeatView


class StaleMove(Exception):
    """The table moved on before our move was committed (a polling bot acted at the last moment)."""


@dataclass
class DecisionRequest:
    """What a driver gets for one decision; ``payload`` is the protocol v1 /move body, ``decision`` the
    view's decision (its kind, count and legal moves)."""

    game_no: int
    table_id: str
    seat: int
    view: SeatView
    payload: dict[str, Any]
    deadline_s: float
    game: MatchGame  # an engine game, or a TableHost for matches with polling bots
    decision: Decision

    def take_body(self) -> bytes:
        """The /move body, encoded; the request lets go of its view and payload (left empty), so that a
        match waiting on a bot far away holds bytes, not the seat view's objects."""
        body = encode_json(self.payload)
        self.view, self.payload = {}, {}  # type: ignore[typeddict-item]
        return body


@dataclass(frozen=True)
class DriverAnswer:
    """A driver's answer: a move, a failure (``move`` None, ``failure`` says how), or ``already_applied``."""

    move: Move | None
    call: CallResult | None = None  # the HTTP exchange, when there was one
    failure: Outcome | None = None
    detail: str = ""
    # The move is already on the table: a polling bot moved through the move API.
    already_applied: bool = False

    @classmethod
    def failed(cls, failure: Outcome, detail: str, call: CallResult | None = None) -> DriverAnswer:
        return cls(None, call, failure, detail)


MOVE_ALREADY_APPLIED = DriverAnswer(None, already_applied=True)


class SeatDriver(Protocol):
    def wake_up(self) -> CallResult | None:
        """Before a match's first deal: wake a bot whose host sleeps when idle (None: nothing to wake)."""

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> CallResult | None: ...

    def decide(self, request: DecisionRequest) -> DriverAnswer: ...

    def end_game(self, game_no: int, payload: dict[str, Any]) -> CallResult | None: ...


class HouseDriver:
    """An engine bot, in-process. Fresh RNG per game so a duplicate match is reproducible."""

    def __init__(self, house_bot: str, seed: str) -> None:
        self.house_bot = house_bot
        self.seed = seed
        self.bot = engine.bots.make_bot(house_bot, seed)

    def wake_up(self) -> None:
        return None

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> None:
        self.bot = engine.bots.make_bot(self.house_bot, f"{self.seed}:{game_no}")

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        return DriverAnswer(self.bot.choose(request.view))

    def end_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None


class HttpDriver:
    """A bot behind a URL, protocol v1, through a kept-alive BotClient."""

    NOTIFY_TIMEOUT_S = 0.5
    # A free host that sleeps when idle takes 5-10 s to answer its first request: the wake-up call (GET /,
    # as the health check) waits this long before the first deal, so the first move is not a timeout.
    WAKE_TIMEOUT_S = 15.0

    def __init__(self, client: BotClient) -> None:
        self.client = client

    def wake_up(self) -> CallResult:
        return self.client.info(self.WAKE_TIMEOUT_S)

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> CallResult:
        return self.client.notify("start", payload, self.NOTIFY_TIMEOUT_S)

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        move, result = self.client.move_body(request.take_body(), request.decision, request.deadline_s)
        if move is None:
            return DriverAnswer.failed(result.outcome, result.detail, result)
        return DriverAnswer(move, result)

    def end_game(self, game_no: int, payload: dict[str, Any]) -> CallResult:
        return self.client.notify("end", payload, self.NOTIFY_TIMEOUT_S)

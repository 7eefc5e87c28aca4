"""A game driven one card at a time: the engine's game plus the cards picked so far toward a multi-card pass,
the seat to act next (simultaneous phases in seat order), and each seat's view and encoding.
Design: docs/training.md#the-action-space
"""

from __future__ import annotations

from typing import Any

import numpy as np

import engine
from engine.card_tables import CODES, INT_OF_CODE
from engine.game import rules_for
from engine.shapes import SeatView
from engine.state import GameState

from .encoding import GameEncoder


class IllegalActionError(ValueError):
    """An action outside the seat's mask: nothing changed."""


class Table:
    """``game`` played card by card: :meth:`act` takes one action of :data:`~training.encoding.ACTIONS`."""

    def __init__(self, game: GameState[Any]) -> None:
        self.game = game
        self.picked: list[int] = []  # the seat to act's cards chosen so far toward its pass
        rules = rules_for(game.game_id)
        self.low_wins = rules.low_wins
        self.pass_count = rules.pass_count
        self.encoder = GameEncoder(game)  # what encode() makes of the views, kept up to date card by card
        self._view_key: tuple[int, int] = (-1, -1)
        self._view: SeatView | None = None

    @classmethod
    def new(cls, game: str, players: int, options: dict[str, Any] | None, seed: int | str) -> Table:
        return cls(engine.new_game(game, players, options, seed=seed))

    def seat(self) -> int:
        """The seat to act: the one whose turn it is, or in a simultaneous phase the lowest still to choose;
        -1 once the game is over."""
        game = self.game
        if game.phase == "play":
            return game.turn
        seats = game.to_act()
        return seats[0] if seats else -1

    def view(self, seat: int) -> SeatView:
        """``seat``'s view as the engine gives it (kept until the next move)."""
        key = (self.game.version, seat)
        if key != self._view_key or self._view is None:
            self._view = self.game.view(seat)
            self._view_key = key
        return self._view

    def picks_of(self, seat: int) -> list[int]:
        return self.picked if seat == self.seat() else []

    def observe(self, seat: int) -> np.ndarray:
        """``encode(self.view(seat), self.picks_of(seat))``, from the game's state (no view is built)."""
        return self.encoder.encode(seat, self.picks_of(seat))

    def mask(self, seat: int) -> np.ndarray:
        """``action_mask(self.view(seat), self.picks_of(seat))``, from the game's state."""
        return self.encoder.mask(seat, self.picks_of(seat))

    def legal(self, seat: int) -> list[int]:
        """``legal_actions(self.view(seat), self.picks_of(seat))``, from the game's state."""
        skip = self.picks_of(seat)
        return sorted(c for c in (INT_OF_CODE[x] for x in self.game.legal_moves(seat)) if c not in skip)

    def act(self, action: int) -> list[int] | None:
        """Play ``action`` for :meth:`seat`; the round's points (as the engine scores them) if it ended one.

        A pass is made of successive single cards: the engine gets the whole pass with its last card.
        """
        game = self.game
        seat = self.seat()
        if seat < 0:
            raise IllegalActionError("the game is over")
        legal = game.legal_moves(seat)
        if not 0 <= action < 52 or CODES[action] not in legal or action in self.picked:
            raise IllegalActionError(f"action {action} ({CODES[action] if 0 <= action < 52 else '?'}) is not "
                                     f"legal for seat {seat}: {legal}")
        round_no = game.round_no
        if game.phase == "pass" and self.pass_count > 1:
            self.picked.append(action)
            if len(self.picked) < self.pass_count:
                return None
            move: Any = [CODES[c] for c in self.picked]
            self.picked = []
        else:
            move = CODES[action]
        game.apply(seat, move)
        if game.round_no != round_no or game.over:
            return list(game.history[round_no]["points"])
        return None

    def signed(self, points: list[int]) -> list[int]:
        """Round points as rewards: penalty points (lowest total wins) negative, scoring points positive."""
        return [-p for p in points] if self.low_wins else list(points)

    def places(self) -> list[float]:
        """At the end: each seat's share of seats it beat minus those that beat it, in [-1, 1]."""
        totals = self.game.totals
        n = len(totals)
        sign = -1 if self.low_wins else 1
        return [sum((sign * (t - u) > 0) - (sign * (t - u) < 0) for u in totals) / (n - 1) for t in totals]

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        """An independent copy (OpenSpiel clones states by deep copy): the engine's own :meth:`copy`."""
        out = Table(self.game.copy())
        out.picked = list(self.picked)
        return out

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as the engine's replay record and the picks (OpenSpiel serializes states by pickle)."""
        return _restore, (self.game.record(), list(self.picked))


def _restore(record: Any, picked: list[int]) -> Table:
    table = Table(engine.load(record))
    table.picked = picked
    return table

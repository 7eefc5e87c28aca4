"""Rollouts for the search: the heuristic in every seat, without building a view per move (the heuristic's
:class:`~engine.bots.heuristics.Situation` is kept up to date from the moves applied).

Design: docs/engine.md#the-search-bot-search-search-ms
"""

from __future__ import annotations

import time
from typing import Any

from ..cards import CODES, SUIT_OF, SUITS, Card
from ..games import sloppy_seconds
from ..shapes import Move, TableView
from ..state import GameState
from .heuristics import POLICIES, Situation

_INT: dict[str, int] = {code: Card.parse(code) for code in CODES}


class OutOfTime(Exception):
    """A rollout passed its deadline; its result is thrown away."""


class HeuristicRollout:
    """Plays a world to the end of its round with the game's heuristic in every seat.

    >>> import engine
    >>> g = engine.new_game("sloppy-seconds", players=4, seed=2)
    >>> points = HeuristicRollout(g).play_round(g, deadline=float("inf"))
    >>> len(points), g.round_no
    (4, 1)
    """

    def __init__(self, world: GameState[Any]) -> None:
        table = world.spectator_view()
        self.game = table["game"]
        self.n = table["players"]
        self.policy = POLICIES[self.game]
        self.trick = [_INT[e["card"]] for e in table["trick"]["cards"]]
        self.seats = [e["seat"] for e in table["trick"]["cards"]]
        self.won = [[0] * 4 for _ in range(self.n)]
        self.played_cards: list[int] = []  # Sloppy Seconds: the cards of finished tricks
        self.sloppy = self.game == "sloppy-seconds"
        if self.sloppy:
            for t in table["tricks"]:
                winner = t["winner"]
                if winner is None:
                    continue
                for code in t["cards"]:
                    self.won[winner][SUIT_OF[_INT[code]]] += sloppy_seconds.VALUE[_INT[code]]
                    self.played_cards.append(_INT[code])
        self._read_table(table)

    def _read_table(self, table: TableView) -> None:
        self.broken = [SUITS.index(s) for s in table.get("broken", [])]
        trump = table.get("trump")
        self.trump = None if trump is None else SUITS.index(trump)
        self.sore = [None if c is None else SUIT_OF[_INT[c]] for c in table.get("sore_cards") or []]

    def move(self, world: GameState[Any], seat: int) -> Move:
        decision = world.decision(seat)
        assert decision is not None
        sit = Situation(self.game, self.n, seat, decision["kind"], decision["count"],
                        [_INT[c] for c in decision["legal"]], self.trick, self.seats, self.won,
                        self.broken, self.trump, self.sore, self.played_cards)
        return self.policy(sit)

    def played(self, world: GameState[Any], seat: int, move: Move, phase: str) -> None:
        """Follow ``seat``'s accepted ``move`` (made in ``phase``)."""
        if phase != "play":
            if world.phase == "play":  # the simultaneous phase resolved: sore cards are public now
                self._read_table(world.spectator_view())
            return
        c = _INT[move]  # type: ignore[index]
        if self.sloppy and self.trick and SUIT_OF[c] != SUIT_OF[self.trick[0]] and self.trump is None:
            self._read_table(world.spectator_view())
        self.trick = [*self.trick, c]
        self.seats = [*self.seats, seat]
        if len(self.trick) == self.n:
            if self.sloppy and world.round_no == 0 and not world.over:
                winner = world.to_act()[0]
                for x in self.trick:
                    self.won[winner][SUIT_OF[x]] += sloppy_seconds.VALUE[x]
                self.played_cards.extend(self.trick)
            self.trick, self.seats = [], []

    def play_round(self, world: GameState[Any], deadline: float) -> list[int]:
        """Play ``world`` (a world starts at round 0) to the end of the round; the round's points.

        Raises :class:`OutOfTime` once ``time.monotonic()`` passes ``deadline``.
        """
        while world.round_no == 0 and not world.over:
            if time.monotonic() > deadline:
                raise OutOfTime
            for seat in world.to_act():
                phase = world.phase
                move = self.move(world, seat)
                world.apply(seat, move)
                self.played(world, seat, move, phase)
        return list(world.history[0]["points"])

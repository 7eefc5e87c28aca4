"""Gymnasium's single-agent API: one seat learns, the others are house bots by name or any callable
``choose(view) -> move``; ``action_masks()`` for maskable learners (sb3-contrib's MaskablePPO).
Design: docs/training.md#gymnasium
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import engine
from engine.bots import make_bot
from engine.card_tables import INT_OF_CODE
from engine.shapes import Move, SeatView

from .aec import REWARDS
from .encoding import ACTIONS, bounds
from .table import IllegalActionError, Table

#: An opponent: a house bot's name (``random``, ``heuristic``, ``eps-0.3``, ``search-10``...), a callable
#: ``choose(view) -> move`` or an object with such a ``choose`` method (a ``trickarena.Bot``, say).
Opponent = str | Callable[[SeatView], Move] | Any


class SeatEnv(gymnasium.Env[np.ndarray, int]):
    """``seat`` learns one card per step; between its steps the other seats play (``opponents``: one for
    every other seat in seat order, or one for all). Rewards as :class:`~training.aec.TrickArenaEnv`'s, for
    the learning seat. An action outside :meth:`action_masks` changes nothing: the step returns the same
    observation with ``illegal_reward`` and ``info["illegal_action"]``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str = "spot-hearts", players: int | None = None,
                 options: dict[str, Any] | None = None, seat: int = 0,
                 opponents: Opponent | Sequence[Opponent] = "heuristic", reward: str = "points",
                 illegal_reward: float = 0.0, render_mode: str | None = None) -> None:
        if game not in engine.GAMES:
            raise engine.OptionsError(f"unknown game {game!r}; games: {', '.join(engine.GAMES)}")
        info = engine.GAMES[game]
        players = players if players is not None else min(4, info.max_players)
        self.options = engine.validate_options(game, players, dict(options or {}))
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1}, not {seat}")
        others = [s for s in range(players) if s != seat]
        if isinstance(opponents, str) or callable(opponents) or hasattr(opponents, "choose"):
            opponents = [opponents] * len(others)
        opponents = list(opponents)
        if len(opponents) != len(others):
            raise ValueError(f"{len(others)} opponents needed (one per other seat), not {len(opponents)}")
        for opponent in opponents:
            if isinstance(opponent, str) and not engine.bots.is_house_bot_name(opponent):
                make_bot(opponent)  # raises ValueError naming the house bots
        self.game_id, self.players, self.seat = game, players, seat
        self.opponents: dict[int, Opponent] = dict(zip(others, opponents, strict=True))
        self.reward_kind = reward
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        low, high = bounds(players)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(ACTIONS)  # type: ignore[assignment]  # Discrete's int is numpy's
        self._seeds = random.Random()
        self.table: Table | None = None
        self._choosers: dict[int, Callable[[SeatView], Move]] = {}
        self._pending: dict[int, list[int]] = {}  # an opponent's pass, fed one card at a time

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game exactly as ``engine.new_game(..., seed=seed)`` deals; house bots are seeded from
        the game's seed and their seat. The opponents play until the learning seat must act."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds.seed(seed)
            game_seed: int = seed
        else:
            game_seed = self._seeds.randrange(2 ** 31)
        self.table = Table.new(self.game_id, self.players, self.options, game_seed)
        self._choosers = {}
        for s, opponent in self.opponents.items():
            if isinstance(opponent, str):
                self._choosers[s] = make_bot(opponent, seed=f"{game_seed}/{s}").choose
            elif hasattr(opponent, "choose"):
                self._choosers[s] = opponent.choose
            else:
                self._choosers[s] = opponent
        self._pending = {}
        reward = self._others_play()
        return self._obs(), self._info(reward)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        table = self._table()
        if table.game.over:
            raise RuntimeError("the game is over: call reset()")
        try:
            points = table.act(int(action))  # the learning seat's turn: between steps the others play
        except IllegalActionError:  # raised before anything changed
            info = self._info(0.0)
            info["view"] = copy.deepcopy(info["view"])  # the same position: a view of its own all the same
            info["illegal_action"] = True
            return self._obs(), self.illegal_reward, False, False, info
        reward = self._reward(points)
        reward += self._others_play()
        return self._obs(), reward, table.game.over, False, self._info(reward)

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (what MaskablePPO asks for)."""
        return self._table().mask(self.seat).astype(bool)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        view = self.table.view(self.seat)
        return f"{self.game_id} round {view['round']} {view['phase']} hand {' '.join(view['hand'])}"

    # --- the other seats --------------------------------------------------------------------------------
    def _others_play(self) -> float:
        """Let the other seats act until the learning seat must (or the game ends); the learner's reward."""
        table = self._table()
        reward = 0.0
        while True:
            seat = table.seat()
            if seat < 0 or seat == self.seat:
                return reward
            cards = self._pending.get(seat)
            if not cards:
                move = self._choosers[seat](table.view(seat))
                cards = [INT_OF_CODE[c] for c in move] if isinstance(move, list) else [INT_OF_CODE[move]]
                self._pending[seat] = cards
            reward += self._reward(table.act(cards.pop(0)))

    def _reward(self, points: list[int] | None) -> float:
        table = self._table()
        value = 0.0
        if points is not None and self.reward_kind == "points":
            value = float(table.signed(points)[self.seat])
        if table.game.over and self.reward_kind == "place":
            value += table.places()[self.seat]
        return value

    def _obs(self) -> np.ndarray:
        return self._table().observe(self.seat)

    def _info(self, reward: float) -> dict[str, Any]:
        table = self._table()
        game = table.game
        info: dict[str, Any] = {"action_mask": table.mask(self.seat), "view": table.view(self.seat)}
        if game.over:
            info.update(record=game.record(), totals=list(game.totals), winners=list(game.winners))
        return info

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table

"""PettingZoo's AEC API over the engine: agents are the seats, one card per step, a dict observation with an
``action_mask``; rewards are the game's round points (penalty points negative) or places at the end.
Design: docs/training.md#pettingzoo
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import engine
from engine.card_tables import CODES

from .encoding import ACTIONS, bounds
from .table import Table

REWARDS = ("points", "place")


def agent_name(seat: int) -> str:
    return f"seat_{seat}"


class TrickArenaEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """One game of ``game`` for ``players`` seats with the engine's ``options`` (validated as the API does).

    ``reward``: ``"points"`` gives every seat its points at the end of each round, signed so that more is
    better (penalty points negative); ``"place"`` gives each seat, once the game is over, the share of seats
    it beat minus the share that beat it (ties count for neither). ``view_infos``: ``infos[agent]["view"]``
    holds the seat to act's view, as the bot protocol sends it (off: a little faster).
    """

    metadata = {"name": "trickarena_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str = "spot-hearts", players: int | None = None,
                 options: dict[str, Any] | None = None, reward: str = "points",
                 render_mode: str | None = None, view_infos: bool = True) -> None:
        super().__init__()
        if game not in engine.GAMES:
            raise engine.OptionsError(f"unknown game {game!r}; games: {', '.join(engine.GAMES)}")
        info = engine.GAMES[game]
        players = info.max_players if players is None and info.min_players == info.max_players else (
            players if players is not None else 4)
        self.options = engine.validate_options(game, players, dict(options or {}))
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.game_id = game
        self.players = players
        self.reward_kind = reward
        self.render_mode = render_mode
        self.view_infos = view_infos
        self.possible_agents = [agent_name(s) for s in range(players)]
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self.agents = list(self.possible_agents)
        low, high = bounds(players)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}
        self._seeds = random.Random()
        self.seed: int | str = 0
        self.table: Table | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- the AEC API ------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: from ``seed`` exactly as ``engine.new_game(..., seed=seed)`` deals; without one,
        from the next seed of the environment's own sequence (itself seeded by the last ``seed`` given)."""
        if seed is not None:
            self._seeds.seed(seed)
            self.seed = seed
        else:
            self.seed = self._seeds.randrange(2 ** 31)
        self.table = Table.new(self.game_id, self.players, self.options, self.seed)
        self.agents = list(self.possible_agents)
        self.rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._rewarded = False  # whether a reward of the last step is not 0.0
        seat = self.table.seat()
        self.agent_selection = agent_name(seat)
        self._set_infos(None, seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        table = self._table()
        seat = self._seat_of[agent]
        picked = table.picks_of(seat)
        encoder = table.encoder  # Table.observe and Table.mask, with the seat to act found once
        return {"observation": encoder.encode(seat, picked), "action_mask": encoder.mask(seat, picked)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table()
        if action is None:
            raise ValueError(f"{agent} must act: an action of its action_mask, not None")
        self._cumulative_rewards[agent] = 0.0
        points = table.act(int(action))
        rewards = self.rewards
        if self._rewarded:  # most steps score nothing: the zeros of the last one stand
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        game = table.game
        names = self.possible_agents
        if points is not None and self.reward_kind == "points":
            for seat, signed in enumerate(table.signed(points)):
                rewards[names[seat]] = float(signed)
            self._rewarded = True
        if game.over:
            if self.reward_kind == "place":
                for seat, value in enumerate(table.places()):
                    rewards[names[seat]] = float(value)
                self._rewarded = True
            self.terminations = {a: True for a in self.agents}
            seat = -1
        else:
            seat = table.seat()
            self.agent_selection = names[seat]
        if self._rewarded:
            self._accumulate_rewards()
        self._set_infos(agent, seat)

    def _set_infos(self, last: str | None, seat: int) -> None:
        """The infos after a step of ``last`` (None: after the deal) when ``seat`` is to act (-1: the game is
        over): the seat to act's, the others empty."""
        table = self._table()
        if seat < 0:
            game = table.game
            record = game.record()
            self.infos = {a: {"record": record, "totals": list(game.totals), "winners": list(game.winners)}
                          for a in self.agents}
            return
        info: dict[str, Any] = {"seat": seat}
        if self.view_infos:
            info["view"] = table.view(seat)
            info["picked"] = [CODES[c] for c in table.picked]
        infos = self.infos
        if last is not None:
            infos[last] = {}  # only the seat that acted had an info to clear
        infos[self.possible_agents[seat]] = info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        view = self.table.game.spectator_view()
        trick = " ".join(f"{e['seat']}:{e['card']}" for e in view["trick"]["cards"])
        return (f"{self.game_id} round {view['round']} {view['phase']} to act {view['to_act']} "
                f"trick [{trick}] scores {view['scores']}")

    def close(self) -> None:
        pass

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() first")
        return self.table


def env(game: str = "spot-hearts", players: int | None = None, options: dict[str, Any] | None = None,
        **kwargs: Any) -> TrickArenaEnv:
    """The environment (PettingZoo's convention: ``env()``; no wrappers needed, illegal actions raise)."""
    return TrickArenaEnv(game, players, options, **kwargs)

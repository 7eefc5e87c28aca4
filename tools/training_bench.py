"""Steps per second of the training ground next to the engine's random playouts, an AEC environment doing
nothing (the ceiling) and one whose observation costs nothing (the loop, the engine's moves alone and a step's
new arrays), OpenSpiel random simulations of our games next to its C++ ``hearts``; JSON line last.

    python -m tools.training_bench [--seconds 3] [--seed 1]
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from engine import compiled

compiled.activate()  # the compiled rules when built, as a training run would use them

from engine.bots.base import choose_random  # noqa: E402
from engine.game import new_game  # noqa: E402

GAMES = ("spot-hearts", "card-commons", "sloppy-seconds", "sore-spot")
PLAYERS = 4
INSTALL_HINT = "the training extra is not installed: pip install '.[training,yardstick]' ./clients/python"


def _rate(run: Callable[[float], tuple[int, float]], seconds: float) -> float:
    """Steps per second of ``run(seconds)``, which returns (steps, elapsed)."""
    steps, elapsed = run(seconds)
    return steps / elapsed


def play_random(game: Any, rng: random.Random) -> int:
    """The bare engine: ``game`` played to its end at random through its public API (a decision asked of each
    seat to act, a random legal answer applied); the cards played (a pass counts its cards)."""
    steps = 0
    while not game.over:
        for seat in game.to_act():
            decision = game.decision(seat)
            game.apply(seat, choose_random(rng, decision))
            steps += decision["count"] if decision else 0
    return steps


def play_moves_only(game: Any, rng: random.Random) -> int:
    """Play ``game`` to its end with the least of the engine that any environment's step needs: in play the
    seat to act's legal moves (for the mask) and one of them applied, with no decision built (a pass or sore
    choice as the bare loop makes it); the first legal move, so that no random draw is counted here as well as
    in the bench loop. Returns the cards played (a pass counts its cards)."""
    steps = 0
    while not game.over:
        if game.phase == "play":
            seat = game.turn
            game.apply(seat, game.legal_moves(seat)[0])
            steps += 1
            continue
        for seat in game.to_act():
            decision = game.decision(seat)
            game.apply(seat, choose_random(rng, decision))
            steps += decision["count"] if decision else 0
    return steps


Run = Callable[[float], tuple[int, float]]  # seconds -> (steps, elapsed)


def _games(game: str, seed: int, play: Callable[[Any, random.Random], int]) -> Run:
    """Games of ``game`` dealt one after another from ``seed``, each played by ``play``, for ``seconds``."""

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        steps = index = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            steps += play(new_game(game, PLAYERS, seed=f"{seed}/{index}"), rng)
            index += 1
        return steps, time.perf_counter() - started

    return run


def engine_steps(game: str, seed: int) -> Run:
    """The bare engine's random playouts (:func:`play_random`); a step is one card (a pass counts three)."""
    return _games(game, seed, play_random)


def engine_moves(game: str, seed: int) -> Run:
    """The engine's moves alone (:func:`play_moves_only`), game after game."""
    return _games(game, seed, play_moves_only)


def fresh_arrays_s(game: str, count: int = 200_000) -> float:
    """Seconds to make one step's new arrays, an observation and a mask of the environment's shapes (an agent
    may keep what ``last()`` gave it, so each step hands out new ones)."""
    import numpy as np

    from training.aec import TrickArenaEnv

    space = TrickArenaEnv(game, PLAYERS).observation_space("seat_0")
    obs_shape, mask_shape = space["observation"].shape, space["action_mask"].shape
    started = time.perf_counter()
    for _ in range(count):
        np.empty(obs_shape, np.float32)
        np.zeros(mask_shape, np.int8)
    return (time.perf_counter() - started) / count


def floor_rate(null_rate: float, moves_rate: float, arrays_s: float) -> float:
    """Steps/s of an AEC environment whose observation and bookkeeping cost nothing: the loop with PettingZoo
    calls (the do-nothing environment), the engine's moves alone and a step's new arrays, one after another.

    >>> round(floor_rate(1_000_000, 1_000_000, 0.5e-6))
    400000
    """
    return 1.0 / (1.0 / null_rate + 1.0 / moves_rate + arrays_s)


def null_aec_env(game: str) -> Any:
    """An AEC environment that does nothing: ``step`` only passes the turn round-robin (a game's worth of
    cards, then every agent terminates) and ``observe`` returns one preallocated dict of arrays of the real
    environment's shapes (a mask of 13 legal cards). What the bench loop and PettingZoo's own calls cost."""
    import numpy as np
    from pettingzoo import AECEnv

    from training.aec import TrickArenaEnv

    real = TrickArenaEnv(game, PLAYERS)
    space = real.observation_space(real.possible_agents[0])
    length = _cards_per_game(game)

    class NullEnv(AECEnv[str, dict[str, np.ndarray], int]):
        metadata = {"name": "null_v0", "is_parallelizable": False}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = list(real.possible_agents)
            self.observation_spaces = dict(real.observation_spaces)
            self.action_spaces = dict(real.action_spaces)
            mask = np.zeros(space["action_mask"].shape, np.int8)
            mask[::4] = 1
            self._obs = {"observation": np.zeros(space["observation"].shape, np.float32), "action_mask": mask}
            self._played = 0

        def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self._played = 0

        def observe(self, agent: str) -> dict[str, np.ndarray]:
            return self._obs

        def step(self, action: int | None) -> None:
            if self.terminations[self.agent_selection]:
                self._was_dead_step(action)
                return
            self._played += 1
            if self._played >= length:
                self.terminations = {a: True for a in self.agents}
            else:
                self.agent_selection = self.possible_agents[self._played % PLAYERS]

    return NullEnv()


def _cards_per_game(game: str) -> int:
    """The cards (steps) of one seeded random game: the null environment's episodes are as long."""
    return play_random(new_game(game, PLAYERS, seed=0), random.Random(0))


def aec_steps(game: str, seed: int, view_infos: bool,
              null: bool = False) -> Callable[[float], tuple[int, float]]:
    """The PettingZoo environment, a uniformly random legal action per step from the observation's mask
    (``null``: the same loop over :func:`null_aec_env`)."""
    from training.aec import TrickArenaEnv

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        env = null_aec_env(game) if null else TrickArenaEnv(game, PLAYERS, view_infos=view_infos)
        steps = episode = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            env.reset(seed=seed + episode)
            episode += 1
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[int(rng.random() * len(legal))]))
                steps += 1
        return steps, time.perf_counter() - started

    return run


def seat_env_steps(game: str, seed: int) -> Callable[[float], tuple[int, float]]:
    """The Gymnasium single-seat environment against ``random`` house bots: every card played counts (the
    learner's and the house bots')."""
    from training.single import SeatEnv

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        env = SeatEnv(game, PLAYERS, opponents="random")
        steps = episode = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            _, info = env.reset(seed=seed + episode)
            episode += 1
            done = False
            while not done:
                legal = info["action_mask"].nonzero()[0]
                _, _, done, _, info = env.step(int(legal[int(rng.random() * len(legal))]))
            moves = [entry["move"] for entry in info["record"]["moves"]]
            steps += sum(len(m) if isinstance(m, list) else 1 for m in moves)
        return steps, time.perf_counter() - started

    return run


def openspiel_sims(name: str, seed: int,
                   params: dict[str, int] | None = None) -> Callable[[float], tuple[int, float]]:
    """Random simulations (one deal each) of an OpenSpiel game from Python: chance by its outcomes, every
    player's action uniform over its legal actions."""
    import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]

    import training.openspiel  # noqa: F401  # registers our games

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        game = pyspiel.load_game(name, params or {})
        sims = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
            sims += 1
        return sims, time.perf_counter() - started

    return run


def bench(seconds: float, seed: int) -> dict[str, object]:
    """Every rate, measured twice in alternation (the better of the two kept)."""
    from training.openspiel import short_name

    runs: dict[str, Callable[[float], tuple[int, float]]] = {}
    for game in GAMES:
        runs[f"{game}/engine"] = engine_steps(game, seed)
        runs[f"{game}/aec"] = aec_steps(game, seed, view_infos=True)
        runs[f"{game}/aec-no-view"] = aec_steps(game, seed, view_infos=False)
        runs[f"{game}/null-aec"] = aec_steps(game, seed, view_infos=False, null=True)
        runs[f"{game}/moves"] = engine_moves(game, seed)
        runs[f"{game}/seat-env"] = seat_env_steps(game, seed)
        runs[f"{game}/openspiel"] = openspiel_sims(short_name(game), seed, {"players": PLAYERS})
    runs["openspiel-hearts"] = openspiel_sims("hearts", seed)
    best: dict[str, float] = {}
    for _ in range(2):
        for name, run in runs.items():
            best[name] = max(best.get(name, 0.0), _rate(run, seconds))
    games: dict[str, dict[str, float]] = {}
    for game in GAMES:
        bare = best[f"{game}/engine"]
        floor = floor_rate(best[f"{game}/null-aec"], best[f"{game}/moves"],
                           min(fresh_arrays_s(game), fresh_arrays_s(game)))
        games[game] = {
            "engine_steps_per_s": round(bare),
            "aec_steps_per_s": round(best[f"{game}/aec"]),
            "aec_vs_engine": round(best[f"{game}/aec"] / bare, 3),
            "aec_no_view_steps_per_s": round(best[f"{game}/aec-no-view"]),
            "aec_no_view_vs_engine": round(best[f"{game}/aec-no-view"] / bare, 3),
            "null_aec_steps_per_s": round(best[f"{game}/null-aec"]),
            "null_aec_vs_engine": round(best[f"{game}/null-aec"] / bare, 3),
            "engine_moves_steps_per_s": round(best[f"{game}/moves"]),
            "free_observation_steps_per_s": round(floor),
            "free_observation_vs_engine": round(floor / bare, 3),
            "seat_env_steps_per_s": round(best[f"{game}/seat-env"]),
            "openspiel_sims_per_s": round(best[f"{game}/openspiel"], 1),
        }
    return {"players": PLAYERS, "engine": "compiled" if compiled.active() else "interpreted",
            "seconds_per_run": seconds, "games": games,
            "openspiel_hearts_sims_per_s": round(best["openspiel-hearts"], 1), "seed": seed}


@click.command(help=__doc__)
@click.option("--seconds", type=click.FloatRange(min=0.1, max=60), default=3.0, show_default=True,
              help="wall time of each measured run")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
def command(seconds: float, seed: int) -> None:
    try:
        import pettingzoo  # noqa: F401
        import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401
    except ImportError:
        raise click.ClickException(INSTALL_HINT) from None
    report = bench(seconds, seed)
    for game, row in report["games"].items():  # type: ignore[attr-defined]
        print(f"{game}: engine {row['engine_steps_per_s']:,} steps/s, AEC {row['aec_steps_per_s']:,} "
              f"({row['aec_vs_engine']:.2f}x; {row['aec_no_view_vs_engine']:.2f}x without views in infos; "
              f"an AEC environment doing nothing {row['null_aec_vs_engine']:.2f}x, one whose observation "
              f"costs nothing {row['free_observation_vs_engine']:.2f}x), "
              f"single seat {row['seat_env_steps_per_s']:,}, "
              f"OpenSpiel {row['openspiel_sims_per_s']:,} sims/s")
    print(f"OpenSpiel's C++ hearts: {report['openspiel_hearts_sims_per_s']:,} sims/s")
    print(json.dumps(report))


def main(argv: list[str] | None = None) -> int:
    """Run the command; a wrong option is one line on stderr (exit 2)."""
    try:
        command.main(args=argv, prog_name="python -m tools.training_bench", standalone_mode=False)
    except click.ClickException as error:
        print(f"training_bench: {error.format_message()}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort):
        print("training_bench: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Steps per second of the training ground next to the engine's own random playouts, and OpenSpiel random
simulations of our Python games next to OpenSpiel's C++ ``hearts``, all in one run; ends with one JSON line.

    python -m tools.training_bench [--seconds 3] [--seed 1]
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable

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


def engine_steps(game: str, seed: int) -> Callable[[float], tuple[int, float]]:
    """The bare engine, random play through its public API; a step is one card (a pass counts three)."""

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        steps = index = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            g = new_game(game, PLAYERS, seed=f"{seed}/{index}")
            index += 1
            while not g.over:
                for seat in g.to_act():
                    decision = g.decision(seat)
                    g.apply(seat, choose_random(rng, decision))
                    steps += decision["count"] if decision else 0
        return steps, time.perf_counter() - started

    return run


def aec_steps(game: str, seed: int, view_infos: bool) -> Callable[[float], tuple[int, float]]:
    """The PettingZoo environment, a uniformly random legal action per step from the observation's mask."""
    from training.aec import TrickArenaEnv

    def run(seconds: float) -> tuple[int, float]:
        rng = random.Random(seed)
        env = TrickArenaEnv(game, PLAYERS, view_infos=view_infos)
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
        games[game] = {
            "engine_steps_per_s": round(bare),
            "aec_steps_per_s": round(best[f"{game}/aec"]),
            "aec_vs_engine": round(best[f"{game}/aec"] / bare, 3),
            "aec_no_view_steps_per_s": round(best[f"{game}/aec-no-view"]),
            "aec_no_view_vs_engine": round(best[f"{game}/aec-no-view"] / bare, 3),
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
              f"({row['aec_vs_engine']:.2f}x; {row['aec_no_view_vs_engine']:.2f}x without views in infos), "
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

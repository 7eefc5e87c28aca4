"""``python -m engine bench``: complete rounds with random bots through the public API, every rule, passing
included, next to OpenSpiel's C++ Hearts driven from Python when ``open_spiel`` is installed.

Design: docs/engine.md#speed
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from . import compiled
from .bots.base import choose_random
from .game import new_game
from .games.registry import GAMES

OPENSPIEL_GAME = "hearts"


def bench_game_seed(seed: int | str, index: int) -> str:
    """The seed of the ``index``-th game of a benchmark run."""
    return f"{seed}/{index}"


def public_random_rounds(game: str, players: int, seed: int | str, rounds: int) -> tuple[int, int]:
    """Play ``rounds`` rounds through the public API with random play; returns (rounds, decisions).

    Games follow one another (game ``i`` seeded :func:`bench_game_seed`); decisions draw from one
    ``random.Random(seed)``.
    """
    rng = random.Random(seed)
    played = decisions = 0
    index = 0
    while played < rounds:
        g = new_game(game, players, seed=bench_game_seed(seed, index))
        while not g.over and played < rounds:
            current = g.round_no
            for seat in g.to_act():
                g.apply(seat, choose_random(rng, g.decision(seat)))
                decisions += 1
            if g.over or g.round_no != current:
                played += 1
        index += 1
    return played, decisions


def openspiel_random_rounds(seed: int | str, rounds: int) -> tuple[int, int] | None:
    """OpenSpiel's Hearts, ``rounds`` hands with random play; None when ``open_spiel`` is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]  # optional: a reference, not a dependency
    except ImportError:
        return None
    rng = random.Random(seed)
    game = pyspiel.load_game(OPENSPIEL_GAME)
    decisions = 0
    for _ in range(rounds):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()  # at chance nodes: the uniform outcomes
            if not state.is_chance_node():
                decisions += 1
            state.apply_action(legal[int(rng.random() * len(legal))])
    return rounds, decisions


def _engine_build() -> str:
    return "compiled" if compiled.active() else "interpreted"


def _timed(run: Callable[[], tuple[int, int] | None]) -> tuple[float, int, int] | None:
    start = time.perf_counter()
    out = run()
    if out is None:
        return None
    return time.perf_counter() - start, out[0], out[1]


def bench(
    games: list[str] | None = None,
    rounds: int = 2000,
    seed: int | str = 1,
    players: int | None = None,
    repeat: int = 3,
    openspiel: bool = True,
) -> list[dict[str, Any]]:
    """Rounds and decisions per second for each game (default: all four), best of ``repeat``.

    One dict per game: ``game, engine`` (``compiled`` or ``interpreted``, see :mod:`engine.compiled`),
    ``players, rounds, decisions, seconds, rounds_per_s, decisions_per_s``,
    ``vs_spot_hearts`` (rounds/s over Spot Hearts', when it is measured too) and ``vs_openspiel``
    (rounds/s over OpenSpiel's Hearts, when installed); then one dict for OpenSpiel itself.
    """
    names = games or list(GAMES)
    runs: dict[str, Callable[[], tuple[int, int] | None]] = {
        name: partial(public_random_rounds, name, players or 4, seed, rounds) for name in names
    }
    if openspiel:
        runs["openspiel-hearts"] = partial(openspiel_random_rounds, seed, rounds)
    best: dict[str, tuple[float, int, int]] = {}
    for _ in range(repeat):
        for name, run in runs.items():  # alternate, so that load on the machine hits every run alike
            timed = _timed(run)
            if timed is not None and (name not in best or timed[0] < best[name][0]):
                best[name] = timed
    out: list[dict[str, Any]] = []
    for name, (seconds, played, decisions) in best.items():
        row: dict[str, Any] = {
            "game": name,
            "engine": "openspiel" if name == "openspiel-hearts" else _engine_build(),
            "players": 4 if name == "openspiel-hearts" else players or 4,
            "rounds": played,
            "decisions": decisions,
            "seconds": round(seconds, 4),
            "rounds_per_s": round(played / seconds, 1),
            "decisions_per_s": round(decisions / seconds, 1),
        }
        out.append(row)
    rate = {row["game"]: row["rounds_per_s"] for row in out}
    for row in out:
        if row["game"] != "openspiel-hearts":
            if "spot-hearts" in rate:
                row["vs_spot_hearts"] = round(row["rounds_per_s"] / rate["spot-hearts"], 3)
            if "openspiel-hearts" in rate:
                row["vs_openspiel"] = round(row["rounds_per_s"] / rate["openspiel-hearts"], 3)
    return out

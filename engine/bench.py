"""``python -m engine bench``: complete rounds with random bots, all rules, passing included."""

from __future__ import annotations

import random
import time
from typing import Any

from .bots.base import choose_random
from .fast import bench_game_seed, spot_hearts_random_rounds
from .game import new_game


def public_random_rounds(game: str, players: int, seed: int | str, rounds: int) -> tuple[int, int]:
    """Play ``rounds`` rounds through the public API; returns (rounds, decisions)."""
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


def bench(
    game: str, games: int, seed: int | str, players: int | None = None, public: bool = False
) -> dict[str, Any]:
    players = players or 4
    fast = game == "spot-hearts" and not public
    start = time.perf_counter()
    if fast:
        decisions = sum(r.decisions for r in spot_hearts_random_rounds(seed, games))
        rounds = games
    else:
        rounds, decisions = public_random_rounds(game, players, seed, games)
    seconds = time.perf_counter() - start
    return {
        "game": game,
        "players": players,
        "path": "fast" if fast else "public",
        "rounds": rounds,
        "decisions": decisions,
        "seconds": round(seconds, 4),
        "rounds_per_s": round(rounds / seconds, 1),
        "decisions_per_s": round(decisions / seconds, 1),
    }

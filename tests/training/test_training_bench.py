"""The training bench's yardsticks: the engine's moves alone play whole games card by card, and the rate of an
environment whose observation costs nothing adds up the loop, the moves and a step's new arrays."""

from __future__ import annotations

import random

import pytest

from engine.game import new_game
from tools import training_bench


def test_an_environment_with_free_observations_adds_up_its_parts() -> None:
    assert training_bench.floor_rate(1_000_000, 1_000_000, 0.5e-6) == pytest.approx(400_000)
    assert training_bench.floor_rate(2_000_000, 1_000_000, 0.0) == pytest.approx(2_000_000 / 3)


@pytest.mark.parametrize("game_id", training_bench.GAMES)
def test_the_engines_moves_alone_play_every_card_of_a_whole_game(game_id: str) -> None:
    game = new_game(game_id, training_bench.PLAYERS, seed=5)
    steps = training_bench.play_moves_only(game, random.Random(5))
    assert game.over
    moves = [entry["move"] for entry in game.record()["moves"]]
    assert steps == sum(len(m) if isinstance(m, list) else 1 for m in moves)


def test_the_engines_moves_alone_are_timed_game_after_game() -> None:
    steps, elapsed = training_bench.engine_moves("spot-hearts", seed=1)(0.01)
    assert steps > 0 and elapsed >= 0.01


def test_a_steps_new_arrays_take_time() -> None:
    assert 0 < training_bench.fresh_arrays_s("spot-hearts", count=100) < 0.01

"""The benchmark plays complete games through the public API and reports what it measured."""

import random

from engine import new_game
from engine.bench import bench, bench_game_seed, public_random_rounds
from engine.bots import choose_random


def test_bench_rounds_are_the_public_api_games():
    # The same seeds and random policy, played by hand through the public API: the same decisions.
    rounds, decisions = public_random_rounds("spot-hearts", 4, 7, 20)
    rng = random.Random(7)
    played = counted = index = 0
    while played < 20:
        g = new_game("spot-hearts", 4, seed=bench_game_seed(7, index))
        while not g.over and played < 20:
            done = len(g.history)
            for seat in g.to_act():
                g.apply(seat, choose_random(rng, g.decision(seat)))
                counted += 1
            played += len(g.history) - done
        index += 1
    assert (rounds, decisions) == (20, counted)
    assert index > 1  # crosses a game boundary (target reached, next game)


def test_bench_rows_per_game():
    rows = bench(["sore-spot", "spot-hearts"], rounds=5, seed=1, players=4, repeat=1, openspiel=False)
    assert [r["game"] for r in rows] == ["sore-spot", "spot-hearts"]
    for row in rows:
        assert row["rounds"] == 5 and row["decisions"] >= 5 * 52 and row["rounds_per_s"] > 0
    assert rows[1]["vs_spot_hearts"] == 1.0 and "vs_openspiel" not in rows[0]

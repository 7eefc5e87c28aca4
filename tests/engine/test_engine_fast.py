"""The Spot Hearts fast path is the public engine, trick by trick, on the same seeds."""

import random

import pytest

from engine import new_game
from engine.bench import bench, public_random_rounds
from engine.bots import choose_random
from engine.cards import codes
from engine.fast import bench_game_seed, spot_hearts_random_rounds


def public_rounds(seed, count):
    rng = random.Random(seed)
    out = []
    index = 0
    while len(out) < count:
        g = new_game("spot-hearts", 4, seed=bench_game_seed(seed, index))
        while not g.over and len(out) < count:
            done = len(g.history)
            for seat in g.to_act():
                g.apply(seat, choose_random(rng, g.decision(seat)))
            if len(g.history) > done:
                r = g.history[-1]
                plays = [c for t in r["tricks"] for c in t["cards"]]
                out.append(
                    (
                        index,
                        len(g.history) - 1,
                        r["dealer"],
                        r["points"],
                        plays,
                        [t["winner"] for t in r["tricks"]],
                    )
                )
        index += 1
    return out


@pytest.mark.parametrize("seed", [1, 2, 3, "x"])
def test_fast_path_identical_to_public_engine(seed):
    fast = [
        (r.game, r.round_no, r.dealer, r.points, codes(r.plays), r.winners)
        for r in spot_hearts_random_rounds(seed, 80, record=True)
    ]
    assert fast == public_rounds(seed, 80)
    assert len({f[0] for f in fast}) > 1  # crosses game boundaries (target reached, new game)


def test_bench_counts_match_between_paths():
    fast = bench("spot-hearts", 50, 4)
    public = bench("spot-hearts", 50, 4, public=True)
    assert (fast["path"], public["path"]) == ("fast", "public")
    assert fast["rounds"] == public["rounds"] == 50 and fast["decisions"] == public["decisions"]
    assert public_random_rounds("sore-spot", 3, 1, 5)[0] == 5

"""The Gymnasium single-seat environment: Gymnasium's own check_env for every game and player count, masks,
opponents by name, callable or bot object, rewards, and what an illegal action does (nothing)."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import engine
from engine.bots import choose_random
from tests.training.cases import CASES, IDS, SHORT
from training.single import SeatEnv


def play_out(env: SeatEnv, seed: int) -> tuple[float, dict]:
    obs, info = env.reset(seed=seed)
    rng = random.Random(seed)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool)) and env.observation_space.contains(obs)
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not truncated
        total += reward
    return total, info


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_gymnasium_check_env_passes(game: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either, but the one for an env made without a spec:
        warnings.filterwarnings("ignore", message=".*render modes.*")
        check_env(SeatEnv(game, players, SHORT[game], seat=players - 1, opponents="random"))
        check_env(SeatEnv(game, players, seat=0, opponents="heuristic"))


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_the_learner_is_paid_its_own_total(game: str, players: int) -> None:
    env = SeatEnv(game, players, SHORT[game], seat=1, opponents="heuristic")
    total, info = play_out(env, seed=8)
    assert engine.load(info["record"]).totals == info["totals"]
    low = engine.rules_for(game).low_wins
    assert total == (-info["totals"][1] if low else info["totals"][1])


def test_the_same_seed_plays_the_same_game_with_house_bots() -> None:
    records = [play_out(SeatEnv("card-commons", 4, {"target": 30}, opponents="eps-0.5"), seed=4)[1]["record"]
               for _ in range(2)]
    assert records[0] == records[1]
    other = play_out(SeatEnv("card-commons", 4, {"target": 30}, opponents="eps-0.5"), seed=5)[1]["record"]
    assert other["deals"] != records[0]["deals"]


def test_opponents_by_name_callable_or_bot_object() -> None:
    calls: list[int] = []
    rng = random.Random(1)

    def mine(view):
        calls.append(view["seat"])
        return choose_random(rng, view["decision"])

    class Picky:
        def choose(self, view):
            calls.append(view["seat"])
            return view["legal"][0] if view["decision"]["kind"] != "pass" else view["legal"][:3]

    env = SeatEnv("spot-hearts", 4, {"target": 30}, seat=2, opponents=["random", mine, Picky()])
    play_out(env, seed=3)
    assert set(calls) == {1, 3}
    total, info = play_out(SeatEnv("sore-spot", 4, {"rounds": 1}, opponents="search-10"), seed=2)
    assert info["record"]["moves"] and total == info["totals"][0]  # the search bot, 10 ms a decision
    with pytest.raises(ValueError, match="unknown house bot"):
        SeatEnv("spot-hearts", 4, opponents="genius")
    with pytest.raises(ValueError, match="3 opponents needed"):
        SeatEnv("spot-hearts", 4, opponents=["random", "random"])


def test_an_illegal_action_changes_nothing() -> None:
    env = SeatEnv("sloppy-seconds", 3, seat=0, opponents="random", illegal_reward=-1.0)
    obs, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    version = env.table.game.version
    again, reward, done, _, info = env.step(illegal)
    assert info["illegal_action"] and reward == -1.0 and not done
    assert np.array_equal(again, obs) and env.table.game.version == version

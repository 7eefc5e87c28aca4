"""A policy as a bot: the arena's match runner calls it over HTTP in a match of every game, and each view it
received encodes exactly as the environment encodes the same position of the game's record."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from trickarena import BotServer

import engine
from tests.clients.starters import play_http_match, starter_bot
from training.policy import policy_bot
from training.table import Table


class Recorder:
    """A policy that plays a random legal card and keeps every (observation, mask, action) of its calls."""

    def __init__(self) -> None:
        self.seen: list[tuple[np.ndarray, np.ndarray, int]] = []
        self.rng = random.Random(1)

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        action = int(self.rng.choice(np.flatnonzero(mask)))
        self.seen.append((obs.copy(), mask.copy(), action))
        return action


@pytest.mark.parametrize("game", ["spot-hearts", "card-commons", "sloppy-seconds", "sore-spot"])
def test_what_the_arena_sends_encodes_as_the_environment_encodes_it(game: str) -> None:
    recorder = Recorder()
    bot = policy_bot(recorder, "learned", games=[game])
    views: list[dict] = []
    choose = bot.choose
    bot.choose = lambda view: (views.append(copy.deepcopy(view)), choose(view))[1]  # type: ignore[method-assign]
    servers = [BotServer(bot).start(), *(BotServer(starter_bot(game)).start() for _ in range(3))]
    try:
        result = play_http_match(game, [s.url for s in servers], ["learned", "s1", "s2", "s3"])
    finally:
        for server in servers:
            server.stop()
    assert not result.strikes and views
    record = result.records[0]
    calls = iter(recorder.seen)
    for view in views:
        # The same position rebuilt from the game's record, as the environment holds it.
        table = Table(engine.load({**record, "moves": record["moves"][:view["version"]]}))
        seat = view["seat"]
        for _ in range(view["decision"]["count"]):
            obs, mask, action = next(calls)
            assert np.array_equal(obs, table.observe(seat)) and np.array_equal(mask, table.mask(seat))
            table.picked.append(action)
    assert next(calls, None) is None and bot.illegal == 0


def test_an_action_outside_the_mask_becomes_the_lowest_legal_card() -> None:
    bot = policy_bot(lambda obs, mask: 60, games=["spot-hearts"])
    view = engine.new_game("spot-hearts", 4, seed=1).view(0)
    move = bot.choose(view)
    assert move == view["legal"][:3] and bot.illegal == 3

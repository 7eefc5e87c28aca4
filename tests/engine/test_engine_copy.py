"""GameState.copy: an independent game for search; the original never changes, the copy plays on
exactly like a game rebuilt from the record."""

import json
import random

import pytest

import engine
from engine.bots import choose_random

GAMES = [("spot-hearts", 4), ("card-commons", 3), ("sloppy-seconds", 4), ("sore-spot", 5)]


def snapshot(g) -> str:
    """Everything observable about a game, plus its internals that moves change."""
    views = [g.view(s) for s in range(g.players)]
    inner = (g.hands, g.trick, g.won, sorted(g.pending.items()), g.passed, g.received, repr(g.extra))
    return json.dumps([views, g.spectator_view(), g.record(), g.history, g.totals, inner], default=str)


def advance(g, rng, decisions):
    for _ in range(decisions):
        if g.over:
            return
        seat = g.to_act()[0]
        g.apply(seat, choose_random(rng, g.decision(seat)))


@pytest.mark.parametrize("game,players", GAMES)
@pytest.mark.parametrize("start", [0, 1, 7, 30, 61])
def test_copy_then_diverge_leaves_original_unchanged(game, players, start):
    g = engine.new_game(game, players, seed=start + 3)
    rng = random.Random(start)
    advance(g, rng, start)  # 1: mid simultaneous phase; 61: past a first round
    before = snapshot(g)
    trial = g.copy()
    assert snapshot(trial) == before
    advance(trial, random.Random(99), 10_000)  # the copy plays on to the end of the game
    assert trial.over
    assert snapshot(g) == before
    # ...and the original still plays on by itself.
    version = g.version
    advance(g, random.Random(5), 25)
    assert g.version == version + 25


@pytest.mark.parametrize("game,players", GAMES)
def test_copy_plays_identically_to_a_replay(game, players):
    g = engine.new_game(game, players, seed=11)
    rng = random.Random(11)
    while not g.over:
        trial = g.copy()
        replayed = engine.load(g.record())
        assert snapshot(trial) == snapshot(replayed)
        seat = g.to_act()[0]
        move = choose_random(rng, g.decision(seat))
        for copy_or_replay in (trial, replayed):
            copy_or_replay.apply(seat, move)
        g.apply(seat, move)
        assert snapshot(trial) == snapshot(replayed) == snapshot(g)
        if g.round_no >= 1 and g.version % 7:  # enough positions, a few rounds in
            advance(g, rng, 5)


def test_copy_keeps_the_legal_cache_private():
    g = engine.new_game("spot-hearts", 4, seed=2)
    legal = g.legal_moves(0)
    trial = g.copy()
    trial.apply(0, legal[:3])
    assert g.legal_moves(0) == legal and trial.legal_moves(0) == []


def test_copy_sets_every_attribute():
    g = engine.new_game("sloppy-seconds", 3, seed=4)
    advance(g, random.Random(4), 20)
    if not engine.COMPILED:  # a compiled GameState has no __dict__; its copy is checked by the tests above
        assert set(vars(g.copy())) == set(vars(g))

"""The OpenSpiel games: OpenSpiel's own random_sim_test (with serialization) for every game and player count,
resampling from an information state through the engine's world sampler, ISMCTS and outcome-sampling MCCFR
running on them unchanged, and a deal played through OpenSpiel replaying to the same points in the engine."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms import outcome_sampling_mccfr as mccfr

import engine
from tests.training.cases import CASES, IDS
from training import openspiel as tos


def random_deal(game, rng: np.random.RandomState, each=None):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            continue
        if each is not None:
            each(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_openspiel_random_sim_test_passes_with_serialization(game: str, players: int) -> None:
    pyspiel.random_sim_test(tos.load(game, players=players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_a_deal_through_openspiel_replays_to_the_same_points(game: str, players: int) -> None:
    state = random_deal(tos.load(game, players=players), np.random.RandomState(players))
    replayed = engine.load(state.record())
    points = replayed.history[0]["points"]
    low = engine.rules_for(game).low_wins
    assert state.returns() == [float(-p if low else p) for p in points]
    assert [a for a in state.history()][:1] == [replayed.dealt[0]["dealer"]]


@pytest.mark.parametrize(("game", "players"), [("spot-hearts", 4), ("card-commons", 3), ("sloppy-seconds", 4),
                                               ("sore-spot", 5)])
def test_a_resampled_state_is_the_same_to_its_seat_and_deals_the_hidden_cards_anew(game: str,
                                                                                   players: int) -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = 0

    def check(state) -> None:
        nonlocal differs
        seat = state.current_player()
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)
        assert np.array_equal(world.information_state_tensor(seat), state.information_state_tensor(seat))
        assert world.observation_string(seat) == state.observation_string(seat)
        assert world.current_player() == seat and world.legal_actions() == state.legal_actions()
        differs += world.hands() != state.hands()

    random_deal(tos.load(game, players=players), np.random.RandomState(7), each=check)
    assert differs > 0


def test_openspiels_ismcts_bot_plays_a_deal_unchanged() -> None:
    game = tos.load("card-commons", players=4)
    rng = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=20,
                           random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert engine.load(state.record()).round_no >= 1


def test_outcome_sampling_mccfr_runs_iterations() -> None:
    game = tos.load("sore-spot", players=3)
    solver = mccfr.OutcomeSamplingSolver(game)
    for _ in range(10):
        solver.iteration()
    policy = solver.average_policy()
    state = random_deal(game, np.random.RandomState(1), each=None)
    assert state.is_terminal() and len(solver._infostates) > 10  # noqa: SLF001  # what it learned
    assert policy is not None


def test_serialization_round_trips_a_state_mid_pass() -> None:
    game = tos.load("spot-hearts")
    state = game.new_initial_state()
    rng = np.random.RandomState(2)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randint(len(outcomes))][0])
    for _ in range(5):  # seat 0's pass, then two cards of seat 1's
        state.apply_action(state.legal_actions()[0])
    text = pyspiel.serialize_game_and_state(game, state)
    _, back = pyspiel.deserialize_game_and_state(text)
    assert str(back) == str(state) and back.legal_actions() == state.legal_actions()
    assert back.information_state_string(1) == state.information_state_string(1)


def test_parameters_are_the_engines_options() -> None:
    assert tos.load("sore-spot", players=6).num_players() == 6
    assert tos.load("card-commons", players=3, target=50).get_parameters()["target"] == 50
    with pytest.raises(engine.OptionsError, match="played by 3 to 4"):
        tos.load("card-commons", players=5)

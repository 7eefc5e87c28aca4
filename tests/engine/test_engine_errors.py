"""Typed errors: malformed vs illegal vs out of turn; a rejected move changes nothing."""

import copy

import pytest

import engine


def snapshot(g):
    return copy.deepcopy((g.hands, g.moves, g.trick, g.pending, g.phase, g.totals, g.version))


@pytest.fixture
def hearts():
    g = engine.new_game("spot-hearts", 4, seed=3)
    return g


@pytest.mark.parametrize("move", ["ZZ", "", 7, None, ["2C", "3C"], ["2C", "2C", "3C"], "QS"])
def test_malformed_pass_is_typed_and_changes_nothing(hearts, move):
    before = snapshot(hearts)
    with pytest.raises(engine.MalformedMoveError) as err:
        hearts.apply(0, move)
    assert isinstance(err.value, ValueError) and "(legal: " in str(err.value)
    assert err.value.legal == hearts.view(0)["hand"]
    assert snapshot(hearts) == before


def test_illegal_pass_card_not_in_hand_lists_legal(hearts):
    other = hearts.view(1)["hand"]
    before = snapshot(hearts)
    with pytest.raises(engine.IllegalMoveError) as err:
        hearts.apply(0, other[:3])
    assert "not in seat 0's hand" in str(err.value)
    assert err.value.legal == hearts.view(0)["hand"] and "legal:" in str(err.value)
    assert snapshot(hearts) == before


def test_out_of_turn_play_is_typed_and_changes_nothing():
    g = engine.new_game("sloppy-seconds", 4, seed=3)
    idle = (g.to_act()[0] + 1) % 4
    before = snapshot(g)
    with pytest.raises(engine.NotYourTurnError, match="waiting for seat"):
        g.apply(idle, g.view(idle)["hand"][0])
    assert snapshot(g) == before and g.legal_moves(idle) == [] and g.decision(idle) is None


def test_illegal_play_must_follow_suit_and_lists_legal():
    from .test_engine_sloppy_seconds import _breaking_game

    g = _breaking_game()
    for card in ("AD", "2H", "2S"):
        g.apply(g.to_act()[0], card)
    legal = g.legal_moves(0)
    assert "AS" not in legal and legal
    before = snapshot(g)
    with pytest.raises(engine.IllegalMoveError, match="follow the suit led") as err:
        g.apply(0, "AS")
    assert err.value.legal == legal and snapshot(g) == before


def test_bad_seat_and_game_over():
    g = engine.new_game("sore-spot", 3, {"rounds": 1}, seed=1)
    with pytest.raises(engine.MalformedMoveError):
        g.apply(3, "2C")
    from engine.bots import RandomBot, play_game

    play_game(g, [RandomBot(s) for s in range(3)])
    with pytest.raises(engine.GameOverError):
        g.apply(0, "2C")


@pytest.mark.parametrize(
    "game,players,options,match",
    [
        ("bridge", 4, {}, "unknown game"),
        ("sore-spot", 7, {}, "3 to 6 players"),
        ("card-commons", 4, {"target": "100"}, "must be an integer"),
        ("card-commons", 4, {"goal": 100}, "unknown option"),
        ("sore-spot", 4, {"rounds": 0}, "at least 1"),
        ("sore-spot", 4, {"deck": "tarot"}, "deck must be one of"),
    ],
)
def test_options_validated_with_clear_errors(game, players, options, match):
    with pytest.raises(engine.OptionsError, match=match):
        engine.new_game(game, players, options, seed=1)


def test_needs_seed_or_deal():
    with pytest.raises(engine.OptionsError, match="seed or at least one explicit deal"):
        engine.new_game("spot-hearts", 4)

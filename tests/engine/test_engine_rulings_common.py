"""All-games rulings: R-SEAT, R-DEALER, R-DEAL, R-SIMUL, R-TIE-WIN."""

import pytest

import engine

from .rig import game_with, lay_all


def test_r_seat_pass_left_right_across_hold():  # R-SEAT, R-SH-PASS
    for round_no, offset in enumerate([1, -1, 2, None]):
        g = engine.new_game("spot-hearts", 4, seed=11)
        while g.round_no < round_no:
            g = _finish_round(g)
        if offset is None:
            assert g.phase == "play" and g.view(0)["pass_direction"] == "hold"
            continue
        before = [list(g.view(s)["hand"]) for s in range(4)]
        lay_all(g, [before[s][:3] for s in range(4)])
        for s in range(4):
            assert g.view((s + offset) % 4)["received"] == before[s][:3]


def _finish_round(g):
    from engine.bots import RandomBot

    bot = RandomBot(1)
    start = g.round_no
    while g.round_no == start and not g.over:
        for seat in g.to_act():
            g.apply(seat, bot.choose(g.view(seat)))
    return g


def test_r_seat_play_goes_left():  # R-SEAT
    g = engine.new_game("sloppy-seconds", 4, seed=3)
    first = g.to_act()[0]
    g.apply(first, g.legal_moves(first)[0])
    assert g.to_act() == [(first + 1) % 4]


def test_r_dealer_seat_zero_then_rotates_left():  # R-DEALER
    g = engine.new_game("card-commons", 4, seed=5)
    assert g.dealer == 0
    _finish_round(g)
    assert g.dealer == 1


def test_r_dealer_spot_hearts_drawn_from_seed():  # R-DEALER: "determined randomly"
    dealers = {engine.new_game("spot-hearts", 4, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert (
        engine.new_game("spot-hearts", 4, seed=9).dealer == engine.new_game("spot-hearts", 4, seed=9).dealer
    )


def test_r_deal_pure_function_of_seed_and_round():  # R-DEAL
    a = engine.new_game("sore-spot", 5, seed="x")
    b = engine.new_game("sore-spot", 5, seed="x")
    c = engine.new_game("sore-spot", 5, seed="y")
    assert a.dealt == b.dealt and a.dealt != c.dealt


def test_r_deal_one_at_a_time_from_left_of_dealer():  # R-DEAL
    from engine.state import deal_from_seed

    hands = deal_from_seed(1, 0, list(range(51)), 3, dealer=2)
    assert [len(h) for h in hands] == [17, 17, 17]
    # With 52 cards over 3 seats the seat left of the dealer gets the extra card.
    hands = deal_from_seed(1, 0, list(range(52)), 3, dealer=2)
    assert [len(h) for h in hands] == [18, 17, 17]


def test_r_deal_explicit_deal_wins_and_is_validated():  # R-DEAL
    g = game_with("spot-hearts", 4, 3, {0: ["AS", "KS", "QS"]})
    assert {"AS", "KS", "QS"} <= set(g.view(0)["hand"]) and g.dealer == 3
    bad = g.dealt[0]
    broken = {"dealer": 0, "hands": [bad["hands"][0], bad["hands"][0], bad["hands"][2], bad["hands"][3]]}
    with pytest.raises(engine.OptionsError, match="exactly the game's 52 cards"):
        engine.new_game("spot-hearts", 4, deals=[broken])


def test_r_simul_choices_hidden_until_all_chosen_and_final():  # R-SIMUL
    g = engine.new_game("sore-spot", 4, seed=2)
    choice = g.legal_moves(0)[0]
    g.apply(0, choice)
    assert g.view(0)["chosen"] == [choice]
    for seat in (1, 2, 3):
        assert "chosen" not in g.view(seat)
        assert g.view(seat)["sore_cards"] == [None] * 4
    with pytest.raises(engine.NotYourTurnError):
        g.apply(0, g.legal_moves(1)[0] if g.legal_moves(1) else choice)
    for seat in (1, 2, 3):
        g.apply(seat, g.legal_moves(seat)[0])
    assert g.view(1)["sore_cards"][0] == choice and g.phase == "play"


def test_r_tie_win_everyone_on_best_total_shares():  # R-TIE-WIN
    high, low = engine.rules_for("sloppy-seconds"), engine.rules_for("spot-hearts")
    assert not high.low_wins and low.low_wins
    assert high.winners([5, 9, 9, 1]) == [1, 2]
    assert low.winners([5, 1, 9, 1]) == [1, 3]

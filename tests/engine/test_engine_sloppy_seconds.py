"""Sloppy Seconds: R-SL-* rulings."""

import pytest

import engine
from engine.bots import RandomBot, play_game
from engine.cards import Card
from engine.games.sloppy_seconds import VALUE, SloppyRound, SloppySeconds, second_place_scores

from .rig import game_with, play, state_with


def test_r_sl_deal_three_players_17_each_no_two_of_clubs():  # R-SL-DEAL
    g = engine.new_game("sloppy-seconds", 3, seed=1)
    hands = [g.view(s)["hand"] for s in range(3)]
    assert [len(h) for h in hands] == [17, 17, 17] and not any("2C" in h for h in hands)


def test_r_sl_deal_left_of_dealer_leads_any_card():  # R-SL-DEAL
    g = engine.new_game("sloppy-seconds", 4, seed=1)
    assert g.dealer == 0 and g.to_act() == [1]
    assert g.legal_moves(1) == g.view(1)["hand"]


def test_r_sl_rank_values():  # R-SL-RANK
    assert [VALUE[Card.parse(c)] for c in ["AS", "2S", "TS", "JS", "QS", "KS"]] == [1, 2, 10, 11, 12, 13]
    assert sum(VALUE[c] for c in range(13)) == 91
    assert sum(VALUE[c] for c in range(1, 13)) == 89  # clubs without the 2 (3 players)


def test_r_sl_rank_ace_high_in_play():  # R-SL-RANK
    g = game_with("sloppy-seconds", 4, 0, {1: ["KD"], 2: ["AD"], 3: ["2D"], 0: ["3D"]})
    play(g, "KD", "AD", "2D", "3D")
    assert g.tricks[0]["winner"] == 2


def _breaking_game():
    # Seat 1 leads (dealer 0). Seats 2 and 3 are void in diamonds.
    return game_with(
        "sloppy-seconds",
        4,
        0,
        {
            0: ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AS"],
            1: ["AD", "2C", "3C"],
            2: ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH"],
            3: ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS", "KS"],
        },
    )


def test_r_sl_break_second_suit_broken_is_trump_at_once():  # R-SL-BREAK, R-SL-WIN
    g = _breaking_game()
    play(g, "AD", "2H", "2S")  # hearts broken first (never trump), spades second: trump now
    assert g.view(0)["broken"] == ["H", "S"] and g.view(0)["trump"] == "S"
    play(g, "KD")
    assert g.tricks[0]["winner"] == 3  # the very card that set trump wins over the A of the suit led


def test_r_sl_break_leading_never_breaks():  # R-SL-BREAK
    g = _breaking_game()
    play(g, "AD", "2H", "2S", "2D")
    # seat 3 won with the trump 2S and leads spades: leading a suit never breaks it.
    assert g.to_act() == [3]
    play(g, "3S")
    assert g.view(0)["broken"] == ["H", "S"]


def test_r_sl_break_first_broken_suit_never_trump():  # R-SL-BREAK
    rules = SloppySeconds()

    state = state_with("sloppy-seconds", trick=[Card.parse("2D"), Card.parse("5H")], extra=SloppyRound())
    rules.on_play(state, 1, Card.parse("5H"))
    assert state.extra.broken == [2] and state.extra.trump is None
    state.trick.append(Card.parse("5H"))  # a second heart does not count as a new suit
    rules.on_play(state, 2, Card.parse("6H"))
    assert state.extra.trump is None


def test_r_sl_win_no_trump_highest_of_led():  # R-SL-WIN
    hearts = [f"{r}H" for r in "23456789TJQKA"]
    g = game_with("sloppy-seconds", 4, 0, {1: ["5C"], 2: ["9C"], 3: hearts, 0: ["KC"]})
    play(g, "5C", "9C", "AH", "KC")
    assert g.view(0)["broken"] == ["H"] and g.view(0)["trump"] is None
    assert g.tricks[0]["winner"] == 0  # one broken suit only: no trump yet


@pytest.mark.parametrize(
    "totals,expected",
    [
        ([40, 30, 20, 1], [0, 30, 0, 0]),
        ([40, 40, 20, 1], [0, 0, 20, 0]),  # second-highest distinct total, even under a shared first
        ([40, 30, 30, 0], [0, 30, 30, 0]),
        ([91, 0, 0, 0], [0, 0, 0, 0]),
        ([0, 0, 0, 0], [0, 0, 0, 0]),  # nobody won points: nothing
    ],
)
def test_r_sl_second_dense_ranking(totals, expected):  # R-SL-SECOND
    assert second_place_scores(totals) == expected


def test_r_sl_min5_and_round_scoring():  # R-SL-MIN5, R-SL-SECOND
    rules = SloppySeconds()

    won = [
        [Card.parse(c) for c in ["KC", "QC"]],  # clubs 25: first
        [Card.parse(c) for c in ["JC", "2D"]],  # clubs 11: second -> 11; diamonds 2: first
        [Card.parse(c) for c in ["AC"]],  # clubs 1: third
    ]
    assert rules.round_points(state_with("sloppy-seconds", 3, won=won)) == [5, 11, 5]


def test_r_sl_min5_everyone_at_least_five_per_hand():  # R-SL-MIN5
    g = play_game(engine.new_game("sloppy-seconds", 4, seed=33), [RandomBot(s) for s in range(4)])
    assert all(p >= 5 for r in g.history for p in r["points"])


def test_r_sl_end_target_300_and_364_highest_wins():  # R-SL-END
    assert engine.validate_options("sloppy-seconds", 4) == {"target": 300}
    g = play_game(
        engine.new_game("sloppy-seconds", 3, {"target": 364}, seed=5), [RandomBot(s) for s in range(3)]
    )
    assert max(g.totals) >= 364 and g.winners == [s for s in range(3) if g.totals[s] == max(g.totals)]

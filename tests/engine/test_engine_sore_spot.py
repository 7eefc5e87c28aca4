"""Sore Spot: the text's worked examples and R-SS-* rulings."""

import pytest

import engine
from engine.cards import Card
from engine.games.sore_spot import NUMBER, round_score, trick_winner_index

from .rig import game_with, lay_all, play


def cards(*codes):
    return [Card.parse(c) for c in codes]


def test_text_example_1_off_suit_beats_led_suit():  # R-SS-WIN
    # Anna leads 9D, Ben 4H, Carla KD, Dan 7S: the higher off-suit card wins, Dan's 7S.
    assert trick_winner_index(cards("9D", "4H", "KD", "7S")) == 3


def test_text_example_2_equal_numbers_earlier_wins():  # R-SS-WIN
    # Dan leads QC, Anna 6H, Ben 6S, Carla AD: 6H and 6S tie, Anna played first.
    assert trick_winner_index(cards("QC", "6H", "6S", "AD")) == 1


def test_text_example_3_only_led_suit_and_ace():  # R-SS-WIN
    # Anna 8C, Ben 10C, Carla AH, Dan 5C: the Ace is ignored, highest club wins.
    assert trick_winner_index(cards("8C", "TC", "AH", "5C")) == 1


def test_all_aces_nobody_wins_same_leader_leads_again():  # R-SS-WIN
    g = game_with("sore-spot", 4, 3, {0: ["AC", "2C"], 1: ["AD", "2D"], 2: ["AH", "2H"], 3: ["AS", "2S"]})
    lay_all(g, ["2C", "2D", "2H", "2S"])
    assert g.to_act() == [0]
    play(g, "AC", "AD", "AH", "AS")
    assert g.tricks[-1] == {"leader": 0, "cards": ["AC", "AD", "AH", "AS"], "winner": None}
    assert g.to_act() == [0] and all(not w for w in g.won)


def test_led_ace_still_fixes_the_suit_led():  # R-SS-WIN
    # AC led: clubs are the suit led, so the 3D (off suit) beats the KC.
    assert trick_winner_index(cards("AC", "KC", "3D")) == 2


def test_r_ss_num_numbers():  # R-SS-NUM
    assert [NUMBER[Card.parse(c)] for c in ["AS", "2S", "TS", "JS", "QS", "KS"]] == [0, 2, 10, 11, 12, 13]


def test_text_scoring_example_anna():  # R-SS-SCORE
    others = cards(*["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "2D", "3D", "4D", "5D", "6D"])
    assert len(others) == 14
    assert round_score(Card.parse("2H"), cards("6H", "TH") + others) == -4


def test_text_scoring_example_ben():  # R-SS-SCORE: other-suit Aces count +1 too
    others = cards("2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "AD", "AH")
    assert round_score(Card.parse("AS"), cards("3S", "9S") + others) == -2


@pytest.mark.parametrize(
    "players,size,missing",
    [(3, 13, {"AS", "2S", "KS"}), (4, 13, set()), (5, 10, {"2C", "2D"}), (6, 8, {"2C", "2D", "2H", "2S"})],
)
def test_r_ss_deck_by_players(players, size, missing):  # R-SS-DECK
    g = engine.new_game("sore-spot", players, seed=1)
    hands = [set(g.view(s)["hand"]) for s in range(players)]
    assert all(len(h) == size for h in hands)
    dealt = set().union(*hands)
    assert not (missing & dealt)


def test_r_ss_deck_three_player_variant_a_to_q():  # R-SS-DECK variant
    g = engine.new_game("sore-spot", 3, {"deck": "a-to-q"}, seed=1)
    hands = [g.view(s)["hand"] for s in range(3)]
    assert [len(h) for h in hands] == [16, 16, 16]
    assert not any(c[0] == "K" for h in hands for c in h)
    with pytest.raises(engine.OptionsError, match="3-player variant"):
        engine.new_game("sore-spot", 4, {"deck": "a-to-q"}, seed=1)


def test_r_ss_deck_explicit_composition():  # R-SS-DECK: the deck is a table option
    deck = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    g = engine.new_game("sore-spot", 3, {"deck": deck}, seed=1)
    assert sorted(c for s in range(3) for c in g.view(s)["hand"]) == sorted(deck)
    with pytest.raises(engine.OptionsError, match="does not deal evenly"):
        engine.new_game("sore-spot", 4, {"deck": deck}, seed=1)


def test_r_ss_rounds_one_per_player_and_fixed_variant():  # R-SS-ROUNDS
    from engine.bots import RandomBot, play_game

    for players in (3, 4, 5, 6):
        g = play_game(engine.new_game("sore-spot", players, seed=4), [RandomBot(s) for s in range(players)])
        assert len(g.history) == players
    g = play_game(engine.new_game("sore-spot", 5, {"rounds": 2}, seed=4), [RandomBot(s) for s in range(5)])
    assert len(g.history) == 2


def test_r_ss_rounds_sore_card_not_played_hand_minus_one_tricks():  # R-SS-ROUNDS
    from engine.bots import RandomBot, play_game

    g = play_game(engine.new_game("sore-spot", 4, {"rounds": 1}, seed=8), [RandomBot(s) for s in range(4)])
    assert len(g.history[0]["tricks"]) == 12
    sore = g.history[0]["sore_cards"]
    played = {c for t in g.history[0]["tricks"] for c in t["cards"]}
    assert not (set(sore) & played)


def test_r_ss_score_round_through_the_engine():  # R-SS-SCORE, the laid card counts
    from engine.bots import RandomBot, play_game

    g = play_game(engine.new_game("sore-spot", 3, {"rounds": 1}, seed=21), [RandomBot(s) for s in range(3)])
    rnd = g.history[0]
    won = [[] for _ in range(3)]
    for t in rnd["tricks"]:
        if t["winner"] is not None:
            won[t["winner"]] += cards(*t["cards"])
    expected = [round_score(Card.parse(rnd["sore_cards"][s]), won[s]) for s in range(3)]
    assert rnd["points"] == expected == g.totals


def test_highest_total_wins():
    assert not engine.rules_for("sore-spot").low_wins

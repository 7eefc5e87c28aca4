"""Card Commons (R-CC-*) and Spot Hearts (R-SH-*) rulings."""

import pytest

import engine
from engine.bots import RandomBot, play_game
from engine.cards import Card
from engine.games.card_commons import CardCommons
from engine.games.spot_hearts import POINTS as SH_POINTS

from .rig import game_with, play, state_with

HOLD_ROUND = 3  # 4 players: left, right, across, hold


def skip_pass(g):
    """Everyone passes their three lowest cards (keeps rigged high cards in place)."""
    for seat in range(g.players):
        g.apply(seat, g.legal_moves(seat)[:3])


# ----- Card Commons --------------------------------------------------------------


def test_r_cc_lead_two_of_clubs_four_players():  # R-CC-LEAD
    g = game_with("card-commons", 4, 0, {2: ["2C"]})
    skip_pass(g)
    holder = next(s for s in range(4) if "2C" in g.view(s)["hand"])
    assert g.to_act() == [holder] and g.legal_moves(holder) == ["2C"]


def test_r_cc_lead_three_of_clubs_three_players():  # R-CC-LEAD
    g = engine.new_game("card-commons", 3, seed=3)
    assert all("2C" not in g.view(s)["hand"] for s in range(3))
    skip_pass(g)
    holder = g.to_act()[0]
    assert g.legal_moves(holder) == ["3C"]
    other = next(c for c in g.view(holder)["hand"] if c != "3C")
    with pytest.raises(engine.IllegalMoveError, match=r"the 3C leads the first trick \(R-CC-LEAD\)"):
        g.apply(holder, other)


def test_r_cc_hearts_may_be_led_after_first_trick():  # R-CC-LEAD
    g = engine.new_game("card-commons", 4, seed=12)
    skip_pass(g)
    while not g.tricks:
        seat = g.to_act()[0]
        g.apply(seat, g.legal_moves(seat)[0])
    leader = g.to_act()[0]
    assert g.legal_moves(leader) == g.view(leader)["hand"]  # any card, hearts included


def test_r_cc_pass_cycle_three_players():  # R-CC-PASS
    rules = CardCommons()
    assert [rules.pass_offset(3, r) for r in range(6)] == [1, -1, 0, 1, -1, 0]
    assert [rules.pass_offset(4, r) for r in range(5)] == [1, -1, 2, 0, 1]


def test_r_cc_moon_shooter_minus_26_others_zero():  # R-CC-MOON
    rules = CardCommons()
    won = [
        [Card.parse(c) for c in ["QS"] + [f"{r}H" for r in "23456789TJQKA"]],
        [],
        [Card.parse("2C")],
        [],
    ]
    assert rules.round_points(state_with("card-commons", won=won)) == [-26, 0, 0, 0]
    won = [won[0][:-1], [Card.parse("AH")], [], []]
    assert rules.round_points(state_with("card-commons", won=won)) == [25, 1, 0, 0]


def test_r_cc_end_at_target_lowest_wins():  # R-CC-END
    g = play_game(
        engine.new_game("card-commons", 4, {"target": 30}, seed=2), [RandomBot(s) for s in range(4)]
    )
    assert max(g.totals) >= 30
    before_last = [sum(r["points"][s] for r in g.history[:-1]) for s in range(4)]
    assert max(before_last) < 30
    assert g.winners == [s for s in range(4) if g.totals[s] == min(g.totals)]


# ----- Spot Hearts ---------------------------------------------------------------


def test_r_sh_players_exactly_four():  # R-SH-PLAYERS
    for n in (3, 5):
        with pytest.raises(engine.OptionsError, match="exactly 4"):
            engine.new_game("spot-hearts", n, seed=1)


def test_r_sh_lead_two_of_clubs_after_pass():  # R-SH-LEAD
    g = engine.new_game("spot-hearts", 4, seed=6)
    skip_pass(g)
    holder = next(s for s in range(4) if "2C" in g.view(s)["hand"])
    assert g.to_act() == [holder] and g.legal_moves(holder) == ["2C"]
    with pytest.raises(engine.IllegalMoveError, match="R-SH-LEAD"):
        g.apply(holder, g.view(holder)["hand"][1])


def test_r_sh_first_trick_no_points_when_void():  # R-SH-FIRST
    seat0 = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "2S", "3S", "4S", "5S"]
    seat1 = ["QS", "AH", "KH", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD"]
    g = game_with("spot-hearts", 4, 3, {0: seat0, 1: seat1})
    assert g.view(0)["pass_direction"] == "left"
    g.apply(0, ["2S", "3S", "4S"])  # to seat 1, which stays void in clubs
    g.apply(1, ["2D", "3D", "4D"])
    for seat in (2, 3):
        g.apply(seat, [c for c in g.view(seat)["hand"] if not c.endswith("C")][:3])
    play(g, "2C")
    legal = g.legal_moves(1)
    assert legal == ["5D", "6D", "7D", "8D", "9D", "TD", "JD", "2S", "3S", "4S"]
    with pytest.raises(engine.IllegalMoveError, match="R-SH-FIRST"):
        g.apply(1, "QS")
    with pytest.raises(engine.IllegalMoveError, match="R-SH-FIRST"):
        g.apply(1, "AH")


def test_r_cc_first_trick_void_may_dump_heart_or_queen_exact():  # R-CC-FIRST
    seat0 = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "2S", "3S", "4S", "5S"]
    seat1 = ["QS", "AH", "KH", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD"]
    g = game_with("card-commons", 4, 3, {0: seat0, 1: seat1})
    g.apply(0, ["2S", "3S", "4S"])
    g.apply(1, ["2D", "3D", "4D"])
    for seat in (2, 3):
        g.apply(seat, [c for c in g.view(seat)["hand"] if not c.endswith("C")][:3])
    play(g, "2C", "QS")
    assert g.view(2)["trick"]["cards"][1] == {"seat": 1, "card": "QS"}


def test_r_sh_first_trick_points_allowed_when_nothing_else():  # R-SH-FIRST exception
    from engine.games.spot_hearts import SpotHearts

    hands = [[], sorted(Card.parse(c) for c in ["QS", "2H", "3H"]), [], []]
    state = state_with("spot-hearts", trick=[Card.parse("2C")], tricks=[], hands=hands)
    legal = SpotHearts().legal_plays(state, 1)
    assert [str(Card(c)) for c in legal] == ["2H", "3H", "QS"]


def test_r_sh_break_no_heart_lead_until_broken_queen_any_time():  # R-SH-BREAK
    from engine.games.spot_hearts import SpotHearts, SpotHeartsRound

    hands = [
        sorted(Card.parse(c) for c in ["2D", "QS", "5H"]),
        sorted(Card.parse(c) for c in ["5H", "9H"]),
        [],
        [],
    ]
    extra = SpotHeartsRound(hearts_broken=False)
    state = state_with("spot-hearts", trick=[], tricks=[{"leader": 0}], extra=extra, hands=hands)
    rules = SpotHearts()
    assert [str(Card(c)) for c in rules.legal_plays(state, 0)] == ["2D", "QS"]
    assert [str(Card(c)) for c in rules.legal_plays(state, 1)] == ["5H", "9H"]  # only hearts left
    extra.hearts_broken = True
    assert [str(Card(c)) for c in rules.legal_plays(state, 0)] == ["2D", "5H", "QS"]


def test_r_sh_break_queen_of_spades_breaks_hearts():  # R-SH-BREAK
    from engine.games.spot_hearts import SpotHearts, SpotHeartsRound

    state = state_with("spot-hearts", extra=SpotHeartsRound())
    SpotHearts().on_play(state, 0, Card.parse("QS"))
    assert state.extra.hearts_broken


def test_r_sh_score_by_rank_129_no_moon():  # R-SH-SCORE
    assert sum(SH_POINTS) == 129
    assert SH_POINTS[Card.parse("AH")] == 14 and SH_POINTS[Card.parse("QS")] == 25
    assert SH_POINTS[Card.parse("TH")] == 10 and SH_POINTS[Card.parse("AS")] == 0
    from engine.games.spot_hearts import SpotHearts

    won = [[c for c in range(52) if SH_POINTS[c]], [], [], []]
    # No shooting the moon:
    assert SpotHearts().round_points(state_with("spot-hearts", won=won)) == [129, 0, 0, 0]


def test_r_sh_end_target_option_lowest_wins():  # R-SH-END
    g = play_game(
        engine.new_game("spot-hearts", 4, {"target": 150}, seed=2), [RandomBot(s) for s in range(4)]
    )
    assert max(g.totals) >= 150 and len(g.history) >= 2
    assert g.winners == [s for s in range(4) if g.totals[s] == min(g.totals)]
    with pytest.raises(engine.OptionsError, match="at least 1"):
        engine.new_game("spot-hearts", 4, {"target": 0}, seed=2)

"""tools/vs_ismcts.py: our engine and OpenSpiel's Hearts in lockstep, and the duel's report.

The duel itself runs here with a tiny budget (a few deals, 1-5 ms per decision): its figures are measured
by the documented command (docs/engine.md), never by a test.
"""

from __future__ import annotations

import doctest
import json
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel, the yardstick extra: pip install '.[yardstick]'")

from engine.cards import CODES  # noqa: E402
from tools import vs_ismcts  # noqa: E402

KEYS = {"deals", "ms_per_decision", "ours_points_per_hand", "ismcts_points_per_hand", "p_value",
        "decisions_per_s"}


def test_cards_map_to_openspiel_actions_by_name():
    state = pyspiel.load_game("hearts", vs_ismcts.OPENSPIEL_PARAMS).new_initial_state()
    state.apply_action(0)
    names = {state.action_to_string(0, vs_ismcts.to_action(c)) for c in range(52)}
    assert names == set(CODES)
    assert all(state.action_to_string(0, vs_ismcts.to_action(c)) == CODES[c] for c in range(52))
    assert all(vs_ismcts.to_card(vs_ismcts.to_action(c)) == c for c in range(52))


def test_openspiel_takes_the_card_commons_parameters():
    game = pyspiel.load_game("hearts", vs_ismcts.OPENSPIEL_PARAMS)
    assert game.get_parameters() == vs_ismcts.OPENSPIEL_PARAMS


def test_sign_test_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for wins, losses in ((9, 1), (30, 14), (60, 40), (0, 7), (12, 12)):
        expected = stats.binomtest(wins, wins + losses, 0.5, alternative="greater").pvalue
        assert vs_ismcts.sign_test(wins, losses) == pytest.approx(expected, rel=1e-9)


def test_deals_cycle_the_pass_directions():
    directions = [vs_ismcts.deal_game(7, i).view(0)["pass_direction"] for i in range(4)]
    assert directions == ["left", "right", "across", "hold"]
    assert vs_ismcts.deal_game(7, 2).hands == vs_ismcts.deal_game(7, 2).hands


def test_docstring_examples():
    result = doctest.testmod(vs_ismcts)
    assert result.attempted >= 3 and not result.failed


def test_duplicate_deal_tally():
    tally = vs_ismcts.Tally()
    tally.add_deal([1, 2, 3, 20], [0, 26, 0, 0])  # ours 4 + 26, theirs 22 + 0: lost
    tally.add_deal([0, 13, 0, 13], [26, 0, 0, 0])  # ours 0 + 0, theirs 26 + 26: won
    tally.add_deal([-26, 0, 0, 0], [-26, 0, 0, 0])  # a moon for each side: tied
    assert (tally.wins, tally.losses, tally.ties, tally.hands) == (1, 1, 1, 6)
    assert tally.per_hand(tally.ours) == pytest.approx((30 + 0 - 26) / 12)


def test_four_deals_in_lockstep_every_pass_direction(capsys):
    assert vs_ismcts.main(["--deals", "4", "--ms", "2", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    report = json.loads(lines[-1])
    assert set(report) >= KEYS and report["deals"] == 4 and report["ms_per_decision"] == 2
    assert report["deals_won"] + report["deals_lost"] + report["deals_tied"] == 4
    assert 0 < report["p_value"] <= 1 and report["decisions_per_s"] > 0
    assert sum(line.startswith("deal ") for line in lines) == 4
    # 26 points a hand, less 52 for each moon: both sides' per-seat means add up to 6.5 or less
    assert report["ours_points_per_hand"] + report["ismcts_points_per_hand"] <= 6.5 * 2


def test_a_disagreement_stops_the_run():
    duel = vs_ismcts.Duel(pyspiel, 1, 1)
    duel.game = pyspiel.load_game("hearts", {**vs_ismcts.OPENSPIEL_PARAMS, "can_lead_any_club": True})
    game = next(g for i in range(40) if (g := vs_ismcts.deal_game(5, 4 * i + 3))  # hold: no pass
                and any(c < 13 and c > 0 for c in g.hands[next(s for s, h in enumerate(g.hands) if 0 in h)]))
    with pytest.raises(vs_ismcts.OutOfStep, match="OpenSpiel allows"):
        duel.play_hand(game, {0, 2})


def test_without_open_spiel_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # what `import pyspiel` meets when it is not installed
    assert vs_ismcts.main(["--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert err == "vs_ismcts: open_spiel is not installed: pip install '.[yardstick]'\n"


def test_a_wrong_option_is_one_line(capsys):
    assert vs_ismcts.main(["--deals", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vs_ismcts: ")

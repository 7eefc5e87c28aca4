"""simulate-ladder: the real matchmaking, match and Elo code offline, one JSON line with `spearman`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.__main__ import main
from arena.simulate import Concurrency, simulate_concurrent_ladder, simulate_ladder
from core.arena.model import house_bots_for


def test_simulated_ladder_plays_everyone_and_reports_rank_correlation() -> None:
    bots = ["heuristic", "eps-0.5", "random", "eps-0.9", "eps-0.2"]
    result = simulate_ladder("sore-spot", bots, games_per_bot=3, duplicate=True, seed=3,
                             options={"rounds": 1})
    assert sorted(r["bot"] for r in result["ladder"]) == sorted(bots)
    assert all(r["matches"] >= 3 for r in result["ladder"])
    assert result["games_played"] == 4 * result["matches"]  # duplicate: 4 rotations per match
    # Spearman's rho of the ladder's order against the order given (strongest first), from its ranks.
    ladder = [r["bot"] for r in result["ladder"]]
    n = len(bots)
    squares = sum((place - bots.index(bot)) ** 2 for place, bot in enumerate(ladder))
    assert result["spearman"] == pytest.approx(1 - 6 * squares / (n * (n * n - 1)), abs=1e-4)
    ratings = [r["rating"] for r in result["ladder"]]
    assert ratings == sorted(ratings, reverse=True)
    again = simulate_ladder("sore-spot", bots, games_per_bot=3, duplicate=True, seed=3, options={"rounds": 1})
    assert again["ladder"] == result["ladder"]  # reproducible from the seed


def test_simulate_ladder_command_prints_one_json_line() -> None:
    out = CliRunner().invoke(main, ["simulate-ladder", "--game", "sore-spot", "--options", '{"rounds": 1}',
                                    "--games-per-bot", "2", "--seed", "1", "--runs", "2"])
    assert out.exit_code == 0, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["runs"] == 2 and len(report["spearman_by_seed"]) == 2
    assert report["bots"] == list(house_bots_for("sore-spot"))  # the ladders' own set by default


def test_concurrent_ladder_with_slow_bots_splits_without_mixing_and_not_with_it() -> None:
    bots = ["heuristic", "eps-0.15", "eps-0.3", "eps-0.45", "eps-0.6", "eps-0.75", "eps-0.9", "random"]
    # Two slow bots: their one-round matches last several ticks, the others finish within one.
    slow = {"heuristic": 500.0, "eps-0.3": 500.0}
    reports = {mixing: simulate_concurrent_ladder(
        "sore-spot", bots, games_per_bot=8, duplicate=False, seed=1, options={"rounds": 1},
        concurrency=Concurrency(max_active=2, tick_s=1.0, delays_ms=slow, mixing=mixing))
        for mixing in (False, True)}
    assert reports[False]["pairs_never_met"] > 0  # the fast group kept playing among itself
    assert reports[False]["groups"] == 2
    assert reports[True]["pairs_never_met"] == 0 and reports[True]["groups"] > 2
    for report in reports.values():
        assert all(r["matches"] >= 8 for r in report["ladder"])
        assert report["simulated_s"] > 0 and report["concurrency"]["max_active"] == 2


def test_simulate_ladder_command_rejects_a_bad_delay() -> None:
    out = CliRunner().invoke(main, ["simulate-ladder", "--max-active", "2", "--delay-ms", "heuristic:5"])
    assert out.exit_code == 2 and "BOT=MS" in out.output and "Traceback" not in out.output
    out = CliRunner().invoke(main, ["simulate-ladder", "--max-active", "2", "--delay-ms", "nobody=5"])
    assert out.exit_code == 2 and "not in the ladder: nobody" in out.output


def test_the_memory_bot_in_a_simulated_ladder_recalls_deals_only_when_they_are_replayed() -> None:
    """Same seeds: on fresh deals the memory bot plays its twin's moves, so the ladder is the one it would be
    with a second heuristic; replayed deals are recognised from the second game of a match on."""
    bots = ["memory", "heuristic", "eps-0.5", "random"]
    runs = {replay: simulate_ladder("spot-hearts", bots, games_per_bot=4, duplicate=True, seed=5,
                                    options={"target": 1}, replay_deals=replay) for replay in (False, True)}
    assert runs[False]["memory_recalled_decisions"] <= 2, runs[False]
    assert runs[True]["memory_recalled_decisions"] > 4 * 13, runs[True]
    assert runs[True]["replay_deals"] is True and runs[False]["replay_deals"] is False
    out = CliRunner().invoke(main, ["simulate-ladder", "--game", "spot-hearts", "--options", '{"target": 1}',
                                    "--duplicate", "--bots", ",".join(bots), "--games-per-bot", "2",
                                    "--replay-deals"])
    assert out.exit_code == 0, out.output
    line = json.loads(out.output)
    assert line["replay_deals"] is True and line["memory_minus_twin_by_seed"][0] is not None

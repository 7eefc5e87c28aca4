"""simulate-ladder: the real matchmaking, match and Elo code offline, one JSON line with `spearman`."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.__main__ import main
from arena.simulate import simulate_ladder
from core.arena_model import house_bots_for


def test_simulated_ladder_plays_everyone_and_reports_rank_correlation() -> None:
    bots = ["heuristic", "eps-0.5", "random", "eps-0.9", "eps-0.2"]
    result = simulate_ladder("sore-spot", bots, games_per_bot=3, duplicate=True, seed=3,
                             options={"rounds": 1})
    assert sorted(r["bot"] for r in result["ladder"]) == sorted(bots)
    assert all(r["matches"] >= 3 for r in result["ladder"])
    assert result["games_played"] == 4 * result["matches"]  # duplicate: 4 rotations per match
    assert -1.0 <= result["spearman"] <= 1.0
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

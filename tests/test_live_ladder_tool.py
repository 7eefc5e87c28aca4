"""`python -m tools.live_ladder`: the report it computes, its option errors, and a short run of the stack."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from core.arena.model import LadderConfig
from tests.conftest import REPO_ROOT
from tools.live_ladder import game_report, main, summary


def ladder() -> LadderConfig:
    return LadderConfig("ss-4p", "sore-spot", 4, house_bots=("search-10", "heuristic", "eps-0.5", "random"))


def test_a_game_passes_with_the_known_order_and_every_pair_met() -> None:
    ratings = {"house:search-10": 1700.0, "house:heuristic": 1600.0, "house:eps-0.5": 1500.0,
               "house:random": 1300.0}
    tables = [["house:search-10", "house:heuristic", "house:eps-0.5", "house:random"]]
    report = game_report(ladder(), ratings, tables)
    assert report["ok"] and report["spearman"] == 1.0 and report["pairs_never_met"] == 0
    assert report["spread"] == 400.0 and report["groups"] == 1 and report["matches"] == 1
    assert list(report["ratings"]) == ["search-10", "heuristic", "eps-0.5", "random"]
    json.dumps(report)  # one JSON line


def test_a_game_fails_on_a_pair_that_never_met_or_a_low_rho() -> None:
    ratings = {"house:search-10": 1700.0, "house:heuristic": 1600.0, "house:eps-0.5": 1500.0,
               "house:random": 1300.0}
    three = [["house:search-10", "house:heuristic", "house:eps-0.5"],
             ["house:heuristic", "house:eps-0.5", "house:random"]]
    split = game_report(ladder(), ratings, three)
    assert not split["ok"] and split["never_met"] == [["search-10", "random"]]
    swapped = {**ratings, "house:heuristic": 1750.0}
    low = game_report(ladder(), swapped, [*three, ["house:search-10", "house:random"]])
    assert low["pairs_never_met"] == 0 and low["spearman"] == 0.8 and not low["ok"]
    assert game_report(ladder(), swapped, [*three, ["house:search-10", "house:random"]], 0.8)["ok"]
    assert summary([split, low], 3.0) == {"summary": True, "minutes": 3.0, "games": 2, "ok": False,
                                          "failing": ["sore-spot", "sore-spot"]}


@pytest.mark.parametrize("argv", [["--minutes", "0"], ["--minutes", "soon"], ["--arena-workers", "0"],
                                  ["--wrong"], ["--min-spearman", "2"]])
def test_a_wrong_option_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and out.err.startswith("live_ladder: ")


@pytest.mark.drill
def test_a_short_run_of_the_stack_reports_every_game() -> None:
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "tools.live_ladder", "--minutes", "0.2", "--arena-workers",
                          "1"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                         env={**{k: v for k, v in os.environ.items() if not k.startswith(("TA_", "REDIS"))},
                              "PYTHONPATH": str(REPO_ROOT)})
    assert run.returncode in (0, 1), run.stderr  # 12 s of play decides nothing about the ranking
    assert "Traceback" not in run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    games = ("sore-spot", "card-commons", "sloppy-seconds", "spot-hearts")
    assert [r["ladder"] for r in lines[:-1]] == [f"{g}-4p" for g in games]
    assert lines[-1]["summary"] and lines[-1]["games"] == 4
    assert sum(r["matches"] for r in lines[:-1]) > 0  # the ladders played
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("doc", ["README.md", "docs/arena.md"])
def test_every_flag_the_docs_give_these_commands_exists(doc: str) -> None:
    from arena.__main__ import simulate_ladder_command
    from tools.live_ladder import command

    text = (REPO_ROOT / doc).read_text()
    for name, cmd in (("python -m tools.live_ladder", command), ("python -m arena simulate-ladder",
                                                                 simulate_ladder_command)):
        flags = {opt for param in cmd.params for opt in [*param.opts, *param.secondary_opts]}
        for usage in re.findall(re.escape(name) + r"((?:\\\n|[^`\n])*)", text):
            assert set(re.findall(r"--[a-z][a-z-]*", usage)) <= flags, (doc, usage)
    assert "make live-ladder" not in text or "live-ladder:" in (REPO_ROOT / "Makefile").read_text()

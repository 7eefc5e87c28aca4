"""`python -m tools.export_bench`: how it checks an export line's records, and a short run of the whole bench
(a throwaway Redis, matches played by the arena's job function, the API under gunicorn)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import engine
from engine.bots.base import make_bot, play_game
from engine.seeds import derive_seed
from tests.conftest import REPO_ROOT
from tools.export_bench import check_line

MATCH_SEED = 7


def line_of_one_game() -> dict:
    """An export line of a one-game match: the game dealt from the seed the match's seed derives for it."""
    game = engine.new_game("sore-spot", 4, {"rounds": 1}, seed=derive_seed("game", MATCH_SEED, 0))
    play_game(game, [make_bot("heuristic", seat) for seat in range(4)])
    return {"game": "sore-spot", "seed": MATCH_SEED, "games": [{"game_no": 0, "totals": list(game.totals)}],
            "records": [game.record()]}


def test_a_line_is_checked_record_by_record() -> None:
    line = line_of_one_game()
    assert check_line(json.dumps(line)) == {"records": 1, "replayed": 1, "verified": 1}
    swapped = copy.deepcopy(line)
    hands = swapped["records"][0]["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert check_line(json.dumps(swapped))["verified"] == 0  # the deal is not the seed's
    other_match = {**line, "seed": MATCH_SEED + 1}
    assert check_line(json.dumps(other_match))["verified"] == 0  # the record's seed is not derived from it
    wrong_totals = {**line, "games": [{"game_no": 0, "totals": [0, 0, 0, 0]}]}
    assert check_line(json.dumps(wrong_totals)) == {"records": 1, "replayed": 0, "verified": 1}
    expired = {**line, "games": None, "records": None}
    assert check_line(json.dumps(expired)) == {"records": 0, "replayed": 0, "verified": 0}


def test_a_short_run_exports_every_match_and_every_record_verifies() -> None:
    command = [sys.executable, "-m", "tools.export_bench", "--matches", "3", "--game", "sore-spot",
               "--options", '{"rounds": 1}', "--limit", "2"]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["lines"] == 3 and report["records"] == 12 == report["replayed"] == report["verified"]
    assert report["every_record_replays_and_verifies"] and report["bytes"] > 3 * 4 * 1000

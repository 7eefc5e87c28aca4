"""`python -m tools.match_floor`: what it builds for one match is what a match in flight holds, and the
command answers with JSON (and a wrong option with one line). The figures themselves are a benchmark's."""

from __future__ import annotations

import json
import subprocess
import sys

from core.arena.decisions import logged
from tests.conftest import REPO_ROOT
from tools.match_floor import half_played_game, state_builder


def test_the_state_of_one_match_is_what_a_match_in_flight_holds() -> None:
    held = state_builder("state")(0)
    spec, game, runner = held["spec"], held["game"], held["runner"]
    assert spec.game == "spot-hearts" and len(spec.entrants) == 4
    assert game.version > 0 and not game.over
    for client in held["clients"]:
        assert client._conn is not None and client._conn.sock.fileno() >= 0  # connected, kept alive
    versions = sorted(d.version for log in runner.decisions.values() for d in logged(log.stored()))
    assert versions == list(range(game.version))  # each move of the half-played game, by the bot that made it
    assert held["job"].func_name == "arena.jobs.run_match"
    for client in held["clients"]:
        client.close()


def test_a_half_played_game_is_halfway_through_its_moves() -> None:
    new_game = half_played_game()
    game = new_game()
    assert game.version > 0 and not game.over
    assert new_game().version == game.version  # the same seed, the same moves: every match holds the same


def test_one_part_prints_its_kib_and_a_wrong_part_is_one_line() -> None:
    done = subprocess.run([sys.executable, "-m", "tools.match_floor", "--part", "spec", "--matches", "100"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["part"] == "spec" and isinstance(report["kib"], float)
    wrong = subprocess.run([sys.executable, "-m", "tools.match_floor", "--part", "nothing"], cwd=REPO_ROOT,
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert "Invalid value for '--part'" in wrong.stderr

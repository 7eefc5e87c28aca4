"""`python -m tools.growth`: a quick run ends with one JSON line holding every curve it measured; a wrong
option is one line. The figures themselves come from the documented command, never from this test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "tools.growth", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240, check=False)


@pytest.mark.drill
def test_quick_run_ends_with_every_measured_curve(tmp_path: Path) -> None:
    png = tmp_path / "growth.png"
    output = tmp_path / "g.json"
    done = run("--curves", "ladder,history", "--quick", "--plot", str(png), "--output", str(output))
    assert done.returncode == 0, done.stderr[-2000:]
    last = json.loads(done.stdout.strip().splitlines()[-1])
    keys = {curve["key"] for curve in last["curves"]}
    assert {"ladder.tick_ms", "ladder.tick_commands", "ladder.match_gap", "ladder.api_ms", "ladder.api_bytes",
            "ladder.web_ms", "ladder.web_bytes", "history.bytes_per_match", "history.bytes_total"} <= keys
    for curve in last["curves"]:
        assert len(curve["sizes"]) == len(curve["values"]) >= 2
        assert all(value > 0 for value in curve["values"]), curve
        assert isinstance(curve["exponent"], float) and isinstance(curve["goal_met"], bool)
    assert last["goals_met"] == all(curve["goal_met"] for curve in last["curves"])
    assert json.loads(output.read_text()) == last
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for curve in last["curves"]:
        assert curve["key"] in done.stdout.split("{", 1)[0]  # the readable table names it


def test_wrong_option_is_one_line() -> None:
    for args in (["--curves", "nonsense"], ["--bogus"]):
        done = run(*args)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr and done.stdout == ""

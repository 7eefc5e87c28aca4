"""`trick-arena replay` is a terminal tool: printing a replay loads the engine, not the web stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import engine
from engine.bots import make_bot, play_game

WEB_STACK = ("flask", "flask_smorest", "marshmallow", "werkzeug", "redis")

# Runs the CLI's replay of a file in a fresh interpreter, then names every web-stack package it loaded.
REPLAY_AND_LIST_MODULES = """
import json, sys
from clients.cli import main
try:
    main(["replay", "--file", sys.argv[1]])
except SystemExit as exit:
    assert not exit.code, exit.code
top = {name.partition(".")[0] for name in sys.modules}
print(json.dumps({"web_stack": sorted(top & set(sys.argv[2:])), "frames": "engine.frames" in sys.modules}))
"""


def test_replay_from_a_file_loads_no_web_stack(tmp_path: Path) -> None:
    game = play_game(engine.new_game("spot-hearts", 4, {"target": 20}, seed=3),
                     [make_bot("heuristic", s) for s in range(4)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", REPLAY_AND_LIST_MODULES, str(path), *WEB_STACK],
                          cwd=root, capture_output=True, text=True, timeout=120, check=True)
    *printed, last = done.stdout.strip().splitlines()
    assert "Game over" in "\n".join(printed)  # the replay was printed
    loaded = json.loads(last)
    assert loaded["frames"]  # ... from the replay frames
    assert loaded["web_stack"] == []

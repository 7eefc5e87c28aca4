"""The compiled build is used only while it matches the source, and plays exactly like the source."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine import compiled

ROOT = Path(__file__).resolve().parents[2]

# Plays a few complete games and prints everything observable: records, views, histories.
PLAY = """
import json, random, sys
import engine
from engine.bots import make_bot
out = {"compiled": engine.COMPILED, "games": []}
for game, n in [("spot-hearts", 4), ("card-commons", 3), ("sloppy-seconds", 4), ("sore-spot", 5)]:
    g = engine.new_game(game, n, {"target": 120} if game != "sore-spot" else {}, seed=3)
    bots = [make_bot("heuristic" if s % 2 else "random", seed=s) for s in range(n)]
    views = []
    while not g.over:
        for seat in g.to_act():
            views.append(g.view(seat))
            g.apply(seat, bots[seat].choose(g.view(seat)))
    out["games"].append([g.record(), g.history, views, g.spectator_view()])
print(json.dumps(out))
"""


def play(env_engine: str | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(compiled.ENV, None)
    if env_engine:
        env[compiled.ENV] = env_engine
    proc = subprocess.run([sys.executable, "-c", PLAY], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_build_used_only_when_its_fingerprint_matches(tmp_path, monkeypatch):
    monkeypatch.delenv(compiled.ENV, raising=False)
    monkeypatch.setattr(compiled, "FINGERPRINT", tmp_path / "fingerprint.txt")
    assert not compiled.usable()  # no build
    (tmp_path / "fingerprint.txt").write_text("0" * 64 + "\n")
    assert not compiled.usable()  # a build of other sources
    (tmp_path / "fingerprint.txt").write_text(compiled.fingerprint() + "\n")
    assert compiled.usable()
    monkeypatch.setenv(compiled.ENV, "interpreted")
    assert not compiled.usable()


def test_interpreted_switch_runs_the_source():
    assert play("interpreted")["compiled"] is False


@pytest.mark.skipif(not engine.COMPILED, reason="no compiled build matching the source (make compiled)")
def test_compiled_plays_exactly_like_the_source():
    fast, reference = play(None), play("interpreted")
    assert fast["compiled"] is True
    assert fast["games"] == reference["games"]

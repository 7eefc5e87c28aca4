"""The compiled build runs only once a program activates it, only while it matches the source, and plays
exactly like the source; importing the engine touches no file and no path."""

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
from engine import compiled
compiled.activate()
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
out["rules_file"] = sys.modules["engine.rules"].__file__
print(json.dumps(out))
"""

# Runs every compiled module's work at fixed seeds and a fixed number of worlds (no clock decides anything):
# sampled worlds, heuristic rollouts of them, the search's evaluation with its pruning, and the analysis of a
# game in progress; prints all of it. The analysis's elapsed time is the only figure left out.
SEARCH = """
import json, random, sys
import engine
from engine import compiled
compiled.activate()
from engine.analysis import analyse
from engine.bots import make_bot
from engine.bots.rollout import HeuristicRollout
from engine.bots.search import evaluate, move_key
from engine.sampling import NoWorldError, sample_world
from engine.worlds import world_state
INF = float("inf")
out = {"compiled": engine.COMPILED, "games": []}
for game, n in [("spot-hearts", 4), ("card-commons", 3), ("sloppy-seconds", 4), ("sore-spot", 5)]:
    g = engine.new_game(game, n, {}, seed=11)
    bots = [make_bot("heuristic" if s % 2 else "random", seed=s) for s in range(n)]
    found = []
    decisions = 0
    while not g.over and g.round_no == 0:
        for seat in g.to_act():
            view = g.view(seat)
            if decisions % 3 == 0:
                rng = random.Random(decisions)
                try:
                    hands = sample_world(view, rng)
                except NoWorldError:
                    found.append("no world")
                else:
                    world = world_state(view, hands)
                    points = HeuristicRollout(world).play_round(world, INF)
                    ev = evaluate(view, 0.0, rng, min_worlds=6)
                    found.append([hands, points, world.history, ev.moves,
                                  [sorted(s.items()) for s in ev.samples], ev.worlds, move_key(ev.best()),
                                  move_key(ev.best_value())])
            decisions += 1
            g.apply(seat, bots[seat].choose(view))
    analysis = analyse(g.record(), 1, budget_ms=0, seed=5)
    analysis.pop("elapsed_s")
    out["games"].append([found, analysis])
out["modules"] = {name: sys.modules[name].__file__ for name in
                  ("engine.sampling", "engine.worlds", "engine.bots.rollout", "engine.bots.search")}
print(json.dumps(out))
"""

# Imports the package and engine.compiled, recording every file opened meanwhile.
IMPORT = """
import json, sys
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
path = list(sys.path)
import engine, engine.compiled
print(json.dumps({"opened": opened, "path_changed": sys.path != path, "compiled": engine.COMPILED,
                  "modules": sorted(m for m in sys.modules if m.split(".")[0] == "engine")}))
"""

# Imports a rule module, then asks for the build with one that counts as usable.
LATE = """
from engine import compiled
import engine.rules
compiled.usable = lambda: True
try:
    compiled.activate()
except RuntimeError as error:
    print(error)
"""


def run(script: str, env_engine: str | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(compiled.ENV, None)
    if env_engine:
        env[compiled.ENV] = env_engine
    return subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def play(env_engine: str | None, script: str = PLAY) -> dict:
    return json.loads(run(script, env_engine))


def test_importing_the_engine_reads_no_file_and_changes_no_path():
    done = json.loads(run(IMPORT))
    opened = [Path(p) for p in done["opened"]]
    engine_files = {p.name.split(".")[0] for p in opened if p.is_relative_to(compiled.PACKAGE)}
    assert engine_files <= {"__init__", "compiled"}, engine_files  # the two modules imported, nothing hashed
    assert not any(p.is_relative_to(compiled.BUILD) for p in opened)
    assert not done["path_changed"] and done["compiled"] is False
    assert done["modules"] == ["engine", "engine.compiled"]  # no rule module yet: activate() can come first


def test_activating_after_the_rules_were_imported_fails_loudly():
    assert "engine.rules already imported from the source" in run(LATE)


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
    done = play("interpreted")
    assert done["compiled"] is False and done["rules_file"].endswith(".py")


@pytest.mark.skipif(not compiled.usable(), reason="no compiled build matching the source (make compiled)")
def test_compiled_plays_exactly_like_the_source():
    fast, reference = play(None), play("interpreted")
    assert fast["compiled"] is True and fast["rules_file"].endswith(".so")
    assert fast["games"] == reference["games"]


@pytest.mark.skipif(not compiled.usable(), reason="no compiled build matching the source (make compiled)")
def test_compiled_samples_rolls_out_searches_and_analyses_exactly_like_the_source():
    fast, reference = play(None, SEARCH), play("interpreted", SEARCH)
    assert fast["compiled"] is True and all(path.endswith(".so") for path in fast["modules"].values())
    assert not any(path.endswith(".so") for path in reference["modules"].values())
    for (found, analysis), (found_ref, analysis_ref) in zip(fast["games"], reference["games"], strict=True):
        assert any(entry != "no world" and entry[5] == 6 for entry in found)  # worlds were searched
        assert analysis["decisions"] and analysis_ref["decisions"]
        assert found == found_ref
        assert analysis == analysis_ref


def test_the_session_runs_the_build_when_it_is_usable():
    assert engine.COMPILED is compiled.usable()  # tests/conftest.py activates it before any test module


def test_the_bench_command_runs_the_build_when_it_is_usable():
    command = "from engine.__main__ import main; main(['bench', '--game', 'sore-spot', '--rounds', '3', " \
              "'--repeat', '1', '--no-openspiel', '--json'])"
    (row,) = json.loads(run(command))
    assert row["engine"] == ("compiled" if compiled.usable() else "interpreted")
    (row,) = json.loads(run(command, "interpreted"))
    assert row["engine"] == "interpreted"


def test_the_packages_public_names_are_all_there_on_first_use():
    import engine.bots

    assert set(engine.__all__) == {"COMPILED", *engine._HOMES}
    for package in (engine, engine.bots):
        assert all(getattr(package, name) is not None for name in package.__all__)
        assert set(package.__all__) <= set(dir(package))
        with pytest.raises(AttributeError):
            package.no_such_name  # noqa: B018
    assert engine.new_game is engine.game.new_game and engine.bots.make_bot is engine.bots.base.make_bot

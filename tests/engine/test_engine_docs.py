"""The docs' example runs, and the engine's docstring examples hold."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.worlds import world_state

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


def test_docs_example_runs(capsys):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    exec(compile(code, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("pass [0, 1, 2, 3]") and "waiting for seat(s) 1 2 3" in out


# The doctests run on the interpreted source: doctest cannot see the functions of a compiled module
# (engine/compiled.py), so in-process they would find nothing to run whenever the build is in use.
DOCTESTS = """
import doctest, importlib, json, pkgutil, engine
assert not engine.COMPILED
results = {}
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    if info.name.endswith("__main__"):
        continue
    module = importlib.import_module(info.name)
    if any(test.examples for test in doctest.DocTestFinder().find(module)):
        result = doctest.testmod(module)
        results[info.name] = [result.attempted, result.failed]
print(json.dumps(results))
"""


def test_docs_sample_world_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    example = next(b for b in blocks if "sample_world" in b)
    names: dict = {}
    exec(compile(example, str(DOC), "exec"), names)  # the example's own asserts run here
    view, hands = names["view"], names["hands"]
    dealt = [c for hand in hands for c in hand]
    assert len(dealt) == len(set(dealt)) == sum(view["hand_sizes"])  # every hidden card once
    world_state(view, hands)  # a world the rules accept (raises otherwise)



@pytest.fixture(scope="module")
def doctest_results() -> dict[str, list[int]]:
    env = {**os.environ, "TRICK_ARENA_ENGINE": "interpreted"}
    done = subprocess.run([sys.executable, "-c", DOCTESTS], env=env, cwd=DOC.parents[1], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_engine_has_docstring_examples(doctest_results):
    assert len(doctest_results) >= 3, doctest_results


def test_docstring_examples(doctest_results):
    failing = {name: r for name, r in doctest_results.items() if r[1] or not r[0]}
    assert not failing, failing


def test_docs_search_example_runs():
    block = next(b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S) if "g.copy()" in b)
    scope: dict = {}
    exec(compile(block, str(DOC), "exec"), scope)
    g = scope["g"]
    assert scope["best"] in g.legal_moves(scope["seat"]) and g.version == 0  # the search left g untouched

"""One meaning of "this run is CI" for every test, and under CI no run without the compiled engine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.ci import under_ci, untested_engine
from tests.conftest import REPO_ROOT


@pytest.mark.parametrize("value", ["true", "TRUE", "1", "yes", "on", "github-actions", " true "])
def test_any_value_but_empty_0_or_false_is_ci(value: str) -> None:
    assert under_ci({"CI": value})


@pytest.mark.parametrize("env", [{}, {"CI": ""}, {"CI": "0"}, {"CI": "false"}, {"CI": "False"}, {"CI": " "}])
def test_unset_empty_0_and_false_are_not_ci(env: dict[str, str]) -> None:
    assert not under_ci(env)


def test_an_interpreted_engine_stops_a_ci_run_only() -> None:
    reason = untested_engine({"CI": "1", "TRICK_ARENA_ENGINE": "interpreted"}, compiled_active=False)
    assert reason is not None and "not compiled" in reason and "'interpreted'" in reason
    assert untested_engine({"CI": "1"}, compiled_active=True) is None
    assert untested_engine({"CI": "false"}, compiled_active=False) is None
    assert untested_engine({}, compiled_active=False) is None


def test_a_ci_run_on_the_interpreted_engine_fails_before_its_first_test() -> None:
    env = {**os.environ, "CI": "true", "TRICK_ARENA_ENGINE": "interpreted", "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_ci.py::test_unset_empty_0_and_false_are_not_ci"],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the engine is not compiled" in done.stdout + done.stderr
    assert "passed" not in done.stdout


@pytest.mark.parametrize("ci", ["", "false", "true", "1"])
def test_make_warns_of_a_failed_compile_and_fails_under_ci(tmp_path, ci: str) -> None:
    stamp = tmp_path / "installed"
    stamp.touch()
    env = {**os.environ, "CI": ci}
    done = subprocess.run(["make", "--no-print-directory", "compiled", f"STAMP={stamp}", "PY=false",
                           f"ENGINE_BUILD={tmp_path / 'fingerprint.txt'}"],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert "WARNING: the engine could not be compiled" in done.stderr
    assert "make compiled" in done.stderr  # says how to get it
    assert (done.returncode != 0) is under_ci(env), done.stderr
    assert not (tmp_path / "fingerprint.txt").exists()

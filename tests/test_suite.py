"""The suite's own machinery: which tests `make test` and `make drills` select, what a failing test prints of
the processes it started, and the helpers tests share."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys

import pytest

import tests.scenarios
import tests.tiers
import tests.waiting
from tests.conftest import REPO_ROOT
from tests.tiers import DRILL_FIXTURES


@pytest.mark.parametrize("module", [tests.tiers, tests.waiting, tests.scenarios], ids=lambda m: m.__name__)
def test_the_shared_helpers_work_as_their_examples_say(module) -> None:
    results = doctest.testmod(module)
    assert results.attempted > 0 and results.failed == 0


def collected(marker: str, *files: str) -> set[str]:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "-m", marker, *files], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_a_test_is_a_drill_by_its_fixtures_or_its_mark_and_the_tiers_split_the_suite() -> None:
    files = ["tests/reliability/test_reliability_sentinel.py",
             "tests/reliability/test_reliability_store_full.py", "tests/arena/test_arena_bench.py"]
    drills, fast = collected("drill", *files), collected("not drill", *files)
    sentinel, store_full, bench = (f"{name}::" for name in files)
    assert f"{sentinel}test_the_failover_drill_with_a_few_seconds_of_load" in drills  # a Sentinel set
    assert f"{store_full}test_a_worker_started_on_a_full_redis_outlives_it_and_then_works" in drills  # fault
    assert f"{bench}test_arena_bench_runs_every_phase_and_rates_every_match" in drills  # marked by hand
    assert f"{sentinel}test_the_sentinel_docs_name_real_files_flags_and_the_sample_timings" in fast
    assert f"{store_full}test_other_redis_errors_are_not_store_errors" in fast
    assert f"{bench}test_in_flight_counts_overlaps_exactly" in fast
    assert not drills & fast


def test_every_drill_fixture_is_a_fixture_of_the_suite() -> None:
    """A renamed fixture would silently move its tests into the fast tier."""
    sources = "\n".join(path.read_text() for path in (REPO_ROOT / "tests").rglob("*.py"))
    for name in DRILL_FIXTURES:
        assert re.search(rf"@pytest\.fixture[^\n]*\ndef {name}\(", sources), name


def test_a_failing_test_prints_the_log_of_each_process_it_started(tmp_path) -> None:
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "def test_fails_while_a_worker_runs(arena_process):\n"
        "    worker = arena_process('worker', '--threads', '1')\n"
        "    from tests.waiting import wait_until\n"
        "    wait_until(lambda: 'Listening on' in worker.output() or worker.poll() is not None, 60,\n"
        "               'the worker says it listens')\n"
        "    assert False, 'the probe fails on purpose'\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tests.conftest", "--rootdir", str(tmp_path), str(probe)],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "log of python -m arena worker --threads 1" in done.stdout, done.stdout
    assert "Listening on" in done.stdout.split("log of python -m arena worker")[1], done.stdout

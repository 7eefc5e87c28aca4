"""`python -m tools.analysis_contention` at a tiny size: the documented command must keep working.

No timing is asserted (the figures come from the command itself, on a quiet machine); this checks that every
match of both runs was rated, that the analysis worker was busy meanwhile, and at which OS priority it ran.
"""

from __future__ import annotations

import pytest

from arena.workers import ANALYSIS_NICENESS, niceness_increment
from tools.analysis_contention import run, slowdown_percent


def test_niceness_only_goes_down() -> None:
    assert niceness_increment(0, ANALYSIS_NICENESS) == 19
    assert niceness_increment(19, 0) == 0  # an unprivileged process cannot raise its priority: no attempt
    assert slowdown_percent(200.0, 190.0) == 5.0


@pytest.mark.drill
def test_the_contention_bench_runs_alone_and_busy() -> None:
    report = run(matches=2, repeat=1, budget_ms=10, analyses=4)
    for name in ("alone", "busy"):
        assert [r["rated"] for r in report["runs"][name]] == [2], name
        assert report["median_decisions_per_s"][name] > 0, name
    (busy,) = report["analyses_meanwhile"]
    assert busy["worker_niceness"] == [ANALYSIS_NICENESS]  # the analysis worker's default
    assert busy["analyses_pending_at_end"] > 0  # still busy when the last match finished
    assert isinstance(report["slowdown_percent"], float)


@pytest.mark.drill
def test_the_analysis_worker_runs_at_the_niceness_it_is_given() -> None:
    report = run(matches=1, repeat=1, budget_ms=10, analyses=2, analysis_nice=5)
    assert report["analyses_meanwhile"][0]["worker_niceness"] == [5]

"""`python -m tools.arena_bench` end to end at a tiny size: the documented command must keep working.

No timing is asserted (figures come from the command itself); this checks that every match of every phase
was played and rated, that no bench bot drew a strike, and that CPU was attributed to workers and bots.
"""

from __future__ import annotations

import pytest

from tools.arena_bench import in_flight, run


def test_in_flight_counts_overlaps_exactly() -> None:
    assert in_flight([]) == {"mean": 0.0, "max": 0}
    assert in_flight([(0.0, 1.0)]) == {"mean": 1.0, "max": 1}
    # Back to back is one at a time; three spread over 4 s, two of them overlapping for a second.
    assert in_flight([(0.0, 1.0), (1.0, 2.0)]) == {"mean": 1.0, "max": 1}
    assert in_flight([(0.0, 2.0), (1.0, 3.0), (3.0, 4.0)]) == {"mean": 1.25, "max": 2}


@pytest.mark.drill
def test_arena_bench_runs_every_phase_and_rates_every_match() -> None:
    report = run(seconds=0.2, games=1, matches=2, repeat=1, delays_ms=(0, 20), threads=2, waves=1)
    assert report["bare_loop"]["calls"] > 0
    one = report["one_worker_in_process"]
    assert one["games"] == 1 and one["decisions"] == one["decisions_per_game"] > 0
    for phase, matches in [("rq_1_worker", 2), ("rq_2_workers", 2), ("house_bots_rq_1_worker", 8),
                           ("house_bots_rq_2_workers", 8)]:
        assert report[phase]["rated"] == matches, phase
        assert report[phase]["worker_cpu_us_per_decision"] > 0, phase
    assert report["rq_1_worker"]["bot_cpu_us_per_decision"] > 0  # the forked bot children are counted
    assert report["house_bots_rq_1_worker"]["bot_cpu_us_per_decision"] == 0
    assert set(report["median_ratios"]) == {"worker_vs_bare", "two_vs_one", "house_two_vs_one"}
    # The slow-bot runs: 2 worker processes x 2 threads, one wave of matches per thread, per delay.
    slow = report["slow_bots"]
    for delay in ("0ms", "20ms"):
        sample = slow["runs"][0]["by_delay"][delay]
        assert sample["threads_per_worker"] == 2 and sample["rated"] == sample["matches"] == 4, delay
        assert sample["strikes"] == 0, delay
        assert 1 <= sample["in_flight_max"] <= 4, delay
        assert len(sample["rss_mib_per_worker"]) == 2 and min(sample["rss_mib_per_worker"]) > 10, delay
        assert slow["median"][delay]["decisions_per_s"] == sample["decisions_per_s"], delay
    assert slow["median_share_of_0ms"]["0ms"] == 1.0

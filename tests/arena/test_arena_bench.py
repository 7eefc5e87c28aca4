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
def test_arena_bench_runs_every_phase_and_rates_every_match(monkeypatch) -> None:
    import tools.arena_bench

    # More than the ramp-up and a 3 s window finish, even with bots 0 ms away.
    monkeypatch.setattr(tools.arena_bench, "SLOW_MATCHES", 1000)
    monkeypatch.setattr(tools.arena_bench, "MIXED_MATCHES", 1000)
    report = run(seconds=0.2, games=1, matches=2, repeat=1, delays_ms=(0, 20), max_in_flight=4, window_s=3.0,
                 mixed=True)
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
    # The slow-bot runs: 2 worker processes of at most 4 matches each, a queue that never ran dry.
    slow = report["slow_bots"]
    for delay in ("0ms", "20ms"):
        sample = slow["runs"][0]["by_delay"][delay]
        assert sample["decisions"] > 0 and not sample["queue_ran_dry"], delay
        assert 0 < sample["in_flight_per_process"] <= 4, delay
        assert sample["failed_decisions_by_ladder"] == {"bench": {}}, delay  # compliant bots: no strike
        assert sample["arena_ms_p99"] is not None and sample["kib_per_match_in_flight"] is not None, delay
    assert slow["median_share_of_0ms"]["0ms"] == 1.0
    mixed = report["mixed_field"]
    assert mixed["near_strikes"] == 0 and mixed["near_failed_decisions"] == {}
    failed = mixed["with_bad"]["failed_decisions_by_ladder"]["mixed"]
    assert failed.get("error", 0) > 0  # the closed ports
    paused = mixed["paused_after_3_health_checks"]
    assert paused["refusing0"] and paused["refusing1"] and not paused["far0"] and not paused["late0"]
    assert mixed["near_pace_per_match_without_bad"] > 0

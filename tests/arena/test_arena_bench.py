"""`python -m tools.arena_bench` end to end at a tiny size: the documented command must keep working.

No timing is asserted (figures come from the command itself); this checks that every match of every phase
was played and rated, that no bench bot drew a strike, and that CPU was attributed to workers and bots.
"""

from __future__ import annotations

from tools.arena_bench import run


def test_arena_bench_runs_every_phase_and_rates_every_match() -> None:
    report = run(seconds=0.2, games=1, matches=2, repeat=1)
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

"""tools.redis_ceiling: the counting, the model and the audit on a small real run (Redis, gunicorn, the arena
scheduler and RQ workers), and the network-namespace "machines" (root only; under CI missing root fails).

The figures themselves are the benchmark's business (`make bench-redis`); here a small run must count real
work from Redis's own counters, finish every match, rate each exactly once and leave no namespace behind.
"""

from __future__ import annotations

import pytest

from core.arena.store.matches import APPLIED_TTL_S, RECENT_KEEP
from core.arena.store.results import HISTORY_LIMIT
from tests.ci import under_ci
from tools import netns
from tools.redis_ceiling import Usage, ceiling, command_calls, run, steady_state_bytes


def test_command_calls_drops_the_meters_own_commands() -> None:
    stats = {"cmdstat_evalsha": {"calls": 2}, "cmdstat_info": {"calls": 9},
             "cmdstat_config|resetstat": {"calls": 1}, "cmdstat_config": {"calls": 1},
             "cmdstat_set": {"calls": 5}}
    assert command_calls(stats) == {"evalsha": 2, "set": 5}


def test_background_is_subtracted_in_proportion_to_time() -> None:
    idle = Usage({"get": 10, "brpop": 4}, net_in=100, net_out=200, cpu_s=0.01, seconds=2.0)
    phase = Usage({"get": 50, "evalsha": 3, "brpop": 2}, net_in=1000, net_out=900, cpu_s=0.5, seconds=4.0)
    net = phase.minus_background(idle)
    assert net.commands == {"get": 30, "evalsha": 3}  # brpop: 2 - 8 < 0 is dropped, not negative
    assert (net.net_in, net.net_out) == (800, 500)
    assert net.cpu_s == pytest.approx(0.48)
    assert net.per(3)["commands"] == 11.0


def test_ceiling_adds_the_lease_heartbeat_of_slow_matches() -> None:
    fast = ceiling(0.002, 0.0, 100, 4, 0.02)
    assert fast["matches_per_s"] == 500.0 and fast["match_s"] == 2.0
    assert fast["concurrent_bots"] == 4 * 500 * 2
    slow = ceiling(0.002, 0.0001, 100, 4, 0.1)  # 10 s matches: 10 heartbeats of 100 µs each
    assert slow["matches_per_s"] == pytest.approx(1 / 0.003, abs=0.1)


def test_steady_state_follows_the_retention_limits() -> None:
    sizes = {"doc": 2000, "games": 3000, "applied": 100, "history_entry": 40, "record_entry": 60}
    got = steady_state_bytes(sizes, ladders=2, bots_per_ladder=10, matches_per_s=0.5)
    assert got == 2 * RECENT_KEEP * 5000 + int(0.5 * APPLIED_TTL_S * 100) + 2 * 10 * HISTORY_LIMIT * 100


def _check_small_run(report: dict) -> None:
    assert report["audit"]["ok"], report["audit"]["problems"]
    assert report["passed"]
    assert not report["processes_crashed"]
    for phase in report["phases"]:
        assert phase["finished"] >= 2 and phase["drained"]
        per = phase["per_match"]
        # Real work: a match is at least its creation, its start, and the Lua apply with its inner commands.
        assert per["commands"] > 10 and per["net_in_bytes"] > 1000 and per["net_out_bytes"] > 0
        assert per["redis_cpu_us"] > 0
        assert "evalsha" in per["top_commands"] or "eval" in per["top_commands"]
        sizes = phase["sizes"]
        assert sizes["doc"] > 0 and sizes["games"] > 0 and sizes["applied"] > 0
    duplicate = next(p for p in report["phases"] if p["duplicate"])
    single = next(p for p in report["phases"] if not p["duplicate"])
    # A duplicate match plays the deal once per rotation: more decisions, a bigger replay.
    assert duplicate["decisions_per_match"] > single["decisions_per_match"]
    assert duplicate["sizes"]["games"] > single["sizes"]["games"]
    rated = sum(p["rated"] for p in report["phases"])
    assert report["audit"]["matches"].get("rated", 0) == rated


@pytest.mark.drill
def test_small_run_counts_and_audits() -> None:
    # A phase ends as soon as its matches are done; its timeout only bounds a broken run, with room for a
    # loaded machine.
    report = run(matches=2, machine_count=0, workers_per_machine=2, games=["spot-hearts"], api_seconds=2.0,
                 idle_seconds=1.0, phase_timeout_s=150.0)
    _check_small_run(report)
    api = report["api"]
    # How many moves 2 s allow depends on the load (a figure for `make bench-redis`); that moves were
    # made, none refused, and each counted, does not.
    assert api["moves"] > 0 and api["errors"] == 0
    assert api["per_move"]["commands"] >= 1 and api["per_move"]["net_in_bytes"] > 100
    assert api["tables"]["moves"] >= api["moves"] and api["tables"]["bytes_per_move"] > 0
    assert report["ceiling"]["per_ladder"] and report["storage"]["mean_bytes"]["stored_per_match"] > 0


@pytest.fixture
def root_with_ip() -> None:
    if not netns.available():
        if under_ci():
            pytest.fail("CI=true but no root or no `ip`: the network-namespace run cannot be skipped there")
        pytest.skip("network namespaces need root and `ip` (iproute2)")


@pytest.mark.usefixtures("root_with_ip")
def test_namespaces_are_removed_even_on_failure() -> None:
    with pytest.raises(RuntimeError, match="boom"), netns.machines(2) as boxes:
        assert [b.name for b in boxes] == ["ta-rc0", "ta-rc1"]
        assert boxes[1].routes() == [f"{netns.SUBNET}.1.0/30 dev ta-rc1n proto kernel scope link src "
                                     f"{boxes[1].address}"]
        raise RuntimeError("boom")
    assert netns.leftovers() == []


@pytest.mark.drill
@pytest.mark.usefixtures("root_with_ip")
def test_workers_on_three_machines_share_the_ladders() -> None:
    report = run(matches=3, machine_count=3, workers_per_machine=1, games=["spot-hearts"], api_seconds=0.0,
                 idle_seconds=1.0, phase_timeout_s=150.0)
    _check_small_run(report)
    assert report["namespaces_left"] == []
    names = [m["name"] for m in report["machines"]]
    # Each machine's worker reached Redis from its own address and ran matches.
    for machine in report["machines"]:
        assert report["redis_clients_by_address"].get(machine["address"], 0) >= 1
        assert len(machine["routes"]) == 1 and "default" not in machine["routes"][0]
    ran = {name for name, count in report["matches_by_worker"].items() if count}
    assert all(any(n in worker for worker in ran) for n in names), report["matches_by_worker"]

"""`python -m loadtest faults redis-failover`: the primary Redis SIGKILLed under load, Sentinel promotes the
replica, and the stack must carry on against the new primary by itself.

Design: docs/reliability.md#redis-sentinel-failover
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

import httpx
import redis
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

import engine
from arena.policy import fallback_move
from core.metrics import REDIS_WRITES
from core.redis.connections import redis_client
from core.tables.record import SeatKind
from core.tables.store import SeatSpec, TableStatus, TableStore
from devstack.sentinel import DOWN_AFTER_MS, FAILOVER_TIMEOUT_MS, SentinelCluster
from devstack.stack import Stack, loadavg
from devstack.verify import rating_audit
from loadtest.ladder import drain_and_stop, register_bots
from loadtest.players import (
    audit_player_tables,
    finished_count,
    play_on_after_fault,
    players_came_through,
    start_players,
    stop_players,
)

WAIT_MS = 200  # the drill's TA_REDIS_WAIT_MS: a move is answered once the replica has it
# A match job stranded by the failover (taken by a worker that lost the primary before the match started) is
# given back by the scheduler after two shortest leases (arena.scheduler): 3 s here, so a short run sees it.
MIN_LEASE_S = 3.0
SETTLE_S = 90.0  # after the load: how long the matches running at the fault may take to end
COMMIT_ROUNDS, COMMIT_MOVES = 8, 100  # `commit_costs`: rounds of move commits timed per setting, alternating
GOAL_WRITES_BACK_S = 15.0
FINAL = ("rated", "void", "aborted")


def commit_times(store: TableStore, moves: int) -> list[float]:
    """Milliseconds of `moves` move commits (`TableStore.apply_move`, one thread, the store's script lane)
    on tables of four house seats playing their lowest legal cards."""
    seats = [SeatSpec(SeatKind.HOUSE, "random")] * 4
    times: list[float] = []
    while len(times) < moves:
        record = store.create_table("spot-hearts", 4, {"target": 1}, seats)
        while record.status == TableStatus.PLAYING and len(times) < moves:
            seat = record.to_act[0]
            held = store.seat_view(record.table_id, seat)
            move = fallback_move(held.view["decision"])
            started = time.perf_counter()
            store.apply_move(record.table_id, seat, move, expected_version=held.version)
            times.append((time.perf_counter() - started) * 1000)
            record = store.load_table(record.table_id)
    return times


def commit_costs(client: redis.Redis, prefix: str, wait_ms: int, rounds: int = COMMIT_ROUNDS,
                 moves: int = COMMIT_MOVES) -> list[dict[str, Any]]:
    """A move commit's milliseconds without WAIT and with ``WAIT 1 wait_ms``, in alternating rounds (the
    machine's other load falls on both alike)."""
    stores = [TableStore(client, prefix + "commit:", wait_ms=w) for w in (0, wait_ms)]
    times: list[list[float]] = [[], []]
    for _ in range(rounds):
        for index, store in enumerate(stores):
            times[index] += commit_times(store, moves)
    summary = []
    for store, samples in zip(stores, times, strict=True):
        if not samples:
            continue
        samples.sort()
        summary.append({"wait_ms": store.wait_ms, "moves": len(samples),
                        "p50_ms": round(statistics.median(samples), 3),
                        "p90_ms": round(samples[int(len(samples) * 0.9) - 1], 3),
                        "p99_ms": round(samples[int(len(samples) * 0.99) - 1], 3)})
    return summary


def first_write(client: redis.Redis, key: str, since: float, limit_s: float) -> float | None:
    """Seconds from `since` until a SET through `client` succeeds (None: not within `limit_s`)."""
    while time.monotonic() - since < limit_s:
        try:
            client.set(key, repr(time.time()))
            return time.monotonic() - since
        except redis.RedisError:
            time.sleep(0.05)
    return None


def first_api_write(api_url: str, since: float, limit_s: float) -> float | None:
    """Seconds from `since` until the API creates a practice table (a write through its own clients)."""
    body = {"game": "spot-hearts", "seats": ["open", "random", "random", "random"], "options": {"target": 1}}
    with httpx.Client(base_url=api_url, timeout=5) as http:
        while time.monotonic() - since < limit_s:
            try:
                if http.post("/api/tables", json=body).status_code == 201:
                    return time.monotonic() - since
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    return None


def settle(stack: Stack, before: float, limit_s: float) -> float | None:
    """With the scheduler still running: seconds until every match created before `before` (wall clock)
    has ended (rated, void or aborted), None if one has not within `limit_s`."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        docs = rating_audit(stack.redis(), stack.prefix)["docs"]
        if all(d["status"] in FINAL for d in docs.values() if d.get("created", 0) < before):
            return time.monotonic() - started
        time.sleep(1)
    return None


def unreplicated_writes(stack: Stack) -> float:
    """``trickarena_redis_writes_unreplicated_total`` over the stack's processes (their metrics files), moves
    and ratings together."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(stack.metrics_dir))
    name = "trickarena_redis_writes_unreplicated_total"
    return sum(registry.get_sample_value(name, {"write": write}) or 0.0 for write in REDIS_WRITES)


def rated(conn: redis.Redis, prefix: str) -> dict[str, Any]:
    return {m: d["result"] for m, d in rating_audit(conn, prefix)["docs"].items() if d["status"] == "rated"}


def redis_failover(seconds: float, clients: int, bots: int, wait_ms: int = WAIT_MS,
                   commit_rounds: int = COMMIT_ROUNDS, down_after_ms: int = DOWN_AFTER_MS,
                   arena_workers: int = 2) -> dict[str, Any]:
    began = time.monotonic()
    timeline: dict[str, float] = {}  # seconds from the start to the end of each step
    stack = Stack()
    cluster = SentinelCluster(stack.workdir / "cluster", down_after_ms=down_after_ms)
    stack.sentinels, stack.sentinel_service = cluster.sentinels, cluster.service
    try:
        cluster.launch(lambda name, command: stack._add(name, command, stack.env()))
        timeline["cluster_ready"] = time.monotonic() - began
        probe = cluster.client(decode_responses=True, socket_timeout=1.0)
        costs = commit_costs(probe, stack.prefix, wait_ms or WAIT_MS, commit_rounds)
        stack.settings.update(TA_REDIS_WAIT_MS=str(wait_ms), TA_ARENA_MIN_LEASE_S=str(MIN_LEASE_S))
        stack.start_api()
        timeline["api_up"] = time.monotonic() - began
        stack.start_house_workers(1)
        bot_ids = register_bots(stack.api_url, stack.start_fast_bots(bots), list(engine.GAMES))
        stack.start_arena(arena_workers)
        stop, players = start_players(stack, clients)
        timeline["stack_up"] = time.monotonic() - began
        time.sleep(seconds)
        old_primary = cluster.primary_port()
        finished_before = finished_count(players)
        before = rated(stack.redis(), stack.prefix)
        load1 = [loadavg()[0]]
        fault_at, fault_wall = time.monotonic(), time.time()
        stack.children[cluster.node_name(0)].kill()
        # Read after the kill: a WAIT still running on the dead primary fails its write, which is not counted.
        unreplicated = unreplicated_writes(stack)
        store_back = first_write(probe, f"{stack.prefix}failover:probe", fault_at, 60)
        api_back = first_api_write(stack.api_url, fault_at, 60)
        new_primary = cluster.primary_port()
        # The old primary comes back and the sentinels make it the new primary's replica (a WAIT has a
        # replica to wait for again).
        stack._add(cluster.node_name(0), cluster.node_command(0), stack.env())
        play_on_after_fault(players, finished_before, fault_at, seconds)
        load1.append(loadavg()[0])
        stragglers = stop_players(stop, players)
        timeline["players_stopped"] = time.monotonic() - began
        settle_s = settle(stack, fault_wall, SETTLE_S)
        timeline["settled"] = time.monotonic() - began
        crashed = stack.crashed()
        drain_and_stop(stack, 180)
        timeline["drained"] = time.monotonic() - began
        conn = stack.redis()
        audit = rating_audit(conn, stack.prefix)
        docs = audit.pop("docs")
        lost_ratings = [m for m, result in before.items()
                        if docs.get(m, {}).get("status") != "rated" or docs[m].get("result") != result]
        stuck = {m: d["status"] for m, d in docs.items() if d["status"] not in FINAL}
        tables = audit_player_tables(stack, players)
        timeline["audited"] = time.monotonic() - began
        client_errors = [e for p in players for e in p.errors]
        rejoined = redis_client(cluster.node_url(0), decode_responses=True).info("replication").get("role")
        result = {
            "command": f"python -m loadtest faults redis-failover --seconds {seconds:g} --clients {clients} "
            f"--bots {bots} --wait-ms {wait_ms}"
            + ("" if commit_rounds == COMMIT_ROUNDS else f" --commit-rounds {commit_rounds}")
            + ("" if down_after_ms == DOWN_AFTER_MS else f" --down-after-ms {down_after_ms}"),
            "fault": "SIGKILL the primary redis-server (Sentinel: 1 replica, 3 sentinels)",
            "machine": {"cpus": os.cpu_count(), "loadavg_1m_max": max(load1),
                        "note": "Redis, sentinels, API, workers, bots and clients all on this machine"},
            "down_after_ms": cluster.down_after_ms,
            "failover_timeout_ms": FAILOVER_TIMEOUT_MS,
            "wait_ms": wait_ms,
            "primary_port_before": old_primary,
            "primary_port_after": new_primary,
            "old_primary_rejoined_as": rejoined,
            "writes_accepted_after_s": round(store_back, 2) if store_back is not None else None,
            "api_writes_accepted_after_s": round(api_back, 2) if api_back is not None else None,
            "goal_writes_accepted_within_s": GOAL_WRITES_BACK_S,
            "acknowledged_moves_lost": len(tables["lost_or_doubled"]),
            "unreplicated_writes_before_fault": unreplicated,
            "rated_before_fault": len(before),
            "ratings_lost": len(lost_ratings),
            "ratings_lost_ids": lost_ratings[:10],
            "rating_problems": audit["problems"][:20],
            "matches": audit["matches"],
            "stuck": stuck,
            "processes_died": crashed,
            "matches_of_the_fault_ended_after_s": round(settle_s, 1) if settle_s is not None else None,
            "move_commit_cost": costs,
            "timeline_s": {step: round(at, 1) for step, at in timeline.items()},
            "client_tables_finished_before_fault": finished_before,
            "client_tables_finished_after_fault": finished_count(players) - finished_before,
            "client_errors": client_errors[:5],
            "clients_still_running": stragglers,
            "registered_bots": len(bot_ids),
            **tables,
            "workdir": str(stack.workdir),
        }
        checks = {
            "writes_back_in_time": store_back is not None and store_back < GOAL_WRITES_BACK_S,
            "api_writes_back_in_time": api_back is not None and api_back < GOAL_WRITES_BACK_S,
            "a_new_primary": new_primary is not None and new_primary != old_primary,
            # A write answered without a replica's acknowledgement is counted; only those may be lost.
            "no_rating_lost": not lost_ratings or unreplicated > 0,
            "ratings_audit_clean": not audit["problems"],
            "no_match_stuck": not stuck,
            "no_process_died": not crashed,
            "no_client_error": not client_errors,
            "players_came_through": players_came_through(result, unreplicated > 0),
        }
        result["failed_checks"] = [name for name, ok in checks.items() if not ok]
        result["passed"] = not result["failed_checks"]
        return result
    finally:
        stack.stop()

"""`python -m loadtest faults SCENARIO`: fault drills on the full stack, under load, checked afterwards:
``redis-restart``, ``api-restart`` and ``bad-bots`` here; ``redis-full`` and ``redis-disk-full`` in
loadtest/storage.py, ``redis-failover`` in loadtest/failover.py, ``griefing`` in loadtest/griefing.py.

Design: docs/reliability.md#faults
"""

from __future__ import annotations

import time
from typing import Any

import engine
from devstack.stack import Stack
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


def redis_restart(seconds: float, hard: bool, down_s: float, clients: int, bots: int) -> dict[str, Any]:
    stack = Stack()
    try:
        stack.start_redis()
        stack.start_api()
        stack.start_house_workers(1)
        bot_ids = register_bots(stack.api_url, stack.start_fast_bots(bots), list(engine.GAMES))
        stack.start_arena(2)
        stop, players = start_players(stack, clients)
        time.sleep(seconds)
        conn = stack.redis()
        before = {m: d for m, d in rating_audit(conn, stack.prefix)["docs"].items() if d["status"] == "rated"}
        finished_before = finished_count(players)
        time.sleep(1.5)  # everything in `before` is older than one AOF fsync period
        fault_at = time.monotonic()
        stack.stop_redis(hard)
        time.sleep(down_s)
        stack.start_redis()
        first_ok = None
        while first_ok is None and time.monotonic() - fault_at < 120:
            rated_now = rating_audit(stack.redis(), stack.prefix)["matches"].get("rated", 0)
            if rated_now > len(before):
                first_ok = time.monotonic() - fault_at
            time.sleep(0.5)
        play_on_after_fault(players, finished_before, fault_at, seconds)
        stragglers = stop_players(stop, players)
        crashed = stack.crashed()
        drain_and_stop(stack, 180)
        conn = stack.redis()
        audit = rating_audit(conn, stack.prefix)
        docs = audit.pop("docs")
        changed = [m for m, d in before.items() if docs.get(m, {}).get("result") != d["result"]]
        stuck = {m: d["status"] for m, d in docs.items() if d["status"] not in ("rated", "void", "aborted")}
        tables = audit_player_tables(stack, players)
        client_errors = [e for p in players for e in p.errors]
        result = {
            "command": f"python -m loadtest faults redis-restart --seconds {seconds:g} "
            f"--down-seconds {down_s:g} "
            f"--clients {clients} --bots {bots}" + (" --hard" if hard else ""),
            "fault": "SIGKILL redis-server" if hard else "SHUTDOWN redis-server",
            "down_s": down_s,
            "rated_before_fault": len(before),
            "rated_before_still_rated_unchanged": len(before) - len(changed),
            "first_new_rating_after_fault_s": round(first_ok, 1) if first_ok is not None else None,
            "client_tables_finished_before_fault": finished_before,
            "client_tables_finished_after_fault": finished_count(players) - finished_before,
            "client_errors_seen_and_retried_past": len(client_errors),
            "client_errors": client_errors[:5],
            "clients_still_running": stragglers,
            "processes_died": crashed,
            "matches": audit["matches"],
            "rating_problems": audit["problems"][:20],
            "stuck": stuck,
            "registered_bots": len(bot_ids),
            **tables,
            "workdir": str(stack.workdir),
        }
        result["passed"] = (
            not changed
            and not client_errors
            and first_ok is not None
            and not audit["problems"]
            and not stuck
            and not crashed
            and players_came_through(result)
        )
        return result
    finally:
        stack.stop()


def api_restart(seconds: float, hard: bool, down_s: float, clients: int) -> dict[str, Any]:
    stack = Stack()
    try:
        stack.start_redis()
        stack.start_api()
        stack.start_house_workers(2)
        stop, players = start_players(stack, clients)
        time.sleep(seconds)
        finished_before = finished_count(players)
        fault_at = time.monotonic()
        if hard:
            stack.children["api"].kill()
        else:
            stack.children["api"].stop()  # SIGTERM: gunicorn drains for graceful_timeout, then exits
        stopped_s = time.monotonic() - fault_at
        time.sleep(down_s)
        stack.start_api()
        back_s = time.monotonic() - fault_at
        time.sleep(seconds)
        stragglers = stop_players(stop, players)
        crashed = stack.crashed()
        for name in list(stack.children):
            if name != "redis":
                stack.children[name].stop()
        tables = audit_player_tables(stack, players)
        client_errors = [e for p in players for e in p.errors]
        result = {
            "command": f"python -m loadtest faults api-restart --seconds {seconds:g} "
            f"--down-seconds {down_s:g} "
            f"--clients {clients}" + (" --hard" if hard else ""),
            "fault": "SIGKILL gunicorn master and workers" if hard else "SIGTERM gunicorn (graceful)",
            "api_stopped_after_s": round(stopped_s, 1),
            "api_back_after_s": round(back_s, 1),
            "client_tables_finished_before_fault": finished_before,
            "client_tables_finished_after_fault": finished_count(players) - finished_before,
            "client_errors": client_errors[:5],
            "clients_still_running": stragglers,
            "processes_died": crashed,
            **tables,
            "workdir": str(stack.workdir),
        }
        result["passed"] = (
            not client_errors
            and not crashed
            and players_came_through(result)
        )
        return result
    finally:
        stack.stop()


BAD_BEHAVIOURS = (
    "sleep",
    "dribble",
    "huge",
    "status500",
    "garbage",
    "illegal",
    "wrongcard",
    "redirect",
    "flaky",
    "down_info",
)
# The strike reason each misbehaviour must earn (arena.botclient Outcome values); flaky/down_info vary.
EXPECTED_REASONS = {
    "sleep": {"timeout"},
    "dribble": {"timeout"},
    "huge": {"too_large"},
    "status500": {"http_status"},
    "garbage": {"bad_json"},
    "illegal": {"illegal_move"},
    "wrongcard": {"illegal_move"},
    "redirect": {"http_status"},
}


def bad_bots(seconds: float, bots: int) -> dict[str, Any]:
    """Misbehaving bots (arena.botserver, one process each) registered next to good fast bots, end to end:
    real scheduler, real RQ workers. Every match must complete and be rated once, each bad bot must collect
    strikes of its kind (and forfeit), no worker may die, and the health checks must pause `down_info`."""

    from arena.botserver import serve_bot_command
    from devstack.devredis import free_port

    stack = Stack()
    try:
        stack.start_redis()
        stack.start_api()
        good_ids = register_bots(stack.api_url, stack.start_fast_bots(bots), list(engine.GAMES))
        bad_ports = {}
        for behaviour in BAD_BEHAVIOURS:
            port = free_port()
            stack._add(f"bot-{behaviour}", serve_bot_command(port, behaviour, name=behaviour), stack.env())
            bad_ports[behaviour] = port
        time.sleep(2)
        import httpx

        bad_ids = {}
        with httpx.Client(base_url=stack.api_url, timeout=10) as http:
            for behaviour, port in bad_ports.items():
                answer = http.post(
                    "/api/bots",
                    json={
                        "name": f"bad-{behaviour}",
                        "games": list(engine.GAMES),
                        "url": f"http://127.0.0.1:{port}/",
                    },
                )
                answer.raise_for_status()
                bad_ids[answer.json()["bot_id"]] = behaviour
        stack.start_arena(2, tick_s=1.0, health_every_s=5.0)  # pauses show within the run
        time.sleep(seconds)
        crashed = stack.crashed()
        drain_and_stop(stack, 240)
        conn = stack.redis()
        audit = rating_audit(conn, stack.prefix)
        docs = audit.pop("docs")
        stuck = {m: d["status"] for m, d in docs.items() if d["status"] not in ("rated", "void", "aborted")}
        per_bad: dict[str, dict[str, Any]] = {
            b: {"matches": 0, "forfeits": 0, "strikes": {}} for b in BAD_BEHAVIOURS
        }
        for doc in docs.values():
            if doc["status"] != "rated":
                continue
            result = doc["result"]
            entrants = {e["bot_id"] for e in doc["spec"]["entrants"]}
            for bot_id, behaviour in bad_ids.items():
                if bot_id in entrants:
                    per_bad[behaviour]["matches"] += 1
                    per_bad[behaviour]["forfeits"] += int(bot_id in result.get("forfeited", []))
            for strike in result.get("strikes", []):
                behaviour = bad_ids.get(strike["bot_id"])
                if behaviour is not None:
                    reasons = per_bad[behaviour]["strikes"]
                    reasons[strike["reason"]] = reasons.get(strike["reason"], 0) + 1
        good_struck = sum(
            1
            for d in docs.values()
            if d["status"] == "rated"
            for s in d["result"].get("strikes", [])
            if s["bot_id"] in good_ids
        )
        wrong_reasons = {
            b: r["strikes"]
            for b, r in per_bad.items()
            if b in EXPECTED_REASONS and r["matches"] and set(r["strikes"]) - EXPECTED_REASONS[b]
        }
        not_forfeited = [
            b for b, r in per_bad.items() if b in EXPECTED_REASONS and r["forfeits"] < r["matches"]
        ]
        health = {
            behaviour: conn.hgetall(f"{stack.prefix}arena:health:{bot_id}")
            for bot_id, behaviour in bad_ids.items()
        }
        result = {
            "command": f"python -m loadtest faults bad-bots --seconds {seconds:g} --bots {bots}",
            "matches": audit["matches"],
            "rating_problems": audit["problems"][:20],
            "stuck": stuck,
            "processes_died": crashed,
            "bad_bots": per_bad,
            "strikes_on_good_bots": good_struck,
            "wrong_strike_reasons": wrong_reasons,
            "bad_bots_not_forfeited_every_match": not_forfeited,
            "down_info_paused": health["down_info"].get("paused") == "1",
            "health": {
                b: {k: h.get(k) for k in ("failures", "paused", "last_error")} for b, h in health.items()
            },
            "log_tracebacks": stack.log_errors(),
            "workdir": str(stack.workdir),
        }
        result["passed"] = (
            not audit["problems"]
            and not stuck
            and not crashed
            and not wrong_reasons
            and not not_forfeited
            and good_struck == 0
            and result["down_info_paused"]
            and all(per_bad[b]["matches"] for b in EXPECTED_REASONS)
        )
        return result
    finally:
        stack.stop()


def run(scenario: str, seconds: float, hard: bool, down_s: float, clients: int, bots: int,
        griefers: int = 40, full_s: float = 20, wait_ms: int | None = None,
        commit_rounds: int | None = None, down_after_ms: int | None = None) -> dict[str, Any]:
    if scenario == "griefing":
        from loadtest.griefing import griefing

        return griefing(seconds, griefers)
    if scenario == "redis-restart":
        return redis_restart(seconds, hard, down_s, clients, bots)
    if scenario == "redis-failover":
        from devstack.sentinel import DOWN_AFTER_MS
        from loadtest.failover import COMMIT_ROUNDS, WAIT_MS, redis_failover

        return redis_failover(seconds, clients, bots, WAIT_MS if wait_ms is None else wait_ms,
                              COMMIT_ROUNDS if commit_rounds is None else commit_rounds,
                              DOWN_AFTER_MS if down_after_ms is None else down_after_ms)
    if scenario == "bad-bots":
        return bad_bots(seconds, bots)
    if scenario in ("redis-full", "redis-disk-full"):
        from loadtest.storage import storage_full

        return storage_full("memory" if scenario == "redis-full" else "disk", seconds, full_s, clients, bots)
    return api_restart(seconds, hard, down_s, clients)

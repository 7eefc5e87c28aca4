"""`python -m loadtest ladder`: N fast local HTTP bots registered through the API join the arena's ladders;
at the end no match is stuck, every rated match is rated exactly once, and every process is alive.

Design: docs/reliability.md#soak-a-ladder-of-40-bots
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx

import engine
from core import keys
from core.arena.store.matches import RECENT_LIMIT
from devstack.stack import Stack, loadavg
from devstack.verify import rating_audit
from loadtest.stats import percentile


def register_bots(api_url: str, ports: list[int], games: list[str]) -> list[str]:
    bot_ids = []
    with httpx.Client(base_url=api_url, timeout=10) as http:
        for index, port in enumerate(ports):
            answer = http.post(
                "/api/bots",
                json={"name": f"load-bot-{index:03d}", "games": games, "url": f"http://127.0.0.1:{port}/"},
            )
            answer.raise_for_status()
            bot_ids.append(answer.json()["bot_id"])
    return bot_ids


def active_count(conn: Any, prefix: str) -> int:
    return sum(
        conn.scard(keys.arena_active(prefix, ladder)) for ladder in conn.smembers(keys.arena_ladders(prefix))
    )



def drain_and_stop(stack: Stack, limit_s: float, drained_hook: Callable[[], None] | None = None) -> float:
    """Stop the scheduler, give enqueued matches up to `limit_s` to finish, then stop every process but Redis.

    `drained_hook` runs once the matches are done, before the processes stop (e.g. to stop the bots that
    play from outside the stack, which must keep playing until their last match ends). Returns how long the
    drain took.
    """
    stack.children["arena-scheduler"].stop()  # no new matches; the enqueued ones must still finish
    started = time.monotonic()
    while active_count(stack.redis(), stack.prefix) and time.monotonic() - started < limit_s:
        time.sleep(1)
    drained = time.monotonic() - started
    if drained_hook is not None:
        drained_hook()
    for name in list(stack.children):
        if not name.startswith(("redis", "sentinel")):  # the store (and its sentinels) stays for the audit
            stack.children[name].stop()
    return drained

def match_timings(docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    spans = sorted(
        d["finished"] - d["created"]
        for d in docs.values()
        if d["status"] == "rated" and d.get("finished") and d.get("created")
    )
    return {
        "matches": len(spans),
        "p50_s": round(percentile(spans, 0.5), 2),
        "p99_s": round(percentile(spans, 0.99), 2),
        "max_s": round(spans[-1], 2) if spans else None,
    }


def audit(stack: Stack, bot_ids: list[str]) -> dict[str, Any]:
    conn = stack.redis()
    report = rating_audit(conn, stack.prefix)
    docs = report.pop("docs")
    unfinished = {m: d["status"] for m, d in docs.items() if d["status"] not in ("rated", "void", "aborted")}
    played = Counter(
        e["bot_id"] for d in docs.values() if d["status"] == "rated" for e in d["spec"]["entrants"]
    )
    strikes = sum(len(d["result"].get("strikes", [])) for d in docs.values() if d["status"] == "rated")
    aborted = {m: d.get("aborted_because") for m, d in docs.items() if d["status"] == "aborted"}
    return {
        **report,
        "stuck": unfinished,
        "aborted_reasons": aborted,
        "registered_bots_that_played": sum(1 for b in bot_ids if played[b]),
        "strikes": strikes,
        "match_created_to_rated": match_timings(docs),
        "rated_per_ladder": dict(Counter(d["ladder_id"] for d in docs.values() if d["status"] == "rated")),
    }


def run(bots: int, seconds: float, arena_workers: int, drain_seconds: float) -> dict[str, Any]:
    stack = Stack(api_workers=1)
    try:
        stack.start_redis()
        stack.start_api()
        ports = stack.start_fast_bots(bots)
        bot_ids = register_bots(stack.api_url, ports, list(engine.GAMES))
        # The audit reads every match document: keep them all (the default keeps a ladder's last 300 only,
        # and a soak plays more than that per ladder).
        stack.start_arena(arena_workers, keep_matches=RECENT_LIMIT)
        conn = stack.redis()
        started = time.monotonic()
        cpu_before = stack.cpu_by_component()
        samples = []
        while time.monotonic() - started < seconds:
            time.sleep(10)
            rated = sum(
                1 for _ in conn.scan_iter(match=keys.arena_match_applied(stack.prefix, "*"), count=1000)
            )
            samples.append(
                {
                    "t": round(time.monotonic() - started),
                    "applied": rated,
                    "active": active_count(conn, stack.prefix),
                    "load1": loadavg()[0],
                }
            )
        cpu_after = stack.cpu_by_component()
        crashed_during_run = stack.crashed()
        drained_s = drain_and_stop(stack, drain_seconds)
        report = audit(stack, bot_ids)
        tracebacks = stack.log_errors()
        return {
            "command": f"python -m loadtest ladder --bots {bots} --seconds {seconds:g} "
            f"--arena-workers {arena_workers} --drain-seconds {drain_seconds:g}",
            "machine": {
                "loadavg_1m_max": max((s["load1"] for s in samples), default=0.0),
                "note": "bots, API, Redis and workers all on this machine",
            },
            "setup": {
                "registered_http_bots": bots,
                "house_bots_per_ladder": 6,
                "ladders": sorted(conn.smembers(keys.arena_ladders(stack.prefix))),
                "arena_workers": arena_workers,
                "bot_server": "devstack.fastbot (process per connection, first legal move)",
            },
            "duration_s": seconds,
            "drain_s": round(drained_s, 1),
            "samples": samples[:: max(1, len(samples) // 12)],
            "processes_crashed_during_run": crashed_during_run,
            "log_tracebacks": tracebacks,
            "cpu_seconds": {k: round(cpu_after.get(k, 0) - cpu_before.get(k, 0), 1) for k in cpu_after},
            **report,
            "workdir": str(stack.workdir),
            "passed": (
                not report["problems"]
                and not report["stuck"]
                and not crashed_during_run
                and report["matches"].get("rated", 0) > 0
                and not any(tracebacks.values())
            ),
        }
    finally:
        stack.stop()

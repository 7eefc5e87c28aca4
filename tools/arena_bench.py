"""`python -m tools.arena_bench`: how fast does a worker drive HTTP bots, next to the bare HTTP floor?

A bare keep-alive loop, one worker in-process, 1 and 2 RQ workers (and the same with house bots), and the
workers of `make run` against bots 0, 20 and 100 ms away; prints JSON.
Design: docs/arena.md#worker-speed--python--m-toolsarena_bench
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import click
import redis

import engine
from engine import compiled

# In process, the match runner plays with the compiled rules when built, as `python -m arena worker` does
# (engine/compiled.py): put in place before the arena's modules import them.
compiled.activate()

from arena.botclient import BotClient  # noqa: E402
from arena.match import MatchRunner, make_drivers  # noqa: E402
from arena.workers import START_WORKERS  # noqa: E402
from core import keys  # noqa: E402
from core.arena.model import (  # noqa: E402
    PROTOCOL_VERSION,
    LadderConfig,
    MatchSpec,
    MatchStatus,
    Member,
    MemberKind,
)
from core.settings import Settings  # noqa: E402
from devstack import devserve  # noqa: E402
from devstack.fastbot import start_fast_bots  # noqa: E402
from devstack.procstat import cpu_seconds, tree_cpu_seconds  # noqa: E402
from tools.arena_pace import field_tables, steady_run, uniform_tables  # noqa: E402

DELAYS_MS = (0, 20, 100, 300)
# Shorter games than the 1-vs-2 runs (Spot Hearts to 100, about 170 decisions): with 100 ms bots a match
# lasts about 20 s.
SLOW_BOT_OPTIONS = {"target": 100}
SLOW_BOT_LOOPS = 2  # event-loop processes serving the 4 slow bots (devstack.fastbot.DelayLoop)
# The slow-bot runs give every decision a ladder's default deadline: bots that answer well within it must
# never get a strike, however busy the workers are.
SLOW_BOT_DEADLINE_MS = LadderConfig("bench", "spot-hearts", 4).deadline_ms
WINDOW_S = 20.0  # the slow-bot runs' measured window, after the ramp-up
# Queued per delay: more than any run takes, so the queue never runs dry (bots 300 ms away: about 2,000 in
# flight at once, each a minute long).
SLOW_MATCHES = 8000
# The mixed field: near bots, and a few far away, answering too late, or not there at all.
MIXED_NEAR, MIXED_NEAR_MS, MIXED_BAD = 28, 20, 2
MIXED_FAR_MS, MIXED_TIMEOUT_MS = 900, 5000
# Queued per run, as many as SLOW_MATCHES: with the bad bots (struck, then forfeiting) the tables play faster
# than before and 3,000 matches ran dry during the window.
MIXED_MATCHES = SLOW_MATCHES

REPO_ROOT = Path(__file__).resolve().parent.parent
# Generous: the bench measures throughput, and a loaded machine must not turn a slow answer into a strike.
BENCH_DEADLINE_S = 5.0


def captured_payloads(seed: int = 1) -> list[dict[str, Any]]:
    """Every /move payload of one Spot Hearts game, exactly as the match runner would send them."""
    game = engine.new_game("spot-hearts", 4, {}, seed=seed)
    payloads = []
    while not game.over:
        for seat in game.to_act():
            view = game.view(seat)
            payloads.append({"protocol": PROTOCOL_VERSION, "game": "spot-hearts", "table": "bench",
                             "match": "bench", "seat": seat, "decision": view["decision"],
                             "deadline_ms": 1000, "view": view, "legal": view["decision"]["legal"]})
            game.apply(seat, view["decision"]["legal"][:3] if view["decision"]["kind"] == "pass"
                       else view["decision"]["legal"][0])
    return payloads


def bare_loop(urls: list[str], payloads: list[dict[str, Any]], seconds: float) -> dict[str, float]:
    clients = [BotClient(url, allow_private=True) for url in urls]
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for payload in payloads:
            result = clients[payload["seat"]].call("POST", "move", payload, BENCH_DEADLINE_S)
            if not result.ok:
                raise RuntimeError(f"bench bot failed: {result}")
            json.loads(result.body)
            calls += 1
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": round(calls / elapsed, 1), "calls": calls}


def bench_spec(urls: list[str], seed: int, match_id: str = "bench",
               options: dict[str, Any] | None = None,
               deadline_ms: int = int(BENCH_DEADLINE_S * 1000)) -> MatchSpec:
    entrants = [Member(f"bot{i}", MemberKind.HTTP, url=url) for i, url in enumerate(urls)]
    return MatchSpec(match_id=match_id, ladder_id="bench", game="spot-hearts", players=4,
                     options=options or {},
                     seed=seed, duplicate=False, entrants=entrants,
                     deadline_ms=deadline_ms, strike_limit=5,
                     pre_ratings={m.bot_id: 1500.0 for m in entrants},
                     pre_matches={m.bot_id: 0 for m in entrants})


def one_worker(urls: list[str], games: int) -> dict[str, Any]:
    clients: dict[str, BotClient] = {}
    walls, decisions = [], 0
    for seed in range(games):
        spec = bench_spec(urls, seed)
        start = time.perf_counter()
        result = MatchRunner(spec, make_drivers(spec, True, clients)).run()
        walls.append(time.perf_counter() - start)
        if result.strikes:
            raise RuntimeError(f"bench bots got strikes: {result.strikes[:3]}")
        decisions += result.games[0]["moves"]
    return {"games": games, "decisions": decisions, "decisions_per_s": round(decisions / sum(walls), 1),
            "game_wall_ms_mean": round(statistics.fmean(walls) * 1000, 1),
            "game_wall_ms_min": round(min(walls) * 1000, 1), "decisions_per_game": decisions // games}


def _wait_for_workers(conn: redis.Redis, queue_name: str, count: int, timeout_s: float = 60.0) -> None:
    from rq import Worker

    deadline = time.monotonic() + timeout_s
    while sum(queue_name in w.queue_names() for w in Worker.all(connection=conn)) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} RQ workers did not register within {timeout_s} s")
        time.sleep(0.05)


def _wait_until_done(queue: Any, jobs: int, timeout_s: float = 900.0,
                     sample: Callable[[], None] | None = None) -> None:
    """Until `jobs` jobs have finished or failed for good (two ZCARDs per look: no load on the run).

    Not "queue and started registry empty": a job just popped from the queue is in neither for a moment.
    `sample` is called on every look (every 20 ms).
    """
    deadline = time.monotonic() + timeout_s
    while queue.finished_job_registry.count + queue.failed_job_registry.count < jobs:
        if time.monotonic() > deadline:
            raise RuntimeError("bench matches did not finish in time")
        if sample is not None:
            sample()
        time.sleep(0.02)


def _in_flight_fields(docs: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    flight = in_flight([(d["started"], d["finished"]) for d in docs])
    return {"in_flight_mean": round(flight["mean"], 1), "in_flight_max": flight["max"],
            "in_flight_per_worker_mean": round(flight["mean"] / workers, 1)}


def tree_rss_bytes(pids: list[int]) -> dict[int, int]:
    """Resident memory of each process and all its descendants (0 once gone), from one look at /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    totals = {}
    for pid in pids:
        total, todo = 0, [pid]
        while todo:
            current = todo.pop()
            try:
                status = Path(f"/proc/{current}/status").read_text()
            except OSError:
                continue
            total += next((int(line.split()[1]) * 1024 for line in status.splitlines()
                           if line.startswith("VmRSS:")), 0)
            todo.extend(children.get(current, []))
        totals[pid] = total
    return totals


def in_flight(spans: list[tuple[float, float]]) -> dict[str, float]:
    """Matches in flight from each match's (started, finished): the mean over the time any ran (total match
    time / busy time) and the most at once. Exact, where a sampler would miss short matches.

    >>> in_flight([(0.0, 2.0), (1.0, 3.0), (2.0, 4.0)])
    {'mean': 1.5, 'max': 2}
    """
    if not spans:
        return {"mean": 0.0, "max": 0}
    busy = max(end for _, end in spans) - min(start for start, _ in spans)
    # Ends sort before starts at the same instant: a match that ends as another starts is not beside it.
    events = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    running = most = 0
    for _, step in events:
        running += step
        most = max(most, running)
    total = sum(end - start for start, end in spans)
    return {"mean": round(total / busy, 2) if busy > 0 else float(len(spans)), "max": most}


class RssSampler:
    """Each worker process tree's peak RSS, from a look at /proc once a second."""

    def __init__(self, pids: list[int], every_s: float = 1.0) -> None:
        self.pids, self.every_s = pids, every_s
        self.rss_peak = dict.fromkeys(pids, 0)
        self._next = 0.0

    def __call__(self) -> None:
        if time.monotonic() < self._next:
            return
        self._next = time.monotonic() + self.every_s
        for pid, rss in tree_rss_bytes(self.pids).items():
            self.rss_peak[pid] = max(self.rss_peak[pid], rss)

    def report(self) -> dict[str, Any]:
        """Peak RSS of each worker process tree, and their sum."""
        return {"rss_mib_per_worker": sorted(round(b / 2**20, 1) for b in self.rss_peak.values()),
                "rss_mib_total": round(sum(self.rss_peak.values()) / 2**20, 1)}


def worker_command(max_in_flight: int | None) -> list[str]:
    """What the Procfile's `arena:` line runs (None: the default), or the one-match worker (1)."""
    command = [sys.executable, "-m", "arena", "worker"]
    if max_in_flight is not None:
        command += ["--max-in-flight", str(max_in_flight)]
    return command + (["--simple"] if max_in_flight == 1 else [])


def rq_workers(urls: list[str] | None, workers: int, matches: int, bot_pid: int | None = None,
               threads: int | None = 1, options: dict[str, Any] | None = None,
               deadline_ms: int = int(BENCH_DEADLINE_S * 1000),
               alongside: Callable[[str, str], AbstractContextManager[Any]] | None = None) -> dict[str, Any]:
    """`matches` Spot Hearts matches as RQ jobs, drained by `workers` real worker processes.

    With `urls` the 4 seats are the HTTP bots; with None they are house bots (no HTTP, no bot process): the
    worker's own scaling. Each process is ``python -m arena worker`` with `threads` matches in flight (None:
    the arena's default). The workers are started and registered *before* the matches are enqueued, so their
    start-up (imports, Redis handshake) is neither in the measured interval nor in the CPU figures: throughput
    is decisions over first match start .. last match finish, and CPU is read from /proc across that drain.
    ``alongside(redis_url, prefix)``: a context entered once the workers are ready and left after the drain
    (other load on the same Redis and cores, e.g. busy analysis workers: ``tools.analysis_contention``).
    """
    from rq import Queue

    from core.arena.store import ArenaStore
    from core.queues import enqueue_match
    from devstack.devredis import start_throwaway

    server = start_throwaway()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        conn = redis.Redis.from_url(server.url)
        prefix = "bench:"
        store = ArenaStore(conn, prefix)
        ladder = LadderConfig("bench", "spot-hearts", 4, house_bots=())
        store.save_ladder(ladder)
        queue = Queue(keys.arena_queue(prefix), connection=conn)
        house = [Member.house(n) for n in ("heuristic", "eps-0.3", "eps-0.6", "random")]
        specs = []
        for seed in range(matches):
            spec = bench_spec(urls or [], seed, f"bench{seed}", options, deadline_ms)
            if urls is None:
                spec.entrants = house
                spec.pre_ratings = {m.bot_id: 1500.0 for m in house}
                spec.pre_matches = {m.bot_id: 0 for m in house}
            specs.append(spec)
            store.create_match(spec)
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": prefix, "ALLOW_PRIVATE_BOT_URLS": "1",
               "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_ARENA_MAX_IN_FLIGHT", None)  # the default is what is measured
        procs = [subprocess.Popen(worker_command(threads), env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(workers)]
        _wait_for_workers(conn, queue.name, workers * (1 if threads == 1 else START_WORKERS))
        time.sleep(0.2)  # let the workers settle into their blocking dequeue
        sampler = RssSampler([p.pid for p in procs])
        worker_cpu_before = sum(cpu_seconds(p.pid) for p in procs)
        bot_cpu_before = tree_cpu_seconds([bot_pid]) if bot_pid else 0.0
        with alongside(server.url, prefix) if alongside else contextlib.nullcontext():
            for spec in specs:
                enqueue_match(queue, spec, ladder, prefix)
            _wait_until_done(queue, len(specs), sample=sampler)
        worker_cpu = sum(cpu_seconds(p.pid) for p in procs) - worker_cpu_before
        bot_cpu = (tree_cpu_seconds([bot_pid]) - bot_cpu_before) if bot_pid else 0.0
        docs = [store.match(spec.match_id) for spec in specs]
        rated = [d for d in docs if d and d["status"] == MatchStatus.RATED]
        strikes = Counter(s["reason"] for d in rated for s in d["result"]["strikes"])
        decisions = sum(g["moves"] for d in rated for g in d["result"]["games"])
        busy = max(d["finished"] for d in rated) - min(d["started"] for d in rated)
        ceiling = threads or Settings.from_env().max_in_flight
        return {"workers": workers, "max_in_flight_per_worker": ceiling, "bots": "http" if urls else "house",
                "matches": matches, "rated": len(rated), "strikes": sum(strikes.values()),
                "strike_reasons": dict(strikes),
                "strike_examples": [s for d in rated for s in d["result"]["strikes"]][:5],
                "busy_s": round(busy, 2),
                "decisions": decisions, "decisions_per_s": round(decisions / busy, 1),
                "worker_cpu_us_per_decision": round(worker_cpu / decisions * 1e6, 1),
                "bot_cpu_us_per_decision": round(bot_cpu / decisions * 1e6, 1),
                **_in_flight_fields(rated, workers), **sampler.report()}
    finally:
        for proc in procs:
            devserve.stop(proc, timeout=20)
        server.stop()


def slow_bots(delays_ms: tuple[int, ...], workers: int, seconds: float, max_in_flight: int | None,
              stack: dict[int, tuple[Any, list[str]]]) -> dict[str, dict[str, Any]]:
    """One sample per delay: the default arena (`workers` processes) against bots `delay` ms away, its
    steady pace over `seconds` after the ramp-up (``tools.arena_pace``)."""
    return {f"{delay}ms": steady_run(uniform_tables(stack[delay][1], SLOW_MATCHES), workers, seconds,
                                     max_in_flight=max_in_flight, deadline_ms=SLOW_BOT_DEADLINE_MS,
                                     bot_pids=[stack[delay][0].pid])
            for delay in delays_ms}


def summarise_slow(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the runs of each delay, and each run's and the median's share of the 0 ms decisions/s."""
    delays = list(runs[0]["by_delay"])
    keys = ("decisions_per_s", "in_flight_per_process", "worker_cpu_us_per_decision",
            "bot_cpu_us_per_decision", "kib_per_match_in_flight", "arena_ms_p99")
    median = {delay: {key: statistics.median(r["by_delay"][delay][key] or 0.0 for r in runs) for key in keys}
              for delay in delays}
    for delay in delays:
        median[delay]["rss_mib_per_process_max"] = statistics.median(
            max(r["by_delay"][delay]["rss_mib_per_process"]) for r in runs)
        median[delay]["queue_ran_dry"] = [bool(r["by_delay"][delay]["queue_ran_dry"]) for r in runs]
        median[delay]["failed_decisions"] = [sum(sum(f.values()) for f in r["by_delay"][delay]
                                                 ["failed_decisions_by_ladder"].values()) for r in runs]
    base = "0ms" if "0ms" in delays else delays[0]

    def share(rate: float, base_rate: float) -> float | None:
        return round(rate / base_rate, 3) if base_rate else None

    return {"median": median,
            "median_share_of_0ms": {d: share(median[d]["decisions_per_s"], median[base]["decisions_per_s"])
                                    for d in delays},
            "share_of_0ms_per_run": [{d: share(r["by_delay"][d]["decisions_per_s"],
                                               r["by_delay"][base]["decisions_per_s"]) for d in delays}
                                     for r in runs]}


def mixed_field(workers: int, seconds: float, max_in_flight: int | None) -> dict[str, Any]:
    """Most bots near, a few far or failing: the near bots' matches with and without the bad bots in the
    field, and every bot's strikes; then the health check the scheduler runs, three times per bad bot."""
    from devstack.devredis import free_port

    near_bots, near = start_fast_bots(MIXED_NEAR, MIXED_NEAR_MS, SLOW_BOT_LOOPS)
    far_bots, far = start_fast_bots(MIXED_BAD, MIXED_FAR_MS, 1)
    late_bots, late = start_fast_bots(MIXED_BAD, MIXED_TIMEOUT_MS, 1)
    refusing = [f"http://127.0.0.1:{free_port()}" for _ in range(MIXED_BAD)]  # nothing listens there
    try:
        field = {"near": near, "far": far, "late": late, "refusing": refusing}
        with_bad = steady_run(field_tables(field, MIXED_MATCHES, lambda group: group != "near"), workers,
                              seconds, max_in_flight=max_in_flight, deadline_ms=SLOW_BOT_DEADLINE_MS)
        without = steady_run(field_tables({"near": near}, MIXED_MATCHES, lambda group: False), workers,
                             seconds, max_in_flight=max_in_flight, deadline_ms=SLOW_BOT_DEADLINE_MS)
        health = health_paused({f"{group}{i}": url for group in ("far", "late", "refusing")
                                for i, url in enumerate(field[group])})
    finally:
        for bots in (near_bots, far_bots, late_bots):
            bots.terminate()
    pace_with = with_bad["pace_per_match_by_ladder"].get("near", 0.0)
    pace_without = without["pace_per_match_by_ladder"].get("near", 0.0)
    strikes = with_bad["strikes_by_bot"]
    return {
        "field": {"near": f"{MIXED_NEAR} bots {MIXED_NEAR_MS} ms away",
                  "far": f"{MIXED_BAD} bots {MIXED_FAR_MS} ms away",
                  "late": f"{MIXED_BAD} bots answering after {MIXED_TIMEOUT_MS} ms "
                          f"(deadline {SLOW_BOT_DEADLINE_MS} ms)",
                  "refusing": f"{MIXED_BAD} closed ports"},
        "near_pace_per_match_with_bad": pace_with, "near_pace_per_match_without_bad": pace_without,
        "near_pace_share": round(pace_with / pace_without, 3) if pace_without else None,
        "near_strikes": sum(n for bot, n in strikes.items() if bot.startswith("near")),
        "near_failed_decisions": with_bad["failed_decisions_by_ladder"].get("near", {}),
        "strikes_by_bad_bot": {bot: n for bot, n in strikes.items() if not bot.startswith("near")},
        "forfeits_by_bot": with_bad["forfeits_by_bot"], "paused_after_3_health_checks": health,
        "with_bad": with_bad, "without_bad": without,
    }


def health_paused(urls: dict[str, str]) -> dict[str, bool]:
    """Three health checks of the scheduler's (``arena.jobs.check_bot_health``) for each bot (id -> URL),
    on one throwaway Redis: is it paused?"""
    from arena.jobs import check_bot_health
    from core.arena.store import ArenaStore
    from devstack.devredis import start_throwaway

    server = start_throwaway()
    try:
        store = ArenaStore(redis.Redis.from_url(server.url, decode_responses=True), "health:")
        paused = {}
        for bot_id, url in urls.items():
            for _ in range(3):
                report = check_bot_health(store, bot_id, url, timeout_s=2.0, allow_private=True)
            paused[bot_id] = report["paused"]
        return paused
    finally:
        server.stop()


def run(seconds: float = 3.0, games: int = 10, matches: int = 48, repeat: int = 3,
        delays_ms: tuple[int, ...] = DELAYS_MS, arena_workers: int = 2, window_s: float = WINDOW_S,
        max_in_flight: int | None = None, slow_only: bool = False, mixed: bool = False) -> dict[str, Any]:
    """Each measurement `repeat` times, interleaved (so 1 and 2 workers see the same background load);
    the best of each is reported (the machine's noise only ever slows a run down), with every sample and
    the ratios of the medians. The slow-bot runs (every delay side by side, `repeat` times) report medians
    and each run with the load average it saw; `mixed` adds the mixed field (once)."""
    load_before = os.getloadavg()  # other load on the machine skews every figure: print it
    process, urls = start_fast_bots(4)
    stack = {delay: start_fast_bots(4, delay, SLOW_BOT_LOOPS) for delay in delays_ms}
    samples: dict[str, list[dict[str, Any]]] = {"bare": [], "worker": [], "rq1": [], "rq2": [],
                                                "house1": [], "house2": []}
    slow: list[dict[str, Any]] = []
    try:
        payloads = captured_payloads()
        for _ in range(repeat):
            if not slow_only:
                samples["bare"].append(bare_loop(urls, payloads, seconds))
                samples["worker"].append(one_worker(urls, games))
                samples["rq1"].append(rq_workers(urls, 1, matches, process.pid))
                samples["rq2"].append(rq_workers(urls, 2, matches, process.pid))
                # House matches are ~10x cheaper: 4x as many keep the measured interval long enough.
                samples["house1"].append(rq_workers(None, 1, 4 * matches))
                samples["house2"].append(rq_workers(None, 2, 4 * matches))
            if delays_ms:
                load = os.getloadavg()
                by_delay = slow_bots(delays_ms, arena_workers, window_s, max_in_flight, stack)
                slow.append({"loadavg_before": [round(x, 2) for x in load],
                             "loadavg_after": [round(x, 2) for x in os.getloadavg()], "by_delay": by_delay})
    finally:
        for bots in [process, *(bots for bots, _urls in stack.values())]:
            bots.terminate()
    report: dict[str, Any] = {
        "bench": "arena", "cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()], "repeat": repeat,
        "bots": "4 x devstack.fastbot (stdlib sockets, TCP_NODELAY, a forked process per connection)",
    }
    if slow:
        report["slow_bots"] = {"arena_workers": arena_workers, "window_s": window_s,
                               "game": {"game": "spot-hearts", "options": SLOW_BOT_OPTIONS},
                               "deadline_ms": SLOW_BOT_DEADLINE_MS,
                               "bots": f"4 x devstack.fastbot --delay-ms D --loops {SLOW_BOT_LOOPS}",
                               **summarise_slow(slow), "runs": slow}
    if mixed:
        report["mixed_field"] = mixed_field(arena_workers, window_s, max_in_flight)
    if slow_only:
        return report
    best = {name: max(runs, key=lambda r: r["decisions_per_s"]) for name, runs in samples.items()}
    median = {name: statistics.median(r["decisions_per_s"] for r in runs) for name, runs in samples.items()}
    return {
        **report,
        "bare_loop": best["bare"], "one_worker_in_process": best["worker"],
        "worker_vs_bare": round(best["worker"]["decisions_per_s"] / best["bare"]["decisions_per_s"], 3),
        "rq_1_worker": best["rq1"], "rq_2_workers": best["rq2"],
        "two_vs_one": round(best["rq2"]["decisions_per_s"] / best["rq1"]["decisions_per_s"], 3),
        "house_bots_rq_1_worker": best["house1"], "house_bots_rq_2_workers": best["house2"],
        "house_two_vs_one": round(best["house2"]["decisions_per_s"] / best["house1"]["decisions_per_s"], 3),
        # The same three ratios from the medians: a check that "best of" did not pick one lucky run.
        "median_ratios": {"worker_vs_bare": round(median["worker"] / median["bare"], 3),
                          "two_vs_one": round(median["rq2"] / median["rq1"], 3),
                          "house_two_vs_one": round(median["house2"] / median["house1"], 3)},
        "samples_decisions_per_s": {name: [r["decisions_per_s"] for r in runs]
                                    for name, runs in samples.items()},
    }


@click.command()
@click.option("--seconds", default=3.0, show_default=True, help="Length of the bare loop.")
@click.option("--games", default=10, show_default=True, help="Spot Hearts games for the in-process worker.")
@click.option("--matches", default=48, show_default=True, help="Matches for each RQ worker run (1 and 2).")
@click.option("--repeat", default=3, show_default=True, help="Interleaved repetitions; the best is reported.")
@click.option("--delays-ms", default=",".join(map(str, DELAYS_MS)), show_default=True,
              help="Bot delays of the slow-bot runs ('' skips them).")
@click.option("--arena-workers", default=2, show_default=True,
              help="Worker processes of the slow-bot runs (make run's ARENA_WORKERS).")
@click.option("--max-in-flight", type=click.IntRange(min=1), default=None,
              help="Matches in flight per worker process at most (default: the arena's own).")
@click.option("--window-s", default=WINDOW_S, show_default=True,
              help="Seconds measured after the ramp-up, per delay.")
@click.option("--slow-only", is_flag=True, help="Only the slow-bot runs (and --mixed).")
@click.option("--mixed", is_flag=True, help="Also the mixed field: near bots beside far and failing ones.")
def main(seconds: float, games: int, matches: int, repeat: int, delays_ms: str, arena_workers: int,
         max_in_flight: int | None, window_s: float, slow_only: bool, mixed: bool) -> None:
    """4 local HTTP bots: bare keep-alive loop vs one worker vs 1 and 2 RQ workers; the default arena against
    bots 0, 20, 100 and 300 ms away; with --mixed a field of near, far and failing bots (JSON)."""
    try:
        delays = tuple(int(d) for d in delays_ms.split(",") if d.strip())
    except ValueError:
        raise click.BadParameter(f"numbers separated by commas, not {delays_ms!r}",
                                 param_hint="--delays-ms") from None
    click.echo(json.dumps(run(seconds, games, matches, repeat, delays, arena_workers, window_s, max_in_flight,
                              slow_only, mixed)))


if __name__ == "__main__":
    main()

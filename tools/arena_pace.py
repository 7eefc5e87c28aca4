"""The arena's steady pace: real worker processes (``python -m arena worker``) kept busy by a queue that
never runs dry, measured from their own Prometheus metrics over a window after the ramp-up.

Used by ``tools.arena_bench`` (bots 0–300 ms away, a mixed field) and ``tools.growth`` (matches in flight).
Design: docs/arena.md#worker-speed--python--m-toolsarena_bench
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from arena.workers import START_WORKERS
from core import keys
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from devstack import devserve
from devstack.procstat import cpu_seconds, tree_cpu_seconds

REPO_ROOT = Path(__file__).resolve().parent.parent
GAME = "spot-hearts"
OPTIONS = {"target": 100}  # about 170 decisions a match
DEADLINE_MS = LadderConfig("bench", GAME, 4).deadline_ms  # a ladder's default: 1 s
RAMP_MAX_S = 60.0
RAMP_STEADY_S = 3.0  # the ramp is over once matches in flight grew by under 3% in this long
SAMPLE_S = 0.5


Samples = dict[str, list[tuple[dict[str, str], float]]]
Counts = dict[str, dict[str, float]]


@dataclass
class Table:
    """One match to play: its seats' bots and the ladder label its metrics carry."""

    ladder: str
    bots: list[tuple[str, str]]  # (bot id, url)


@dataclass
class Window:
    """What the worker processes' metrics said over the measured window."""

    seconds: float
    decisions: dict[str, dict[str, float]]  # ladder -> outcome -> count
    flights: list[dict[str, float]]  # samples of matches in flight by ladder (all processes)
    rss: dict[int, list[int]]  # pid -> samples
    cpu_s: float
    arena_buckets: dict[float, float] = field(default_factory=dict)  # le -> count, all ladders
    bot_cpu_s: float | None = None  # the bots' processes, when known


def metric_samples(directory: str) -> Samples:
    """Every sample the worker processes wrote to their metrics directory, by sample name."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    samples: dict[str, list[tuple[dict[str, str], float]]] = defaultdict(list)
    for family in registry.collect():
        for sample in family.samples:
            samples[sample.name].append((dict(sample.labels), sample.value))
    return samples


def decisions_by_ladder(samples: Samples) -> Counts:
    counts: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for labels, value in samples.get("trickarena_bot_decisions_total", []):
        counts[labels["ladder"]][labels["outcome"]] += value
    return {ladder: dict(outcomes) for ladder, outcomes in counts.items()}


def in_flight_by_ladder(samples: Samples) -> dict[str, float]:
    flights: dict[str, float] = defaultdict(float)
    for labels, value in samples.get("trickarena_matches_in_flight", []):
        flights[labels["ladder"]] += value
    return dict(flights)


def in_flight_now(samples: Samples) -> float:
    return sum(in_flight_by_ladder(samples).values())


def arena_buckets(samples: Samples) -> dict[float, float]:
    buckets: dict[float, float] = defaultdict(float)
    for labels, value in samples.get("trickarena_arena_decision_seconds_bucket", []):
        buckets[float(labels["le"])] += value
    return dict(buckets)


def quantile(buckets: dict[float, float], q: float) -> float | None:
    """The q-quantile of a cumulative histogram (Prometheus' histogram_quantile: linear within a bucket).

    >>> quantile({0.001: 50.0, 0.002: 100.0, float("inf"): 100.0}, 0.5)
    0.001
    >>> quantile({0.001: 50.0, 0.002: 100.0, float("inf"): 100.0}, 0.75)
    0.0015
    """
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return lower
            share = (rank - below) / (count - below) if count > below else 1.0
            return round(lower + (bound - lower) * share, 6)
        lower, below = bound, count
    return lower


def resident(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0)


def spec_for(table: Table, index: int, prefix: str, deadline_ms: int) -> MatchSpec:
    entrants = [Member(bot_id, MemberKind.HTTP, url=url) for bot_id, url in table.bots]
    return MatchSpec(match_id=f"{prefix}m{index}".replace(":", "-"), ladder_id=table.ladder, game=GAME,
                     players=4, options=OPTIONS, seed=index, duplicate=False, entrants=entrants,
                     deadline_ms=deadline_ms, strike_limit=5,
                     pre_ratings={m.bot_id: 1500.0 for m in entrants},
                     pre_matches={m.bot_id: 0 for m in entrants})


def steady_run(tables: Sequence[Table], workers: int, seconds: float, *, max_in_flight: int | None = None,
               deadline_ms: int = DEADLINE_MS, env: dict[str, str] | None = None,
               bot_pids: Sequence[int] = ()) -> dict[str, Any]:
    """`tables` as matches on a queue, drained by `workers` arena worker processes: after the ramp-up (in
    flight no longer growing), `seconds` of measurement from the workers' metrics; then the workers stop
    (their matches go back to the queue) and the finished matches' strikes are read. `bot_pids`: the bots'
    processes (and their children), whose CPU over the window is reported too.
    """
    from rq import Queue, Worker

    from core.arena.store import ArenaStore
    from core.queues import enqueue_match
    from devstack.devredis import start_throwaway

    server = start_throwaway()
    metrics_dir = tempfile.TemporaryDirectory(prefix="ta-pace-metrics-")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        conn = redis.Redis.from_url(server.url)
        prefix = "pace:"
        store = ArenaStore(conn, prefix)
        ladders = {}
        for name in sorted({t.ladder for t in tables}):
            ladders[name] = LadderConfig(name, GAME, 4, OPTIONS, house_bots=(), deadline_ms=deadline_ms)
            store.save_ladder(ladders[name])
        queue = Queue(keys.arena_queue(prefix), connection=conn)
        specs = [spec_for(table, index, prefix, deadline_ms) for index, table in enumerate(tables)]
        for spec in specs:
            store.create_match(spec)
        worker_env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": prefix,
                      "ALLOW_PRIVATE_BOT_URLS": "1", "PYTHONPATH": str(REPO_ROOT),
                      "PROMETHEUS_MULTIPROC_DIR": metrics_dir.name, **(env or {})}
        command = [sys.executable, "-m", "arena", "worker"]
        if max_in_flight is not None:
            command += ["--max-in-flight", str(max_in_flight)]
        procs = [subprocess.Popen(command, env=worker_env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(workers)]
        pids = [p.pid for p in procs]
        deadline = time.monotonic() + 60
        while sum(queue.name in w.queue_names()
                  for w in Worker.all(connection=conn)) < workers * START_WORKERS:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError("the arena workers did not start")
            time.sleep(0.05)
        time.sleep(0.5)
        base_rss = {pid: resident(pid) for pid in pids}
        for spec in specs:
            enqueue_match(queue, spec, ladders[spec.ladder_id], prefix)
        ramp_started = time.monotonic()
        history: list[tuple[float, float]] = []
        while time.monotonic() - ramp_started < RAMP_MAX_S:
            time.sleep(SAMPLE_S)
            now, flight = time.monotonic(), in_flight_now(metric_samples(metrics_dir.name))
            history.append((now, flight))
            earlier = [f for t, f in history if t <= now - RAMP_STEADY_S]
            if earlier and flight > 0 and flight <= earlier[-1] * 1.03:
                break
        ramp_s = time.monotonic() - ramp_started
        before = metric_samples(metrics_dir.name)
        cpu_before = sum(cpu_seconds(pid) for pid in pids)
        bot_cpu_before = tree_cpu_seconds(bot_pids)
        started = time.monotonic()
        flights: list[dict[str, float]] = []
        rss: dict[int, list[int]] = {pid: [] for pid in pids}
        dry = False
        while time.monotonic() - started < seconds:
            time.sleep(SAMPLE_S)
            flights.append(in_flight_by_ladder(metric_samples(metrics_dir.name)))
            for pid in pids:
                rss[pid].append(resident(pid))
            dry = dry or queue.count == 0
        after = metric_samples(metrics_dir.name)
        elapsed = time.monotonic() - started
        cpu_s = sum(cpu_seconds(pid) for pid in pids) - cpu_before
        bot_cpu_s = tree_cpu_seconds(bot_pids) - bot_cpu_before
        buckets_before, buckets_after = arena_buckets(before), arena_buckets(after)
        window = Window(elapsed, subtract(decisions_by_ladder(after), decisions_by_ladder(before)), flights,
                        rss, cpu_s, {le: n - buckets_before.get(le, 0.0) for le, n in buckets_after.items()},
                        bot_cpu_s if bot_pids else None)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            devserve.stop(proc, timeout=30)
        procs = []
        docs = [store.match(spec.match_id) for spec in specs]
        return report(window, docs, base_rss, workers, ramp_s, dry)
    finally:
        for proc in procs:
            devserve.stop(proc, timeout=30)
        server.stop()
        metrics_dir.cleanup()


def subtract(after: Counts, before: Counts) -> Counts:
    return {ladder: {o: v - before.get(ladder, {}).get(o, 0.0) for o, v in outcomes.items()}
            for ladder, outcomes in after.items()}


def report(window: Window, docs: list[Any], base_rss: dict[int, int], workers: int, ramp_s: float,
           dry: bool) -> dict[str, Any]:
    decisions = sum(sum(outcomes.values()) for outcomes in window.decisions.values())
    totals = [sum(sample.values()) for sample in window.flights]
    in_flight = statistics.fmean(totals) if totals else 0.0
    ladders = sorted({ladder for sample in window.flights for ladder in sample})
    flight_by_ladder = {ladder: statistics.fmean(sample.get(ladder, 0.0) for sample in window.flights)
                        for ladder in ladders}
    per_process = in_flight / workers
    rss_mean = {pid: statistics.fmean(samples) for pid, samples in window.rss.items() if samples}
    above_base = statistics.fmean(rss_mean[pid] - base_rss[pid] for pid in rss_mean) if rss_mean else 0.0
    finished = [d for d in docs if d and d.get("status") in (MatchStatus.RATED, MatchStatus.VOID)]
    strikes: Counter[str] = Counter()
    forfeits: Counter[str] = Counter()
    for doc in finished:
        for strike in doc["result"]["strikes"]:
            strikes[strike["bot_id"]] += 1
        for bot in doc["result"].get("forfeited", []):
            forfeits[bot] += 1
    return {
        "workers": workers, "window_s": round(window.seconds, 1), "ramp_s": round(ramp_s, 1),
        "queue_ran_dry": dry,
        "decisions": int(decisions), "decisions_per_s": round(decisions / window.seconds, 1),
        "decisions_per_s_by_ladder": {ladder: round(sum(o.values()) / window.seconds, 1)
                                      for ladder, o in sorted(window.decisions.items()) if sum(o.values())},
        "in_flight_by_ladder": {ladder: round(v, 1) for ladder, v in flight_by_ladder.items() if v},
        # Decisions/s of one match in flight: how fast each match plays, whatever the number of them.
        "pace_per_match_by_ladder": {
            ladder: round(sum(o.values()) / window.seconds / flight_by_ladder[ladder], 2)
            for ladder, o in sorted(window.decisions.items()) if flight_by_ladder.get(ladder)},
        "failed_decisions_by_ladder": {ladder: {k: int(v) for k, v in o.items() if k != "ok" and v}
                                       for ladder, o in sorted(window.decisions.items()) if sum(o.values())},
        "in_flight_mean": round(in_flight, 1), "in_flight_per_process": round(per_process, 1),
        "rss_mib_per_process": sorted(round(v / 2**20, 1) for v in rss_mean.values()),
        "rss_mib_base_per_process": sorted(round(v / 2**20, 1) for v in base_rss.values()),
        "kib_per_match_in_flight": round(above_base / 1024 / per_process, 1) if per_process else None,
        "worker_cpu_us_per_decision": round(window.cpu_s / decisions * 1e6, 1) if decisions else None,
        # The bench's bots share the machine: what answering cost them, apart from the arena's own work.
        "bot_cpu_us_per_decision": (round(window.bot_cpu_s / decisions * 1e6, 1)
                                    if decisions and window.bot_cpu_s is not None else None),
        "arena_ms_p50": ms(quantile(window.arena_buckets, 0.5)),
        "arena_ms_p99": ms(quantile(window.arena_buckets, 0.99)),
        "matches_finished": len(finished), "strikes_by_bot": dict(sorted(strikes.items())),
        "forfeits_by_bot": dict(sorted(forfeits.items())),
    }


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)


def uniform_tables(urls: list[str], count: int, ladder: str = "bench") -> list[Table]:
    """`count` tables of the same 4 bots (the slow-bot runs: every match alike)."""
    bots = [(f"bot{i}", url) for i, url in enumerate(urls)]
    return [Table(ladder, bots) for _ in range(count)]


def field_tables(field: dict[str, list[str]], count: int, bad: Callable[[str], bool],
                 seed: int = 1) -> list[Table]:
    """`count` tables of 4 drawn from a field of bots (group -> urls), as random matchmaking would seat them;
    a table with a bot of a `bad` group is labelled "mixed", the others "near"."""
    bots = [(f"{group}{i}", url, group) for group, urls in field.items() for i, url in enumerate(urls)]
    draw = random.Random(seed)
    tables = []
    for _ in range(count):
        seated = draw.sample(bots, 4)
        ladder = "mixed" if any(bad(group) for _b, _u, group in seated) else "near"
        tables.append(Table(ladder, [(bot, url) for bot, url, _g in seated]))
    return tables

"""`python -m tools.analysis_contention`: do busy analysis workers slow the ladder? Measure, don't guess.
House-bot matches through the arena's workers, alone and beside analysis workers busy on a full queue: the
slowdown of the median match throughput (target: at most 5 %). Prints JSON. Design: docs/arena.md#processes

    python -m tools.analysis_contention [--matches 600] [--repeat 3] [--analysis-nice N] [--budget-ms 250]
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import redis

from core import keys
from core.analysis import AnalysisStore, AnalysisSubject
from core.arena.model import Member
from core.arena.store import ArenaStore
from core.settings import Settings
from devstack import devserve
from devstack.procstat import cpu_seconds
from tools.arena_bench import bench_spec, rq_workers

REPO_ROOT = Path(__file__).resolve().parent.parent
ANALYSED_MATCH = "analysed"
HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")
OWNER = "bench"  # the requests bypass the API: one owner whose share is the whole queue


def slowdown_percent(alone: float, busy: float) -> float:
    """How much slower (in %) the busy throughput is than the one alone; negative: faster.

    >>> slowdown_percent(100.0, 96.5), slowdown_percent(100.0, 101.0)
    (3.5, -1.0)
    """
    return round((1 - busy / alone) * 100, 2)


def analysis_subjects(match_id: str, players: int, count: int, budget_ms: int) -> list[AnalysisSubject]:
    """`count` distinct analyses of the match's first game: every seat, then the next budget (1 ms more).

    >>> [s.key for s in analysis_subjects("m", 2, 3, 250)]
    ['match:m:0:0:250', 'match:m:0:1:250', 'match:m:0:0:251']
    """
    return [AnalysisSubject.for_match(match_id, 0, n % players, budget_ms + n // players)
            for n in range(count)]


def play_analysed_match(url: str, prefix: str) -> None:
    """One house-bot match played in this process before the measurement: the games the analyses read."""
    from arena.jobs import play_match

    store = ArenaStore(redis.Redis.from_url(url), prefix)
    spec = bench_spec([], seed=10_000, match_id=ANALYSED_MATCH)
    spec.entrants = [Member.house(name) for name in HOUSE]
    spec.pre_ratings = {m.bot_id: 1500.0 for m in spec.entrants}
    spec.pre_matches = {m.bot_id: 0 for m in spec.entrants}
    store.create_match(spec)
    play_match(store, ANALYSED_MATCH, worker="bench",
               settings=Settings(url, prefix, allow_private_urls=False))


class BusyAnalyses:
    """``rq_workers``'s ``alongside``: analysis workers kept busy on a full queue while the matches run."""

    def __init__(self, workers: int, niceness: int | None, budget_ms: int, analyses: int) -> None:
        self.workers = workers
        self.niceness = niceness
        self.budget_ms = budget_ms
        self.analyses = analyses
        self.reports: list[dict[str, Any]] = []

    def command(self) -> list[str]:
        nice = [] if self.niceness is None else ["--nice", str(self.niceness)]
        return [sys.executable, "-m", "arena", "worker", "--simple", "--analysis", *nice]

    @contextlib.contextmanager
    def __call__(self, url: str, prefix: str) -> Iterator[None]:
        from rq import Queue

        from core.queues import enqueue_analysis

        play_analysed_match(url, prefix)
        conn = redis.Redis.from_url(url)
        store = AnalysisStore(conn, prefix, max_pending=self.analyses, max_pending_per_owner=self.analyses)
        queue = Queue(keys.analysis_queue(prefix), connection=conn)
        subjects = analysis_subjects(ANALYSED_MATCH, 4, self.analyses, self.budget_ms)
        for subject in subjects:
            store.request(subject, OWNER)
            enqueue_analysis(queue, subject.key, prefix)
        env = {**os.environ, "REDIS_URL": url, "TA_KEY_PREFIX": prefix, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_ANALYSIS_QUEUE", None)
        procs = [subprocess.Popen(self.command(), env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(self.workers)]
        try:
            _wait_running(store, subjects, self.workers)
            niceness = [os.getpriority(os.PRIO_PROCESS, proc.pid) for proc in procs]
            before = _analysed(store, subjects)
            cpu_before, began = sum(cpu_seconds(proc.pid) for proc in procs), time.monotonic()
            yield
            cpu = sum(cpu_seconds(proc.pid) for proc in procs) - cpu_before
            self.reports.append({"analysed_decisions": _analysed(store, subjects) - before,
                                 "analyses_pending_at_end": store.pending(), "worker_niceness": niceness,
                                 # how much of a core the analysis workers got while the matches ran
                                 "worker_cores_used": round(cpu / (time.monotonic() - began), 3)})
        finally:
            for proc in procs:
                devserve.stop(proc, timeout=20)


def _analysed(store: AnalysisStore, subjects: list[AnalysisSubject]) -> int:
    return sum((store.get(s) or {}).get("progress", {}).get("done", 0) for s in subjects)


def _wait_running(store: AnalysisStore, subjects: list[AnalysisSubject], count: int,
                  timeout_s: float = 60.0) -> None:
    """Until `count` analyses have made progress: the analysis workers are busy before any match starts."""
    deadline = time.monotonic() + timeout_s
    while sum((store.get(s) or {}).get("status") == "running" for s in subjects) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} analyses did not start within {timeout_s} s")
        time.sleep(0.05)


def run(matches: int = 600, repeat: int = 3, arena_workers: int = 2, analysis_workers: int = 1,
        analysis_nice: int | None = None, budget_ms: int = 250, analyses: int = 20) -> dict[str, Any]:
    """Alone and busy, interleaved `repeat` times; the medians and the slowdown between them."""
    busy = BusyAnalyses(analysis_workers, analysis_nice, budget_ms, analyses)
    samples: dict[str, list[dict[str, Any]]] = {"alone": [], "busy": []}
    for _ in range(repeat):
        samples["alone"].append(rq_workers(None, arena_workers, matches, threads=None))
        samples["busy"].append(rq_workers(None, arena_workers, matches, threads=None, alongside=busy))
    medians = {name: statistics.median(s["decisions_per_s"] for s in runs) for name, runs in samples.items()}
    # Other load on a shared machine only ever slows a run down: the best of each is the other estimate.
    best = {name: max(s["decisions_per_s"] for s in runs) for name, runs in samples.items()}
    keep = ("rated", "busy_s", "decisions_per_s", "worker_cpu_us_per_decision")
    return {"matches": matches, "repeat": repeat, "arena_workers": arena_workers,
            "analysis_workers": analysis_workers, "analysis_nice": analysis_nice, "budget_ms": budget_ms,
            "analyses_queued": analyses, "cpus": os.cpu_count(),
            "runs": {name: [{k: s[k] for k in keep} for s in runs] for name, runs in samples.items()},
            "analyses_meanwhile": busy.reports,
            "median_decisions_per_s": medians,
            "slowdown_percent": slowdown_percent(medians["alone"], medians["busy"]),
            "best_decisions_per_s": best,
            "slowdown_percent_best": slowdown_percent(best["alone"], best["busy"]),
            "load_average_1m": round(os.getloadavg()[0], 2)}


@click.command(help=__doc__)
@click.option("--matches", default=600, show_default=True, help="house-bot matches per run")
@click.option("--repeat", default=3, show_default=True, help="runs alone and busy, interleaved")
@click.option("--arena-workers", default=2, show_default=True, help="processes, as make run's ARENA_WORKERS")
@click.option("--analysis-workers", default=1, show_default=True, help="as the Procfile's analysis: line")
@click.option("--analysis-nice", type=click.IntRange(0, 19), default=None,
              help="the analysis workers' --nice (default: theirs)")
@click.option("--budget-ms", default=250, show_default=True, help="search budget per analysed decision")
@click.option("--analyses", default=20, show_default=True, help="analyses queued (the API's default cap)")
def main(matches: int, repeat: int, arena_workers: int, analysis_workers: int, analysis_nice: int | None,
         budget_ms: int, analyses: int) -> None:
    report = run(matches, repeat, arena_workers, analysis_workers, analysis_nice, budget_ms, analyses)
    print(json.dumps({"command": " ".join(["python -m tools.analysis_contention", *sys.argv[1:]]), **report},
                     indent=2))


if __name__ == "__main__":
    main()

"""The Prometheus metrics: the names, types and labels the API and the arena report, in multiprocess mode (one
directory per machine, added up at scrape time), and the queue gauges read from Redis when scraped.

Design: docs/metrics.md#one-directory-per-machine
"""

from __future__ import annotations

import bisect
import glob
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC
from typing import Any

import redis

NAMESPACE = "trickarena"

# prometheus-client picks multiprocess mode when it is imported, and then needs the directory to exist:
# a fresh machine, or a directory an operator removed, must not crash a worker at its first metric.
_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _DIR:
    os.makedirs(_DIR, exist_ok=True)

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram  # noqa: E402
from prometheus_client.core import GaugeMetricFamily  # noqa: E402
from prometheus_client.exposition import generate_latest  # noqa: E402
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead  # noqa: E402
from prometheus_client.registry import Collector  # noqa: E402

from core.redis.failures import StoreFull, store_error  # noqa: E402

# The classic text format (0.0.4), which every Prometheus reads: our names need none of 1.0.0's escaping, so
# the body is the same either way.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# Our metrics only (no process_* or python_gc_* series): the same set with or without the directory.
OWN = CollectorRegistry()

HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
UNMATCHED_ROUTE = "unmatched"  # a path no rule matches (404, or a method no rule takes): one series for all
HTTP_REQUESTS = Counter("http_requests", "HTTP requests answered, by route (URL rule), method and status.",
                        ["route", "method", "status"], namespace=NAMESPACE, registry=OWN)
# From 1 ms (a stored seat answer) to 30 s (a long-poll that waited in vain).
HTTP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
HTTP_DURATION = Histogram("http_request_duration_seconds", "Time from a request's arrival in the app to its "
                          "answer, by route and method.", ["route", "method"], namespace=NAMESPACE,
                          registry=OWN, buckets=HTTP_BUCKETS)
LONG_POLL_VIEWS = ("seat", "table")
LONG_POLLS_HELD = Gauge("long_polls_held", "Long-polls parked right now, waiting for a table to move, by "
                        "view (seat state or public table).", ["view"], namespace=NAMESPACE, registry=OWN,
                        multiprocess_mode="livesum")

REDIS_COMPONENTS = ("api", "worker", "scheduler", "metrics")
REDIS_ERROR_KINDS = ("unavailable", "full", "other")
REDIS_ERRORS = Counter("redis_errors", "Redis errors met, by component and kind: unavailable (connection "
                       "lost, timeout, read-only replica), full (out of memory or disk) or other.",
                       ["component", "kind"], namespace=NAMESPACE, registry=OWN)

REDIS_WRITES = ("move", "rating")
REDIS_WRITES_UNREPLICATED = Counter("redis_writes_unreplicated", "Writes answered with TA_REDIS_WAIT_MS set "
                                    "but no replica's acknowledgement within it, by write (a move commit or "
                                    "a rating): a failover at that moment may lose them.", ["write"],
                                    namespace=NAMESPACE, registry=OWN)

MATCH_STATUSES = ("rated", "void", "aborted")
MATCHES_STARTED = Counter("matches_started", "Match attempts started by arena workers, by ladder (a match "
                          "re-run after a lost worker starts again).", ["ladder"], namespace=NAMESPACE,
                          registry=OWN)
MATCHES_FINISHED = Counter("matches_finished", "Matches ended by an arena worker, by ladder and status: "
                           "rated, void (every bot forfeited: no rating moves) or aborted (a bot's URL "
                           "refused before the first deal).",
                           ["ladder", "status"], namespace=NAMESPACE, registry=OWN)
MATCHES_GIVEN_BACK = Counter("matches_given_back", "Match attempts a stopping worker gave back to the queue, "
                             "by ladder.", ["ladder"], namespace=NAMESPACE, registry=OWN)

DECISION_OUTCOMES = ("ok", "timeout", "illegal", "error")
BOT_DECISIONS = Counter("bot_decisions", "Decisions asked of ladder bots (HTTP and polling; not house bots), "
                        "by ladder and outcome: ok, timeout, illegal (a move the rules refuse) or error "
                        "(connection, HTTP status, body).", ["ladder", "outcome"], namespace=NAMESPACE,
                        registry=OWN)
# Around the 1 s deadline of a decision (a bot's answer may take up to three deadlines, arena.jobs).
BOT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
BOT_LATENCY = Histogram("bot_decision_seconds", "Time an HTTP bot took to answer a decision, by ladder.",
                        ["ladder"], namespace=NAMESPACE, registry=OWN, buckets=BOT_BUCKETS)
# The worker's own share of a decision is a fraction of a millisecond while it keeps up; a busy process shows
# here first (tools.growth, inflight curve).
ARENA_BUCKETS = (0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0)
ARENA_DECISION = Histogram("arena_decision_seconds", "The arena worker's own time per decision of an HTTP "
                           "bot, by ladder: from the end of the match's previous decision to the end of this "
                           "one, less the bot's latency (building the view, sending, waiting for the "
                           "process, applying, publishing).", ["ladder"], namespace=NAMESPACE, registry=OWN,
                           buckets=ARENA_BUCKETS)
# What an operator alerts on (deploy/prometheus/trick-arena-alerts.yml): matches in play, bots waiting to be
# seated, and when a ladder bot last answered.
MATCHES_IN_FLIGHT = Gauge("matches_in_flight", "Matches an arena worker is playing right now, by ladder.",
                          ["ladder"], namespace=NAMESPACE, registry=OWN, multiprocess_mode="livesum")
BOTS_READY = Gauge("bots_ready", "Registered bots (not house bots) the scheduler can seat now, by ladder: "
                   "neither paused, benched nor away; set at every tick.", ["ladder"], namespace=NAMESPACE,
                   registry=OWN, multiprocess_mode="livemax")
LAST_DECISION = Gauge("last_decision_timestamp_seconds", "Unix time a ladder bot last answered a decision "
                      "in time with a legal move, by ladder (0: none since the machine started).", ["ladder"],
                      namespace=NAMESPACE, registry=OWN, multiprocess_mode="max")


class BatchedCounter:
    """Increments of one counter series (a ``labels()`` child) added up here and written by :meth:`flush`: in
    multiprocess mode every increment is a locked write to the process's file, and a match counts at every
    decision. Its owner flushes at most a second apart and at its end.

    >>> registry = CollectorRegistry()
    >>> counter = BatchedCounter(Counter("doc_batched", "d", registry=registry))
    >>> counter.inc(); counter.inc(2)
    >>> registry.get_sample_value("doc_batched_total")
    0.0
    >>> counter.flush(); registry.get_sample_value("doc_batched_total")
    3.0
    """

    def __init__(self, series: Any) -> None:
        self.series = series
        self._pending = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self._pending += amount

    def flush(self) -> None:
        if self._pending:
            self.series.inc(self._pending)
            self._pending = 0.0


class BatchedHistogram:
    """Observations of one histogram series (a ``labels()`` child) kept here as bucket counts and a sum, and
    added to the series by :meth:`flush` (two locked file writes per observation otherwise): the same
    buckets, count and sum as observing each at once, later by at most the owner's flush period."""

    def __init__(self, series: Any) -> None:
        self.series = series
        # The series' own bounds (its last is +Inf): the bucket of an observation is found as observe() does.
        self.bounds: list[float] = series._upper_bounds  # shared, never changed: no copy per match
        self._counts = [0] * len(self.bounds)
        self._sum = 0.0

    def observe(self, amount: float) -> None:
        self._sum += amount
        self._counts[bisect.bisect_left(self.bounds, amount)] += 1

    def flush(self) -> None:
        if not any(self._counts):
            return
        self.series._sum.inc(self._sum)
        for index, count in enumerate(self._counts):
            if count:
                self.series._buckets[index].inc(count)
                self._counts[index] = 0
        self._sum = 0.0


def initialise(ladders: Iterable[str]) -> None:
    """Give every labelled family its known series at zero, so that the first scrape after a start shows
    every metric (an alert on "no decisions" must tell "none yet" from "not exported"). Ladders are the
    ones known at start; a ladder added later gets its series with its first event."""
    HTTP_REQUESTS.labels("/api/health", "GET", "200")
    HTTP_DURATION.labels("/api/health", "GET")
    for view in LONG_POLL_VIEWS:
        LONG_POLLS_HELD.labels(view)
    for component in REDIS_COMPONENTS:
        for kind in REDIS_ERROR_KINDS:
            REDIS_ERRORS.labels(component, kind)
    for write in REDIS_WRITES:
        REDIS_WRITES_UNREPLICATED.labels(write)
    for ladder in ladders:
        MATCHES_STARTED.labels(ladder)
        MATCHES_GIVEN_BACK.labels(ladder)
        MATCHES_IN_FLIGHT.labels(ladder)
        BOTS_READY.labels(ladder)
        LAST_DECISION.labels(ladder)
        BOT_LATENCY.labels(ladder)
        ARENA_DECISION.labels(ladder)
        for status in MATCH_STATUSES:
            MATCHES_FINISHED.labels(ladder, status)
        for outcome in DECISION_OUTCOMES:
            BOT_DECISIONS.labels(ladder, outcome)


def decision_outcome(outcome: str | None) -> str:
    """The bounded outcome label of a decision from the arena's call outcome (``arena.policy.Outcome``).

    >>> [decision_outcome(o) for o in (None, "ok", "timeout", "illegal_move", "bad_json", "connect_error")]
    ['ok', 'ok', 'timeout', 'illegal', 'error', 'error']
    """
    if outcome is None or outcome == "ok":
        return "ok"
    if outcome == "timeout":
        return "timeout"
    if outcome == "illegal_move":
        return "illegal"
    return "error"


def redis_error_kind(error: Exception) -> str:
    """unavailable, full or other: what an operator does about it differs.

    >>> import redis
    >>> redis_error_kind(redis.ConnectionError("gone")), redis_error_kind(redis.ResponseError("OOM command "
    ...     "not allowed")), redis_error_kind(redis.ResponseError("WRONGTYPE"))
    ('unavailable', 'full', 'other')
    """
    refused = store_error(error)
    if refused is None:
        return "other"
    return "full" if isinstance(refused, StoreFull) else "unavailable"


def count_redis_error(component: str, error: Exception) -> None:
    """One Redis error met by `component` (one of REDIS_COMPONENTS)."""
    REDIS_ERRORS.labels(component, redis_error_kind(error)).inc()


def http_route_method(rule: str | None, method: str) -> tuple[str, str]:
    """The bounded labels of a request: its URL rule (never the path) and its method, else fixed words.

    >>> http_route_method("/api/tables/<table_id>", "GET"), http_route_method(None, "BREW")
    (('/api/tables/<table_id>', 'GET'), ('unmatched', 'other'))
    """
    return rule or UNMATCHED_ROUTE, method if method in HTTP_METHODS else "other"


class QueueCollector(Collector):
    """Depth, running and failed jobs of the RQ queues, read from Redis when scraped.

    Three commands per queue in one pipelined round trip (LLEN of the queue, ZCARD of its started and failed
    registries). RQ's own key names are used, computed once. A Redis that does not answer leaves these
    gauges out of that scrape (and counts a Redis error) rather than failing the scrape.
    """

    def __init__(self, connection: redis.Redis, queues: Mapping[str, str]) -> None:
        from rq import Queue
        from rq.registry import FailedJobRegistry, StartedJobRegistry

        self.connection = connection
        self.keys: list[tuple[str, str, str, str]] = []
        for role, name in queues.items():
            queue = Queue(name, connection=connection)
            self.keys.append((role, queue.key, StartedJobRegistry(queue=queue).key,
                              FailedJobRegistry(queue=queue).key))

    def collect(self) -> Iterator[GaugeMetricFamily]:
        pipe = self.connection.pipeline(transaction=False)
        for _role, queue_key, started_key, failed_key in self.keys:
            pipe.llen(queue_key)
            pipe.zcard(started_key)
            pipe.zcard(failed_key)
            pipe.lindex(queue_key, 0)  # the job waiting longest (RQ pushes at the tail)
        try:
            answers = pipe.execute()
            ages = self._ages([answers[4 * i + 3] for i in range(len(self.keys))])
        except redis.RedisError as error:
            count_redis_error("metrics", error)
            return
        families = [GaugeMetricFamily(f"{NAMESPACE}_queue_jobs", "Jobs waiting in an RQ queue, by queue "
                                      "(arena, house, analysis).", labels=["queue"]),
                    GaugeMetricFamily(f"{NAMESPACE}_queue_started_jobs", "Jobs of an RQ queue running now "
                                      "(its started-job registry).", labels=["queue"]),
                    GaugeMetricFamily(f"{NAMESPACE}_queue_failed_jobs", "Jobs of an RQ queue in its "
                                      "failed-job registry (kept a week for matches, an hour for others).",
                                      labels=["queue"])]
        age = GaugeMetricFamily(f"{NAMESPACE}_queue_oldest_job_age_seconds", "Seconds the job waiting "
                                "longest in an RQ queue has waited (0: none waiting).", labels=["queue"])
        for index, (role, *_keys) in enumerate(self.keys):
            for offset, family in enumerate(families):
                family.add_metric([role], answers[4 * index + offset])
            age.add_metric([role], ages[index])
        yield from [*families, age]

    def _ages(self, oldest: list[Any]) -> list[float]:
        """Seconds each queue's oldest waiting job has waited, from its RQ job hash (0 for an empty queue)."""
        from rq.job import Job
        from rq.utils import utcparse

        waiting = [(i, job_id) for i, job_id in enumerate(oldest) if job_id]
        ages = [0.0] * len(oldest)
        if not waiting:
            return ages
        pipe = self.connection.pipeline(transaction=False)
        for _i, job_id in waiting:
            pipe.hget(Job.key_for(job_id.decode() if isinstance(job_id, bytes) else job_id), "enqueued_at")
        now = time.time()
        for (i, _job_id), stamp in zip(waiting, pipe.execute(), strict=True):
            if stamp:
                text = stamp.decode() if isinstance(stamp, bytes) else stamp
                ages[i] = max(0.0, now - utcparse(text).replace(tzinfo=UTC).timestamp())
        return ages


class _Own(Collector):
    """This process's own metrics (no multiprocess directory)."""

    def collect(self) -> Iterable[Any]:
        return OWN.collect()


def multiprocess_dir() -> str | None:
    """The directory every process of this machine writes its samples to, if any (read at import, as
    prometheus-client itself does)."""
    return _DIR or None


def scrape(extra: Iterable[Collector] = ()) -> bytes:
    """The Prometheus text exposition: every process's samples (or this process's alone without the
    directory), then `extra` collectors (the queues)."""
    registry = CollectorRegistry()
    if _DIR:
        MultiProcessCollector(registry, path=_DIR)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Own())
    for collector in extra:
        registry.register(collector)
    return generate_latest(registry)


def process_ended(pid: int | None = None) -> None:
    """Drop the live gauges of a process that has ended (gunicorn's child_exit, an arena process's exit)."""
    if _DIR:
        mark_process_dead(os.getpid() if pid is None else pid, _DIR)  # type: ignore[no-untyped-call]


def forget_dead_processes() -> list[int]:
    """Drop the live gauges of processes that are gone without a word (a gunicorn master killed with
    SIGKILL never runs its child_exit hook); returns their pids. Counters stay, as for any ended process.
    gunicorn calls it when it starts: a restarted API shows no long-polls held by a previous one."""
    if not _DIR:
        return []
    gone = []
    for path in glob.glob(os.path.join(_DIR, "gauge_live*_*.db")):
        pid = int(path.rsplit("_", 1)[1].removesuffix(".db"))
        if not _running(pid):
            process_ended(pid)
            gone.append(pid)
    return gone


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True

"""An arena worker process, start to stop: ``python -m arena worker`` is :func:`run_worker`.

Matches: an elastic pool of RQ workers on one process's event loop (:class:`WorkerPool`); house bots and
analyses: one job at a time. Why, and how a stop or a lost Redis is handled: docs/arena.md#processes.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

import redis
from rq import SimpleWorker, Worker
from rq.timeouts import TimerDeathPenalty

from arena import eventloop, runtime
from arena.runtime import STOPPING
from core import metrics
from core.redis.connections import settings_client
from core.redis.failures import store_error
from core.settings import Settings

POLL_S = 1  # an idle worker's longest blocking dequeue: how long a stop request may take to reach it
START_WORKERS = 2  # a pool starts with (and never retires) these: one takes a match, one waits for the next
GROW_TICK_S = 0.005  # while every worker plays, how often the pool looks whether it may start another
RETIRE_IDLE_S = 60.0  # an extra worker idle this long (while another waits too) leaves the pool
# What one more match in flight adds to a worker process's RSS, at most, with room to spare (python -m
# tools.growth --curves inflight measures 72–92 KiB, tools.arena_bench 82–99 KiB with bots 20–300 ms away):
# a new match is taken only while the budget leaves this much room.
MATCH_BYTES = 128 * 1024
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
GC_THRESHOLDS = (50_000, 20, 100)  # Python's are (700, 10, 10)
REDIS_CONNECTIONS = 32  # a pool's Redis connections; a match beyond waits its turn (commands take ~0.1 ms)
REDIS_WAIT_S = 30.0  # ... for at most this long, then it fails as on a lost Redis
LOG = logging.getLogger("arena.worker")


RESTART_MIN_S, RESTART_MAX_S = 0.5, 10.0
# A worker that ran this long before it failed met a new outage, not the same one again: its restart
# delay starts over instead of staying at the longest one for the rest of the process's life.
STEADY_S = 30.0


# An analysis is CPU-bound for as long as its budget allows and nobody waits on it by the second; a match has
# deadlines. At the lowest priority the analysis worker runs on the CPU the match workers leave idle.
ANALYSIS_NICENESS = 19
# Challenges (unrated matches people ask for) run in workers of their own, below the ladder's: at this nice
# level the ladder's match workers take the CPU first, and a flood of challenges never slows the ladder much
# (``python -m tools.challenge_pace`` measures it). Their matches wait on bots as ladder matches do.
CHALLENGE_NICENESS = 10
CHALLENGE_IN_FLIGHT = 4
# Tournament tables likewise, lower still: an event puts several tables with house search bots on the CPU at
# once, and at the challenges' level the ladder kept 0.69 of its pace; at 19 the event plays on the CPU the
# ladder leaves (``python -m tools.tournament_pace`` measures the ladder's pace while events play).
TOURNAMENT_NICENESS = 19
TOURNAMENT_IN_FLIGHT = 4
# Each match in flight holds a kept-alive connection per bot (up to 6 seats) and, at times, one to Redis.
FILES_PER_MATCH = 8


def run_worker(settings: Settings, queues: Sequence[str] = (), *, house: bool = False,
               analysis: bool = False, challenges: bool = False, tournaments: bool = False,
               max_in_flight: int | None = None,
               simple: bool = False, burst: bool = False, niceness: int | None = None) -> None:
    """Serve the queues until stopped by SIGTERM/SIGINT (or, with `burst`, until they are empty).

    `max_in_flight`: the most matches at once (default ``settings.max_in_flight``; 1 for house bots and
    analyses, which wait on no bot). `niceness`: the OS niceness to run at (default ``ANALYSIS_NICENESS`` for
    analyses).
    """
    runtime.install(settings)  # read once: every job of this process uses them
    if niceness is None and analysis:
        niceness = ANALYSIS_NICENESS
    if niceness is None and challenges:
        niceness = CHALLENGE_NICENESS
    if niceness is None and tournaments:
        niceness = TOURNAMENT_NICENESS
    if niceness:
        lower_priority(niceness)
    names = list(queues) or [settings.house_queue_name if house else
                             settings.analysis_queue_name if analysis else
                             settings.challenge_queue_name if challenges else
                             settings.tournament_queue_name if tournaments else settings.queue_name]
    if max_in_flight is None and challenges:
        max_in_flight = CHALLENGE_IN_FLIGHT
    if max_in_flight is None and tournaments:
        max_in_flight = TOURNAMENT_IN_FLIGHT
    if max_in_flight is None:  # house-bot jobs and analyses wait on no bot (CPU-bound, in-process)
        max_in_flight = 1 if house or analysis else settings.max_in_flight
    if max_in_flight > 1:
        # A pool's matches share a few Redis connections (each holds a 64 KiB read buffer): one per match in
        # flight at once would cost more memory than the match itself.
        connection = settings_client(settings, max_connections=REDIS_CONNECTIONS,
                                     blocking_timeout=REDIS_WAIT_S)
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        raise_open_files_limit(FILES_PER_MATCH * max_in_flight)
        tune_garbage_collector()
        budget = settings.arena_memory_mb * 2**20
        admission = Admission(max_lag_s=settings.arena_max_lag_ms / 1000, memory_bytes=budget)
        WorkerPool(names, connection, max_in_flight, burst=burst, admission=admission).run()
    else:
        serve_one_job_at_a_time(names, settings_client(settings), simple=simple, burst=burst)


class _GivesBackItsMatch:
    """RQ's warm shutdown waits for the running job; a match may last minutes, so it is given back instead.

    The first stop signal sets STOPPING (the match ends after its current decision and is queued again, see
    ``arena.jobs.play_match``) and then lets RQ finish the job and exit as usual: no cold shutdown, no
    traceback.
    """

    def request_stop(self, signum: int, frame: object) -> None:
        STOPPING.set()
        super().request_stop(signum, frame)  # type: ignore[misc]

    # RQ's pub/sub listener only carries RQ's own remote commands (shutdown, kill the job's process), which
    # nothing here sends: these workers stop by signal. Stopping that listener could also outlast the stop
    # itself: RQ unsubscribes and then joins a redis-py thread that, when it read the unsubscribe reply
    # first, waits up to 60 s for a subscription that never comes, past the 5 s a process manager gives.
    def subscribe(self) -> None:
        """No pub/sub listener: a stop request comes as a signal."""

    def unsubscribe(self) -> None:
        """Nothing to unsubscribe from (see subscribe)."""


class ArenaWorker(_GivesBackItsMatch, Worker):
    """A forking RQ worker that gives its match back when told to stop."""


class ArenaSimpleWorker(_GivesBackItsMatch, SimpleWorker):
    """A SimpleWorker (jobs in the worker process) that gives its match back when told to stop."""


def serve_one_job_at_a_time(queues: Sequence[str], connection: redis.Redis, simple: bool = False,
                            burst: bool = False) -> None:
    """One RQ worker in the main thread (a forked child per job unless `simple`), started again after a lost
    Redis or a refused write until a stop signal (or, with `burst`, empty queues)."""

    def stop_requested(signum: int, frame: object) -> None:
        STOPPING.set()

    if not simple:
        import arena.jobs  # noqa: F401 - the match code, imported once here rather than in every forked job
    worker_class = ArenaSimpleWorker if simple else ArenaWorker
    backoff: float | None = None
    while True:
        started = time.monotonic()
        try:
            worker_class(list(queues), connection=connection).work(burst=burst, with_scheduler=False)
            if burst or STOPPING.is_set():
                return  # stopped (signal, or --burst done)
            # RQ's work loop also ends by itself, logging the error, when its own bookkeeping fails between
            # jobs (a write refused by a full Redis, a Redis timeout): that is no reason to stop serving.
            reason = "RQ's work loop ended on an error"
        except redis.RedisError as exc:
            metrics.count_redis_error("worker", exc)
            if store_error(exc) is None:  # not Redis gone or refusing writes (out of memory or disk): a bug
                raise
            reason = f"lost Redis ({exc})"
        backoff = restart_delay(backoff, time.monotonic() - started)
        LOG.warning("%s; new worker in %.1f s", reason, backoff)
        # Until the next RQ worker installs its own, a stop signal is ours to take: RQ's handlers belong
        # to the worker that ended, and would ask a worker that no longer runs to stop.
        signal.signal(signal.SIGTERM, stop_requested)
        signal.signal(signal.SIGINT, stop_requested)
        if STOPPING.wait(backoff):
            return


def niceness_increment(current: int, target: int) -> int:
    """What to add to ``current`` to reach ``target``: never negative (an unprivileged process cannot raise
    its priority, and a worker started already nicer stays so).

    >>> niceness_increment(0, 19), niceness_increment(5, 19), niceness_increment(19, 10)
    (19, 14, 0)
    """
    return max(0, target - current)


def lower_priority(target: int) -> int:
    """Run this process (and the job children it forks) at OS niceness ``target`` or lower; returns it."""
    return os.nice(niceness_increment(os.nice(0), target))


def restart_delay(previous_s: float | None, lived_s: float) -> float:
    """How long to wait before starting a worker again after one stopped on a lost Redis (or a bug):
    doubling from ``RESTART_MIN_S`` to ``RESTART_MAX_S`` while workers keep failing at once, back to the
    start once one had run for ``STEADY_S``.

    >>> restart_delay(None, 0.1), restart_delay(0.5, 0.2), restart_delay(8.0, 0.2)
    (0.5, 1.0, 10.0)
    >>> restart_delay(10.0, 120.0)  # it ran two minutes: a new outage
    0.5
    """
    if previous_s is None or lived_s >= STEADY_S:
        return RESTART_MIN_S
    return min(previous_s * 2, RESTART_MAX_S)


def admits(running: int, lag_s: float, max_lag_s: float, rss_bytes: int = 0, memory_bytes: int = 0) -> bool:
    """Whether a worker process may take another match: always when it runs none, else only while it keeps
    up (its wake-up lag is within `max_lag_s`) and its RSS leaves room for one more match within
    `memory_bytes` (0: no budget).

    >>> admits(0, 0.5, 0.01), admits(3, 0.005, 0.01), admits(3, 0.02, 0.01)
    (True, True, False)
    >>> admits(3, 0.0, 0.01, rss_bytes=100 * 2**20, memory_bytes=100 * 2**20)  # at the budget: no more
    False
    """
    if running == 0:
        return True
    within_budget = memory_bytes <= 0 or rss_bytes + MATCH_BYTES <= memory_bytes
    return lag_s <= max_lag_s and within_budget


def settle_time(lag_s: float, max_lag_s: float, settle_s: float) -> float:
    """How long to wait after taking a match before the next may be taken: the full `settle_s` once the lag
    nears its ceiling (the CPU is filling up: let the new match show its cost), down to a tenth of it while
    the process is idle (bots far away: ramp up fast).

    >>> settle_time(0.0, 0.01, 0.05), settle_time(0.005, 0.01, 0.05), settle_time(0.02, 0.01, 0.05)
    (0.005, 0.025, 0.05)
    """
    return round(min(settle_s, max(settle_s / 10, settle_s * lag_s / max_lag_s)), 6)


def resident_bytes() -> int:
    """This process's resident memory (Linux /proc; 0 where there is none)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0


class Admission:
    """Lets a worker take another match only while the process keeps up with the ones it runs, within its
    memory budget.

    Matches in flight buy throughput only while the process has CPU to spare; past that, each extra match
    only makes every reply wait longer before it is handled: every match slows down and no more decisions
    are made (a bot's deadline is judged on its socket, so the wait is never the bot's, see
    ``arena.http1``). A monitor sleeps `tick_s` over and over and smooths how late it wakes up (the wait any
    match has for the process's loop and a core); while that lag is above `max_lag_s`, or the RSS leaves no
    room for one more match in `memory_bytes`, no new job is taken (one match always runs). Idle workers queue
    for one blocking dequeue at a time (`dequeue_lock`), and a new match gets `settle_time` before the next.
    """

    def __init__(self, max_lag_s: float = 0.01, tick_s: float = 0.02, settle_s: float = 0.05,
                 memory_bytes: int = 0) -> None:
        self.max_lag_s, self.tick_s, self.settle_s = max_lag_s, tick_s, settle_s
        self.memory_bytes = memory_bytes
        self.dequeue_lock = threading.Lock()
        self.lag_s = 0.0
        self.rss_bytes = resident_bytes()
        self.running = 0
        self.idle = 0  # workers waiting for a job right now
        self.starting = 0  # workers started that have not yet come to wait for a job
        self.took = threading.Event()  # set whenever a worker takes a match: the pool may need another
        self._lock = threading.Lock()

    def watch(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            start = time.monotonic()
            time.sleep(self.tick_s)
            late = time.monotonic() - start - self.tick_s
            # On the event loop a timer is served ahead of the matches whose answers have arrived: a yield
            # (sleep(0)) comes back only after every match ready to run has had its turn, which is the wait
            # a bot's answer has before it is handled.
            start = time.monotonic()
            time.sleep(0)
            turn = time.monotonic() - start
            self.lag_s = 0.7 * self.lag_s + 0.3 * max(late, turn, 0.0)
            self.rss_bytes = resident_bytes()

    def may_take(self) -> bool:
        return admits(self.running, self.lag_s, self.max_lag_s, self.rss_bytes, self.memory_bytes)

    def settle(self) -> float:
        return settle_time(self.lag_s, self.max_lag_s, self.settle_s)

    def no_longer_starting(self) -> None:
        with self._lock:
            self.starting -= 1

    def started(self) -> None:
        with self._lock:
            self.running += 1

    def ended(self) -> None:
        with self._lock:
            self.running -= 1


class GreenletDeathPenalty(TimerDeathPenalty):
    """RQ's job timeout for a job run by one of many workers of a process: on the event loop, a
    ``gevent.Timeout`` raised in the job's own greenlet; on threads, RQ's timer on a daemon thread (a pending
    one never holds up the exit)."""

    def setup_death_penalty(self) -> None:
        if self._timeout <= 0:
            return
        if eventloop.active():
            import gevent  # type: ignore[import-untyped]

            self._timer = gevent.Timeout(self._timeout, self._exception)
            self._timer.start()
            return
        super().setup_death_penalty()  # type: ignore[no-untyped-call]

    def new_timer(self) -> threading.Timer:
        timer: threading.Timer = super().new_timer()  # type: ignore[no-untyped-call]
        timer.daemon = True
        return timer

    def cancel_death_penalty(self) -> None:
        if self._timeout <= 0 or self._timer is None:
            return
        if hasattr(self._timer, "close"):  # gevent.Timeout
            self._timer.close()
            self._timer = None
            return
        super().cancel_death_penalty()  # type: ignore[no-untyped-call]


class PoolWorker(SimpleWorker):
    """One RQ worker of a WorkerPool: runs its jobs one after another, beside the pool's other workers."""

    death_penalty_class = GreenletDeathPenalty

    def __init__(self, *args: Any, maintenance: bool = True, admission: Admission | None = None,
                 may_retire: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.maintenance = maintenance
        self.admission = admission or Admission()
        self.may_retire = may_retire
        self.retired = False
        self.starting = False  # counted in admission.starting until it first waits for a job

    def execute_job(self, job: Any, queue: Any) -> None:
        self.admission.started()
        try:
            super().execute_job(job, queue)
        finally:
            self.admission.ended()

    def _install_signal_handlers(self) -> None:
        """Signals belong to the pool (WorkerPool.run)."""

    def subscribe(self) -> None:
        """No pub/sub listener (and Redis connection) per worker: signals stop the process."""

    def unsubscribe(self) -> None:
        pass

    def procline(self, message: str) -> None:
        """One process title cannot say what N workers do; RQ's worker registry does (`rq info`)."""

    @property
    def should_run_maintenance_tasks(self) -> bool:
        return self.maintenance and bool(super().should_run_maintenance_tasks)

    def stop_soon(self) -> None:
        """Stop after the running job (which itself stops early: STOP is set), or at the next poll if idle."""
        self._stop_requested = True

    def dequeue_job_and_maintain_ttl(self, timeout: int | None,
                                     max_idle_time: int | None = None) -> tuple[Any, Any] | None:
        admission = self.admission
        if self.starting:
            self.starting = False
            admission.no_longer_starting()
        if timeout is None:  # burst: one look, no blocking
            return super().dequeue_job_and_maintain_ttl(None, max_idle_time)
        idle_since = time.monotonic()
        with admission._lock:
            admission.idle += 1
        try:
            while not self._stop_requested:
                if self.may_retire and time.monotonic() - idle_since > RETIRE_IDLE_S and admission.idle > 1:
                    self.retired = True  # another worker waits too: this one's RQ registration goes
                    self.stop_soon()
                    break
                if not admission.dequeue_lock.acquire(timeout=POLL_S):
                    continue
                try:
                    if not admission.may_take():  # busy or at its budget: leave the job to another process
                        time.sleep(admission.settle_s)
                        continue
                    # max_idle_time = POLL_S makes RQ's own loop return None after one blocking pop of POLL_S.
                    result = super().dequeue_job_and_maintain_ttl(POLL_S, max_idle_time=POLL_S)
                    if result is not None:
                        if admission.running > 0:
                            time.sleep(admission.settle())  # let the lag show this match's cost first
                        return result
                finally:
                    admission.dequeue_lock.release()
        finally:
            with admission._lock:
                admission.idle -= 1
            admission.took.set()  # one fewer waiting (it took a match, or it stops): the pool looks again
        return None


class WorkerPool:
    """Up to `max_in_flight` PoolWorkers on `queues` in this process, started as the matches need them;
    `run()` blocks until they have all stopped."""

    def __init__(self, queues: Sequence[str], connection: redis.Redis, max_in_flight: int,
                 burst: bool = False, admission: Admission | None = None) -> None:
        if max_in_flight < 1:
            raise ValueError("a worker pool plays at least one match at a time")
        self.queues = list(queues)
        self.connection = connection
        self.max_in_flight = max_in_flight
        self.burst = burst
        self.stopping = threading.Event()
        self._workers: dict[int, PoolWorker] = {}
        # Counted, not found by asking every thread whether it lives: the pool looks every GROW_TICK_S
        # while all its workers play, and with hundreds of them that asking cost a few % of the process.
        self._alive = 0
        self._started = 0
        self._lock = threading.Lock()
        self._first_signal_at: float | None = None
        self.admission = admission or Admission()

    @property
    def size(self) -> int:
        """Workers alive (each plays at most one match)."""
        return self._alive

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        threading.Thread(target=self.admission.watch, args=(self.stopping,), name="arena-admission",
                         daemon=True).start()
        for _ in range(min(START_WORKERS, self.max_in_flight)):
            self._start_worker()
        took = self.admission.took
        while self.size:
            if not self.stopping.is_set() and self.wants_another():
                self._start_worker()
            # Woken when a worker takes a match; while every worker is busy, look again soon (lag may fall).
            # Bounded waits: the main thread must stay free to take signals.
            took.wait(GROW_TICK_S if self.admission.idle == 0 else POLL_S)
            took.clear()

    def wants_another(self) -> bool:
        """A new worker while every one plays a match (none waits for a job, none is starting or waiting out a
        lost Redis) and another match would be admitted."""
        admission, size = self.admission, self.size
        return (admission.idle == 0 and admission.starting == 0 and admission.running >= size
                and size < self.max_in_flight and admission.may_take())

    def _start_worker(self) -> None:
        with self.admission._lock:
            self.admission.starting += 1
        with self._lock:
            index, self._started = self._started, self._started + 1
            self._alive += 1
        threading.Thread(target=self._serve_counted, args=(index,), name=f"arena-worker-{index}",
                         daemon=True).start()

    def _serve_counted(self, index: int) -> None:
        try:
            self._serve(index)
        finally:
            with self._lock:
                self._alive -= 1

    def stop(self) -> None:
        """The first SIGTERM/SIGINT: every match stops after its current decision, then each worker."""
        STOPPING.set()
        self.stopping.set()
        with self._lock:
            for worker in self._workers.values():
                worker.stop_soon()

    def _on_signal(self, signum: int, frame: object) -> None:
        now = time.monotonic()
        if self._first_signal_at is None:
            self._first_signal_at = now
            LOG.info("stopping: %d workers give back their matches", self.size)
            self.stop()
        elif now - self._first_signal_at > 1.0:  # Ctrl-C reaches a worker twice (terminal and honcho)
            LOG.warning("cold shutdown: running matches are re-run once their leases lapse")
            raise SystemExit(1)

    def _serve(self, index: int) -> None:
        """One worker: an RQ worker, started again after a lost Redis or a Redis out of memory or disk (as a
        one-match worker is), until the pool stops or the worker retires (idle while others wait too)."""
        backoff: float | None = None
        first = True
        while not self.stopping.is_set():
            started = time.monotonic()
            worker: PoolWorker | None = None
            try:
                # Inside the try: a new RQ worker names itself to Redis, which may still be gone.
                worker = PoolWorker(self.queues, connection=self.connection, maintenance=index == 0,
                                    admission=self.admission, may_retire=index >= START_WORKERS)
                worker.starting, first = first, False
                with self._lock:
                    self._workers[index] = worker
                if self.stopping.is_set():
                    worker.stop_soon()
                worker.work(burst=self.burst, with_scheduler=False)
                if self.burst or worker.retired:
                    return
                backoff = None
            except Exception as exc:  # noqa: BLE001 - a bug must not shrink the pool for good either
                backoff = restart_delay(backoff, time.monotonic() - started)
                if isinstance(exc, redis.RedisError):
                    metrics.count_redis_error("worker", exc)
                if isinstance(exc, redis.RedisError) and store_error(exc) is not None:  # gone, or out of room
                    LOG.warning("worker %d lost Redis (%s); new worker in %.1f s", index, exc, backoff)
                else:
                    LOG.exception("worker %d failed; new worker in %.1f s", index, backoff)
            finally:
                with self._lock:
                    self._workers.pop(index, None)
                if first or (worker is not None and worker.starting):  # it never came to wait for a job
                    self.admission.no_longer_starting()
                    first = False
                    if worker is not None:
                        worker.starting = False
            if not self.stopping.is_set():
                self.stopping.wait(backoff or RESTART_MIN_S)


def tune_garbage_collector() -> None:
    """Hundreds of matches in flight hold millions of objects, and each full collection walks them all: the
    objects of the process's start move out of the collector's sight, and collections come less often."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def raise_open_files_limit(wanted: int) -> int:
    """Raise this process's soft limit of open files towards `wanted` (never above the hard limit): each
    match in flight holds a few sockets. Returns the soft limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft

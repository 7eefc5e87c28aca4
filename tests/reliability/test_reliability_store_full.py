"""Redis without room, fast: out of memory (maxmemory, noeviction) and an append-only file it cannot write.

Each test starts its own redis-server (AOF everysec, as `make run` configures it) and takes its room away:
never a Redis the tests did not start. The full-stack drills under load: `python -m loadtest faults
redis-full` and `redis-disk-full` (docs/reliability.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from core.redis.failures import StoreFull, StoreUnavailable, store_error
from devstack.devredis import free_port
from devstack.verify import table_problems
from tests.api.api_helpers import bearer
from tests.conftest import REPO_ROOT, serving
from tests.reliability.reliability_helpers import OwnRedis, aof_written, own_redis_server

PROBLEM = "application/problem+json"


@pytest.fixture
def limited_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    with own_redis_server(tmp_path / "redis") as server:
        yield server


class Table:
    """A spot-hearts table of 4 open seats, played first-legal through the API."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        created = http.post("/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4,
                                                 "options": {"target": 100}})
        assert created.status_code == 201, created.text
        self.table_id = created.json()["table_id"]
        self.tokens = [http.post(f"/api/tables/{self.table_id}/seats/{s}/join").json()["token"]
                       for s in range(4)]

    def move(self) -> httpx.Response:
        table = self.http.get(f"/api/tables/{self.table_id}")
        assert table.status_code == 200, table.text
        seat = table.json()["to_act"][0]
        state = self.http.get(f"/api/tables/{self.table_id}/seats/{seat}", headers=bearer(self.tokens[seat]))
        assert state.status_code == 200, state.text
        decision = state.json()["view"]["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
        return self.http.post(f"/api/tables/{self.table_id}/seats/{seat}/moves",
                              headers=bearer(self.tokens[seat]),
                              json={"move": move, "expected_version": state.json()["version"]})

    def version(self) -> int:
        return self.http.get(f"/api/tables/{self.table_id}").json()["version"]


def log_lines(log: Path, text: str, count: int, worker: subprocess.Popen, what: str) -> None:
    """Wait until `worker`'s log holds `count` lines with `text`; fail at once if the worker exits."""
    deadline = time.monotonic() + 60
    while log.read_text(errors="replace").count(text) < count:
        assert worker.poll() is None, f"the worker exited {what}: {log.read_text(errors='replace')[-2000:]}"
        assert time.monotonic() < deadline, f"no {count} x {text!r} {what} within 60 s"
        time.sleep(0.05)


def assert_store_full(answer: httpx.Response, resource_name: str) -> None:
    assert answer.status_code == 507, answer.text
    assert answer.headers["content-type"].startswith(PROBLEM)
    body = answer.json()
    assert body["type"] == "/problems/store-full" and body["status"] == 507
    assert body["resource"] == resource_name
    assert int(answer.headers["retry-after"]) >= 1
    assert "Traceback" not in answer.text and "maxmemory" not in answer.text  # no Redis internals


def assert_reads_served(http: httpx.Client, table: Table) -> None:
    for path, headers in ((f"/api/tables/{table.table_id}", None),
                          (f"/api/tables/{table.table_id}/seats/0", bearer(table.tokens[0])),
                          ("/api/tables", None),
                          ("/api/ladders", None)):
        answer = http.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.text)


def assert_health(http: httpx.Client, refusing_writes: str | None) -> None:
    answer = http.get("/api/health")
    assert answer.status_code == 200, answer.text
    status = "ok" if refusing_writes is None else "degraded"
    assert answer.json() == {"status": status, "redis": True, "refusing_writes": refusing_writes}


def test_at_maxmemory_writes_get_store_full_reads_work_and_writes_resume(make_app, limited_redis, key_prefix):
    conn = redis.Redis.from_url(limited_redis.url, decode_responses=True)
    app = make_app(REDIS_URL=limited_redis.url)
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        table = Table(http)
        for _ in range(5):
            assert table.move().status_code == 200
        conn.config_set("maxmemory-policy", "noeviction")
        conn.config_set("maxmemory", 1)  # below what it holds already: every write that allocates is refused
        try:
            assert_store_full(table.move(), "memory")
            assert_store_full(http.post("/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}),
                              "memory")
            assert_store_full(http.post("/api/bots", json={"name": "full", "games": ["spot-hearts"],
                                                           "url": "http://127.0.0.1:9/"}), "memory")
            assert table.version() == 5  # the refused move changed nothing
            assert_reads_served(http, table)
            assert_health(http, "memory")  # Redis still answers PING: the health check looks further
        finally:
            conn.config_set("maxmemory", 0)
        assert_health(http, None)
        assert table.move().status_code == 200  # the same process writes again, nothing restarted
        assert table.version() == 6
        assert conn.llen(f"{key_prefix}table:{table.table_id}:moves") == 6
        assert table_problems(conn, key_prefix, table.table_id) == []


def test_when_the_aof_cannot_be_written_writes_get_store_full_and_no_accepted_move_is_lost(
    make_app, limited_redis, key_prefix
):
    conn = redis.Redis.from_url(limited_redis.url, decode_responses=True)
    app = make_app(REDIS_URL=limited_redis.url)
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        table = Table(http)
        accepted = sum(table.move().status_code == 200 for _ in range(5))
        aof_written(conn, limited_redis)  # the file holds all of it
        limited_redis.limit_file_size(limited_redis.aof_bytes())  # no room to append anything
        refused = None
        for _ in range(20):  # the write that meets the full disk is answered; the next ones are refused
            answer = table.move()
            if answer.status_code != 200:
                refused = answer
                break
            accepted += 1
        assert refused is not None, "Redis never refused a write on a full disk"
        assert_store_full(refused, "disk")
        new_table = {"game": "spot-hearts", "seats": ["open"] * 4}
        assert_store_full(http.post("/api/tables", json=new_table), "disk")
        assert table.version() == accepted
        assert_reads_served(http, table)
        assert_health(http, "disk")  # Redis refuses even PING now, yet it answers

        limited_redis.limit_file_size(None)  # room again: Redis retries its AOF write within a second
        deadline = time.monotonic() + 10
        while (answer := table.move()).status_code != 200:
            assert_store_full(answer, "disk")
            assert time.monotonic() < deadline, "writes were not accepted again after the disk had room"
            time.sleep(0.1)
        accepted += 1
        assert_health(http, None)

    limited_redis.restart()  # what Redis loads from its AOF: every accepted move
    conn = redis.Redis.from_url(limited_redis.url, decode_responses=True)
    assert conn.llen(f"{key_prefix}table:{table.table_id}:moves") == accepted
    assert table_problems(conn, key_prefix, table.table_id) == []


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (redis.exceptions.OutOfMemoryError("command not allowed when used memory > 'maxmemory'."), "memory"),
        (redis.ResponseError("Error running script (call to f_1): @user_script:3: -OOM command not allowed "
                             "when used memory > 'maxmemory'."), "memory"),
        (redis.ResponseError("MISCONF Errors writing to the AOF file: No space left on device"), "disk"),
        (redis.ResponseError("Command # 1 (SET e x) of pipeline caused error: MISCONF Errors writing to the "
                             "AOF file: No space left on device"), "disk"),
        (redis.exceptions.ReadOnlyError("You can't write against a read only replica."), None),
        (redis.ConnectionError("gone"), None),
    ],
)
def test_redis_refusals_map_to_store_errors(reply, expected):
    error = store_error(reply)
    assert isinstance(error, StoreUnavailable)
    assert (error.resource if isinstance(error, StoreFull) else None) == expected


def test_other_redis_errors_are_not_store_errors():
    wrong_type = redis.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")
    assert store_error(wrong_type) is None
    assert store_error(ValueError("MISCONF")) is None


def house_worker(redis_url: str, key_prefix: str, stderr: Any = subprocess.DEVNULL) -> subprocess.Popen:
    """The Procfile's house-bot worker (`python -m arena worker --simple --house`) on `redis_url`."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix}
    return subprocess.Popen([sys.executable, "-m", "arena", "worker", "--simple", "--house"], cwd=REPO_ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)


class HouseTable:
    """A Sore Spot table of three house bots, driven through the house-bot queue."""

    def __init__(self, conn: redis.Redis, key_prefix: str) -> None:
        from rq import Queue

        from core.keys import house_queue
        from core.tables.store import SeatKind, SeatSpec, TableStore

        self.key_prefix = key_prefix
        self.queue = Queue(house_queue(key_prefix), connection=conn)
        self.tables = TableStore(conn, key_prefix)
        self.table_id = self.tables.create_table("sore-spot", 3, {"rounds": 1},
                                                 [SeatSpec(SeatKind.HOUSE, "random")] * 3).table_id

    def drive(self) -> None:
        from core.queues import enqueue_drive

        enqueue_drive(self.queue, self.table_id, self.key_prefix)

    def wait_until_over(self, worker: subprocess.Popen, what: str) -> None:
        deadline = time.monotonic() + 60
        while not self.tables.load_table(self.table_id).over:
            assert time.monotonic() < deadline and worker.poll() is None, what
            time.sleep(0.2)


# The worker's log line when it waits to start a new RQ worker (arena/workers.py).
RESTARTING = "new worker in"


def test_a_worker_started_on_a_full_redis_outlives_it_and_then_works(limited_redis, key_prefix, tmp_path):
    """The Procfile's house-bot worker, started while Redis refuses writes (RQ cannot even register it),
    keeps retrying instead of exiting (under honcho one exit stops the service), then drives a table."""
    conn = redis.Redis.from_url(limited_redis.url)
    conn.config_set("maxmemory-policy", "noeviction")
    conn.config_set("maxmemory", 1)
    log = tmp_path / "worker.log"
    with log.open("wb") as stderr:
        worker = house_worker(limited_redis.url, key_prefix, stderr=stderr)
    try:
        log_lines(log, RESTARTING, 3, worker, "on a Redis out of memory")  # several refused attempts
        assert "lost Redis" in log.read_text()
        conn.config_set("maxmemory", 0)
        table = HouseTable(conn, key_prefix)
        table.drive()
        table.wait_until_over(worker, "the worker did no work once Redis had room")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=15)


def test_a_worker_whose_rq_loop_ends_on_a_refused_write_starts_a_new_one(limited_redis, key_prefix, tmp_path):
    """RQ's work loop, when its own bookkeeping of a job is refused by Redis (a full Redis, as in the
    maxmemory drill; here a write the worker's Redis user may not make), logs the error and returns as if
    stopped. The house-bot worker starts a new RQ worker instead of exiting (under honcho one exit stops the
    service), and drives tables once the writes go through."""
    conn = redis.Redis.from_url(limited_redis.url)
    # RQ records a job it takes in the queue's started-job registry, a sorted set: ZADD.
    conn.acl_setuser("worker", enabled=True, passwords=["+secret"], keys=["*"], channels=["*"],
                     commands=["+@all", "-zadd"])
    log = tmp_path / "worker.log"
    with log.open("wb") as stderr:
        worker = house_worker(limited_redis.url.replace("redis://", "redis://worker:secret@"), key_prefix,
                              stderr=stderr)
    try:
        table = HouseTable(conn, key_prefix)
        table.drive()  # taken, and RQ's record of it refused
        # RQ's loop ended, and the worker waits to start a new one (wait_until_over fails if it exits now).
        log_lines(log, f"RQ's work loop ended on an error; {RESTARTING}", 1, worker,
                  "when RQ's work loop ended on a refused write")
        conn.execute_command("ACL", "SETUSER", "worker", "+zadd")
        table.drive()  # the job RQ dropped in the refusal, asked again
        table.wait_until_over(worker, "no work once writes went through")
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=15)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
    errors = log.read_text(errors="replace")
    assert worker.returncode == 0, errors[-2000:]  # stopped as asked, no traceback
    assert "found an unhandled exception, quitting" in errors  # the refusal did end RQ's loop


def test_health_says_redis_is_gone(make_app):
    app = make_app(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    answer = app.test_client().get("/api/health")
    assert answer.status_code == 200
    assert answer.json == {"status": "degraded", "redis": False, "refusing_writes": None}

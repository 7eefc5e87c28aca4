"""Faults, the fast ones: Redis restarted under a live API; the API killed during long-polls.

Slow, full-stack versions (mid-ladder, many clients): `python -m loadtest faults ...` (docs/reliability.md).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

import engine
from devstack import devserve
from devstack.devredis import free_port
from devstack.verify import table_problems
from tests.api.api_helpers import app_watcher, bearer
from tests.conftest import REPO_ROOT, serving
from tests.reliability.reliability_helpers import OwnRedis, aof_written, own_redis_server
from tests.waiting import wait_until


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    with own_redis_server(tmp_path / "redis") as server:
        yield server


def play_moves(http: httpx.Client, table_id: str, tokens: list[str], count: int) -> int:
    """Play up to `count` moves (first legal cards), returns the version reached."""
    for _ in range(count):
        table = http.get(f"/api/tables/{table_id}").json()
        if table["status"] == "over":
            return table["version"]
        seat = table["to_act"][0]
        state = http.get(f"/api/tables/{table_id}/seats/{seat}", headers=bearer(tokens[seat])).json()
        decision = state["view"]["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
        answer = http.post(
            f"/api/tables/{table_id}/seats/{seat}/moves",
            headers=bearer(tokens[seat]),
            json={"move": move, "expected_version": state["version"]},
        )
        assert answer.status_code == 200, answer.text
    return http.get(f"/api/tables/{table_id}").json()["version"]


@pytest.mark.parametrize("hard", [False, True], ids=["shutdown", "sigkill"])
def test_the_api_recovers_by_itself_after_a_redis_restart(make_app, own_redis, key_prefix, hard):
    app = make_app(REDIS_URL=own_redis.url)
    conn = redis.Redis.from_url(own_redis.url, decode_responses=True)
    with serving(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        table = http.post(
            "/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4, "options": {"target": 1}}
        ).json()
        tid = table["table_id"]
        tokens = [http.post(f"/api/tables/{tid}/seats/{s}/join").json()["token"] for s in range(4)]
        version = play_moves(http, tid, tokens, 10)
        aof_written(conn, own_redis)  # in the file: a SIGKILL of Redis (not of the machine) loses none of it
        own_redis.stop(hard)

        # Redis down: answers are quick problem+json 5xx, never a hang or a stack trace.
        started = time.monotonic()
        down = http.get(f"/api/tables/{tid}")
        # 503 + Retry-After: the outage is temporary, and clients should back off, not give up.
        assert down.status_code == 503 and time.monotonic() - started < 10, down.text
        assert down.json()["type"] == "/problems/store-unavailable" and down.headers["retry-after"] == "1"
        assert down.headers["content-type"].startswith("application/problem+json")
        assert "Traceback" not in down.text

        own_redis.start()
        # The same API process recovers by itself (first request may still see a stale pooled socket).
        deadline = time.monotonic() + 10
        while http.get(f"/api/tables/{tid}").status_code != 200:
            assert time.monotonic() < deadline, "the API did not recover after Redis came back"
            time.sleep(0.2)
        assert http.get(f"/api/tables/{tid}").json()["version"] == version  # nothing lost
        assert table_problems(conn, key_prefix, tid) == []  # nothing half-written

        # Long-poll wake-ups work again (the pub/sub listener re-subscribed): a poll parked after the
        # restart answers as soon as a move lands, not at the end of its wait. The listener reconnects with
        # a back-off of up to 5 s: wait for its subscription rather than guess how long that takes.
        current = http.get(f"/api/tables/{tid}").json()
        http.get(
            f"/api/tables/{tid}/seats/0",
            params={"after": current["version"], "wait": 0.5},
            headers=bearer(tokens[0]),
        )  # a first long-poll starts the listener if it is not running
        deadline = time.monotonic() + 30
        while conn.execute_command("PUBSUB", "NUMPAT") < 1:
            assert time.monotonic() < deadline, "the version listener never re-subscribed"
            time.sleep(0.1)
        waiter_seat = (
            next(s for s in range(4) if s not in current["to_act"])
            if len(current["to_act"]) < 4
            else current["to_act"][-1]
        )
        woke: dict[str, float] = {}

        def long_poll() -> None:
            begun = time.monotonic()
            answer = httpx.get(
                f"{base}/api/tables/{tid}/seats/{waiter_seat}",
                params={"after": current["version"], "wait": 25},
                headers=bearer(tokens[waiter_seat]),
                timeout=30,
            )
            woke["after_s"] = time.monotonic() - begun
            woke["version"] = answer.json()["version"]

        poller = threading.Thread(target=long_poll)
        poller.start()
        watcher = app_watcher(app)
        wait_until(lambda: watcher.waiting == 1, what="the long-poll parked")
        mover = current["to_act"][0]
        state = http.get(f"/api/tables/{tid}/seats/{mover}", headers=bearer(tokens[mover])).json()
        decision = state["view"]["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
        assert (
            http.post(
                f"/api/tables/{tid}/seats/{mover}/moves",
                headers=bearer(tokens[mover]),
                json={"move": move, "expected_version": state["version"]},
            ).status_code
            == 200
        )
        poller.join(timeout=30)
        # Woken by the move (~1 s after parking), not by the end of its 25 s wait, even on a loaded machine.
        assert woke["version"] == current["version"] + 1 and woke["after_s"] < 20, woke

        play_moves(http, tid, tokens, 500)
        replay = http.get(f"/api/tables/{tid}/replay").json()
        assert engine.load(replay).over
        assert table_problems(conn, key_prefix, tid) == []


class GunicornApi:
    """The API as `make run` serves it (gunicorn, gevent), in its own process group, restartable."""

    def __init__(self, redis_url: str, prefix: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "REDIS_URL": redis_url,
            "TA_KEY_PREFIX": prefix,
            "TA_BIND": f"127.0.0.1:{self.port}",
            "TA_WORKERS": "1",
            "TA_LOG_LEVEL": "warning",
            "ALLOW_PRIVATE_BOT_URLS": "true",
        }
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            devserve.gunicorn_command(),
            cwd=REPO_ROOT,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        devserve.wait_healthy(self.url, self.process)

    def kill(self) -> None:
        """SIGKILL master and workers at once: a crash, every open connection cut mid-request."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def gunicorn_api(redis_url: str, key_prefix: str) -> Iterator[GunicornApi]:
    api = GunicornApi(redis_url, key_prefix)
    api.start()
    yield api
    if api.process is not None and api.process.poll() is None:
        api.kill()


@pytest.mark.drill
def test_sdk_polling_clients_resume_after_the_api_is_killed_during_long_polls(
    gunicorn_api, redis_url, key_prefix
):
    from trickarena import ArenaClient, Bot
    from trickarena.poll import play_seat

    class SlowFirstLegal(Bot):
        def choose(self, view):  # noqa: ANN001, ANN201 - SDK signature
            time.sleep(0.03)  # keep the game going long enough to be cut in the middle
            decision = view["decision"]
            return (
                decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
            )

    setup = ArenaClient(gunicorn_api.url)
    table = setup.create_table("spot-hearts", ["open"] * 4, {"target": 1})
    tokens = [setup.join(table.table_id, seat).token for seat in range(4)]
    outcomes: dict[int, object] = {}
    posted: dict[int, list] = {seat: [] for seat in range(4)}

    def seat_loop(seat: int) -> None:
        client = ArenaClient(gunicorn_api.url, retries=10)
        try:
            final = play_seat(
                client,
                table.table_id,
                seat,
                tokens[seat],
                SlowFirstLegal(),
                wait_s=25,
                on_move=lambda state, move: posted[seat].append(move),
            )
            outcomes[seat] = final.over
        except Exception as error:  # reported by the assertion below
            outcomes[seat] = error

    threads = [threading.Thread(target=seat_loop, args=(seat,), daemon=True) for seat in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while setup.table(table.table_id).version < 12:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    gunicorn_api.kill()  # three seats are parked in long-polls, one is deciding or posting
    cut_at = redis.Redis.from_url(redis_url).hget(f"{key_prefix}table:{table.table_id}", "version")
    time.sleep(0.5)
    gunicorn_api.start()
    for thread in threads:
        thread.join(timeout=90)
    assert outcomes == {0: True, 1: True, 2: True, 3: True}, outcomes
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    assert int(cut_at) < conn.llen(f"{key_prefix}table:{table.table_id}:moves")  # the game went on after
    assert table_problems(conn, key_prefix, table.table_id) == []
    replay = ArenaClient(gunicorn_api.url).replay(table.table_id)
    assert engine.load(replay).over
    for seat in range(4):  # every move a client saw accepted is in the log, in order, exactly once
        logged = [same(m["move"]) for m in replay["moves"] if m["seat"] == seat]
        seen = [same(m) for m in posted[seat]]
        assert seen == [m for m in logged if m in seen], seat
        assert 0 <= len(logged) - len(seen) <= 1  # at most the one whose answer the crash swallowed


def same(move: object) -> object:
    return sorted(c.upper() for c in move) if isinstance(move, list) else str(move).upper()


def _python(*args: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, *args],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _logs_of(processes: dict[str, subprocess.Popen], logs: Path) -> str:
    """Each process's state and the tail of its output, for a failure message."""
    parts = []
    for name, process in processes.items():
        tail = (logs / f"{name}.log").read_text(errors="replace")[-1500:]
        parts.append(f"--- {name} (exit {process.poll()}):\n{tail}")
    return "\n".join(parts)


# What each process logs when it finds Redis gone: a worker's RQ loop that ended (arena/workers.py), or an
# idle RQ worker retrying its connection itself (RQ waits 1, 2, 4 ... up to 60 s between tries: the longer the
# outage, the longer it takes to see Redis back), or the scheduler's failed tick (arena/scheduler.py).
WORKER_OUTAGE = ("new worker in", "could not connect to Redis instance")
OUTAGE_LINES = {"house worker": WORKER_OUTAGE, "arena worker": WORKER_OUTAGE,
                "analysis worker": WORKER_OUTAGE, "scheduler": ("tick failed",)}


def _noticed(name: str, logs: Path) -> bool:
    text = (logs / f"{name}.log").read_text(errors="replace")
    return any(line in text for line in OUTAGE_LINES[name])


def test_workers_and_the_scheduler_outlive_a_redis_restart(own_redis, key_prefix, tmp_path):
    """The Procfile's long-running processes (house-bot, arena and analysis workers, arena scheduler) ride out
    a Redis restart by themselves: under honcho, one process exiting stops the whole service."""
    from rq import Queue

    from core.analysis import AnalysisStore, AnalysisSubject
    from core.arena.model import LadderConfig
    from core.arena.store import ArenaStore
    from core.keys import analysis_queue, arena_queue, house_queue
    from core.queues import enqueue_analysis, enqueue_drive
    from core.tables.store import SeatKind, SeatSpec, TableStore

    conn = redis.Redis.from_url(own_redis.url)
    arena = ArenaStore(conn, key_prefix)
    arena.save_ladder(
        LadderConfig(
            "ss3",
            "sore-spot",
            3,
            {"rounds": 1},
            house_bots=("heuristic", "random", "eps-0.5"),
            duplicate=False,
            max_active=2,
        )
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "REDIS_URL": own_redis.url,
        "TA_KEY_PREFIX": key_prefix,
        "TA_ARENA_TICK_S": "0.2",
        # A match the restart interrupts is re-run once its lease lapses (5 s at the 1 s deadline, not the
        # production floor of 10 s), one whose job a worker took just before is stranded after two floors:
        # the ladder then plays on within seconds, however the restart fell, rather than within half a minute.
        "TA_ARENA_MIN_LEASE_S": "1",
    }
    # The commands of the Procfile's worker:, arena:, analysis: and scheduler: lines.
    processes = {
        "house worker": _python(
            "-m", "arena", "worker", "--simple", "--house", env=env, log=tmp_path / "house worker.log"
        ),
        "arena worker": _python(
            "-m", "arena", "worker", "--simple", env=env, log=tmp_path / "arena worker.log"
        ),
        "analysis worker": _python(
            "-m", "arena", "worker", "--simple", "--analysis", env=env, log=tmp_path / "analysis worker.log"
        ),
        "scheduler": _python(
            "-m", "arena", "scheduler", "--no-default-ladders", env=env, log=tmp_path / "scheduler.log"
        ),
    }
    try:
        deadline = time.monotonic() + 60  # four interpreters start on a loaded 2-core machine
        while not arena.recent_matches("ss3"):  # the ladder plays before the fault
            died = [name for name, process in processes.items() if process.poll() is not None]
            assert died == [], f"exited before the restart: {died}\n{_logs_of(processes, tmp_path)}"
            assert time.monotonic() < deadline, (
                f"no match rated before the restart\n{_logs_of(processes, tmp_path)}"
            )
            time.sleep(0.1)
        own_redis.stop(hard=False)
        # Every process has met the outage (its own log says so) before Redis comes back, and no sooner: a
        # short outage keeps the idle workers' own reconnection waits short.
        deadline = time.monotonic() + 60
        while missed := [name for name in processes if not _noticed(name, tmp_path)]:
            died = [name for name, process in processes.items() if process.poll() is not None]
            assert died == [], f"exited when Redis stopped: {died}\n{_logs_of(processes, tmp_path)}"
            assert time.monotonic() < deadline, f"{missed} never noticed\n{_logs_of(processes, tmp_path)}"
            time.sleep(0.1)
        own_redis.start()
        restarted_at = time.time()

        # And they work again: the ladder rates new matches, the house worker drives a new table, the
        # analysis worker analyses a seat of the table once it is over.
        def rated_after_restart() -> bool:
            docs = [arena.match(m) for m in arena.recent_matches("ss3", limit=50)]
            return any(d and d["status"] == "rated" and d.get("finished", 0) > restarted_at for d in docs)

        tables = TableStore(conn, key_prefix)
        table = tables.create_table("sore-spot", 3, {"rounds": 1}, [SeatSpec(SeatKind.HOUSE, "random")] * 3)
        enqueue_drive(Queue(house_queue(key_prefix), connection=conn), table.table_id, key_prefix)
        # The slowest path back: a worker's restart backoff (at most 10 s), a lapsed lease (5 s) or a stranded
        # job (2 s), and a match played on a loaded machine; 90 s is several times that.
        deadline = time.monotonic() + 90
        while not (rated_after_restart() and tables.load_table(table.table_id).over):
            died = [name for name, process in processes.items() if process.poll() is not None]
            assert died == [], f"exited after Redis restarted: {died}\n{_logs_of(processes, tmp_path)}"
            assert time.monotonic() < deadline, f"no work after the restart\n{_logs_of(processes, tmp_path)}"
            time.sleep(0.2)
        analyses = AnalysisStore(conn, key_prefix)
        subject = AnalysisSubject.for_table(table.table_id, seat=0, budget_ms=10)
        analyses.request(subject, owner="127.0.0.1")
        enqueue_analysis(Queue(analysis_queue(key_prefix), connection=conn), subject.key, key_prefix)
        while (analyses.get(subject) or {}).get("status") != "done":
            assert time.monotonic() < deadline + 30, f"no analysis after the restart: {analyses.get(subject)}"
            time.sleep(0.2)
        assert Queue(arena_queue(key_prefix), connection=conn).connection.ping()
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)

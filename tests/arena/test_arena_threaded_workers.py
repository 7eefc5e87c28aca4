"""`python -m arena worker --max-in-flight N`: several matches in flight in one process, real Redis and bots.

Each match is still one RQ job; these check what must survive running them side by side: per-call
deadlines (a slow match does not eat a sibling's), the re-run and exactly-once rating of every match of a
SIGKILLed process, and SIGTERM giving every match in flight back.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import Any

import pytest
import redis
from rq import Queue

from arena.botclient import ClientPool
from arena.scheduler import Scheduler
from core import keys
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from core.queues import enqueue_match
from core.settings import Settings
from devstack import devserve
from devstack.fastbot import INFO as FASTBOT_INFO
from tests.arena.test_arena_workers import HOUSE
from tests.conftest import serving, stop_worker
from tests.scenarios import match_spec
from tests.waiting import wait_until


@pytest.fixture
def arena_worker(arena_process: Callable[..., subprocess.Popen]) -> Callable[[int], subprocess.Popen]:
    """Factory: arena_worker(n) runs `python -m arena worker --max-in-flight N` for the rest of the test."""
    short_leases = {"TA_ARENA_MIN_LEASE_S": "1"}
    return lambda n: arena_process("worker", "--max-in-flight", str(n), env=short_leases)


def make_match(store: ArenaStore, prefix: str, name: str, http: Member, seed: int, deadline_ms: int,
               house: tuple[str, ...] = HOUSE[:3]) -> MatchSpec:
    entrants = [http, *(Member.house(n) for n in house)]
    spec = match_spec(f"{prefix}{name}".replace(":", "-"), entrants, seed=seed, duplicate=True,
                      deadline_ms=deadline_ms)
    store.create_match(spec)
    return spec


@pytest.fixture
def arena(redis_url: str, key_prefix: str) -> tuple[ArenaStore, Queue, LadderConfig]:
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], deadline_ms=1000,
                          max_active=4)
    store.save_ladder(ladder)
    return store, Queue(keys.arena_queue(key_prefix), connection=conn), ladder


def moves(bot: Any) -> int:
    return sum(r.endswith("/move") for r in bot.requests)


@pytest.mark.drill
def test_a_slow_match_does_not_eat_the_deadline_of_a_match_beside_it(arena, key_prefix, arena_worker,
                                                                    bot_process) -> None:
    store, queue, ladder = arena
    # Every /move of the first bot takes 3 s against a 1 s deadline: five timeouts, then a forfeit.
    stuck = make_match(store, key_prefix, "stuck", Member("stuck", MemberKind.HTTP,
                                                          url=bot_process("sleep", delay_s=3.0)), 1, 1000)
    fine = make_match(store, key_prefix, "fine", Member("fine", MemberKind.HTTP, url=bot_process("good")), 2,
                      1000)
    worker = arena_worker(2)
    enqueue_match(queue, stuck, ladder, key_prefix)
    wait_until(lambda: store.match(stuck.match_id)["status"] == MatchStatus.RUNNING, 30,
             "the stuck match to start")
    enqueue_match(queue, fine, ladder, key_prefix)
    wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RATED for s in (stuck, fine)), 60,
             "both matches rated")
    stuck_doc, fine_doc = store.match(stuck.match_id), store.match(fine.match_id)
    # Side by side: the good bot's whole match was played while the stuck one waited on its timeouts.
    assert fine_doc["started"] < stuck_doc["finished"] and fine_doc["finished"] < stuck_doc["finished"]
    assert fine_doc["result"]["strikes"] == [] and fine_doc["result"]["forfeited"] == []
    strikes = stuck_doc["result"]["strikes"]
    assert [s["reason"] for s in strikes] == ["timeout"] * 5 and stuck_doc["result"]["forfeited"] == ["stuck"]
    stats = store.stats("ss", ["stuck", "fine"])
    assert stats["fine"]["strikes"] == 0 and stats["stuck"]["strikes"] == 5
    assert worker.poll() is None, worker.output()


class GateBot:
    """A protocol-v1 bot whose every /move waits at a gate: the gate opens once `wanted` requests wait at
    once. One match asks one decision at a time, so that many waiting requests are that many matches in
    flight side by side, counted as an event rather than read off clocks. `peak` is the most that waited."""

    def __init__(self, wanted: int) -> None:
        self.wanted, self.waiting, self.peak = wanted, 0, 0
        self.lock = threading.Lock()
        self.gate = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if environ["REQUEST_METHOD"] == "GET" or not environ["PATH_INFO"].endswith("/move"):
            body = FASTBOT_INFO if environ["REQUEST_METHOD"] == "GET" else b"{}"
        else:
            request = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
            with self.lock:
                self.waiting += 1
                self.peak = max(self.peak, self.waiting)
                if self.waiting >= self.wanted:
                    self.gate.set()
            self.gate.wait(timeout=GATE_WAIT_S)  # never the gate: answer anyway, and the test fails on peak
            with self.lock:
                self.waiting -= 1
            decision, legal = request["decision"], request["legal"]
            move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]
            body = json.dumps({"move": move}).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]


GATE_WAIT_S = 30.0


def test_a_pool_worker_runs_several_matches_at_once(arena, key_prefix, arena_worker) -> None:
    """Four matches, one worker process of at most four in flight (it starts with two), a gate bot in
    every match that answers nobody until three matches wait on it at once: the pool grows, the gate opens,
    and every match is rated without a strike (each deadline, 40 s, outlasts the gate's longest wait)."""
    store, queue, ladder = arena
    gate = GateBot(wanted=3)
    with serving(gate) as url:
        specs = [make_match(store, key_prefix, f"gated{i}", Member(f"gated{i}", MemberKind.HTTP, url=url),
                            60 + i, 40_000) for i in range(4)]
        worker = arena_worker(4)
        for spec in specs:
            enqueue_match(queue, spec, ladder, key_prefix)
        wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RATED for s in specs), 120,
                 "every match rated")
    assert gate.gate.is_set() and gate.peak >= 3, gate.peak
    assert [store.match(s.match_id)["result"]["strikes"] for s in specs] == [[]] * 4
    assert worker.poll() is None, worker.output()


@pytest.mark.drill
def test_a_pool_worker_plays_matches_with_slow_bots_side_by_side_without_a_strike(arena, key_prefix,
                                                                                     arena_worker) -> None:
    """Eight matches, every seat a bot 50 ms away (a bench bot in a process of its own), one worker process
    of eight in flight: no compliant bot gets a strike however busy the process, at a deadline of real slack
    (5 s: a loaded machine must not turn a made decision into a late one; the test above shows the pool
    runs matches side by side, and the arena's bench measures how fast)."""
    from devstack.fastbot import start_fast_bots

    store, queue, ladder = arena
    bots, urls = start_fast_bots(4, delay_ms=50)
    try:
        specs = []
        for i in range(8):
            entrants = [Member(f"b{i}s{seat}", MemberKind.HTTP, url=url) for seat, url in enumerate(urls)]
            spec = match_spec(f"{key_prefix}side{i}".replace(":", "-"), entrants, seed=40 + i,
                              deadline_ms=5000)
            store.create_match(spec)
            specs.append(spec)
        worker = arena_worker(8)
        for spec in specs:
            enqueue_match(queue, spec, ladder, key_prefix)
        wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RATED for s in specs), 120,
                 "every match rated")
    finally:
        bots.terminate()
    docs = [store.match(s.match_id) for s in specs]
    assert [d["result"]["strikes"] for d in docs] == [[]] * 8
    assert len({store.match(s.match_id)["worker"] for s in specs}) > 1  # several pool workers took matches
    assert worker.poll() is None, worker.output()


@pytest.mark.drill
def test_sigkilled_worker_with_several_matches_in_flight_has_each_rerun_and_rated_once(
        arena, key_prefix, arena_worker, bot_server) -> None:
    store, queue, ladder = arena
    slow = bot_server("sleep", delay_s=0.04)  # 40 ms a decision: each match lasts a few seconds
    http = [Member(f"slow{i}", MemberKind.HTTP, url=slow.url) for i in range(4)]
    specs = [make_match(store, key_prefix, f"kill{i}", http[i], 10 + i, 1000) for i in range(4)]
    for spec in specs:
        enqueue_match(queue, spec, ladder, key_prefix)
    doomed = arena_worker(4)
    wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RUNNING for s in specs)
             and moves(slow) >= 12, 30, "four matches under way in one process")
    holders = {store.lease_holder(s.match_id) for s in specs}
    assert len(holders) == 4 and all(h and h.endswith(f":{doomed.pid}") for h in holders)  # 4 workers, 1 pid
    doomed.kill()  # SIGKILL with four matches in flight
    doomed.wait()
    assert all(store.match(s.match_id)["status"] == MatchStatus.RUNNING for s in specs)
    assert set(store.ratings("ss").values()) <= {1500.0}

    arena_worker(4)
    scheduler = Scheduler(store, queue, Settings("unused", key_prefix, True))
    counts = {"requeued": 0, "aborted": 0}

    def all_rated() -> bool:
        scheduler.recover(ladder, counts)
        return all(store.match(s.match_id)["status"] == MatchStatus.RATED for s in specs)

    wait_until(all_rated, 90, "every match re-run and rated")  # lease 5 s + a re-run each, loaded machine
    assert counts == {"requeued": 4, "aborted": 0}
    expected = {m.bot_id: 1500.0 for s in specs for m in s.entrants}
    games = dict.fromkeys(expected, 0)
    for spec in specs:
        doc = store.match(spec.match_id)
        assert doc["attempts"] == 2 and "lease expired" in doc["requeued_because"]
        assert doc["result"]["seed"] == spec.for_attempt(2).seed != spec.seed  # fresh deals
        for bot, delta in doc["result"]["deltas"].items():
            expected[bot] += delta
            games[bot] += 1
    ratings = store.ratings("ss")
    stats = store.stats("ss", list(expected))
    for bot in expected:  # each match counted once: house bots played all four, each slow bot one
        assert stats[bot]["matches"] == games[bot], bot
        assert ratings[bot] == pytest.approx(expected[bot]), bot
        assert len(store.history("ss", bot, limit=100)) == games[bot], bot


def test_sigterm_gives_back_every_match_in_flight(arena, key_prefix, arena_worker, bot_server) -> None:
    store, queue, ladder = arena
    slow = bot_server("sleep", delay_s=0.05)
    specs = [make_match(store, key_prefix, f"term{i}", Member(f"slow{i}", MemberKind.HTTP, url=slow.url),
                        20 + i, 1000) for i in range(3)]
    for spec in specs:
        enqueue_match(queue, spec, ladder, key_prefix)
    worker = arena_worker(4)  # room for one more than the matches: an idle worker must stop too
    wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RUNNING for s in specs)
             and moves(slow) >= 9, 30, "three matches under way")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=20) == 0, worker.output()
    text = worker.output()
    assert "Traceback" not in text, text
    for spec in specs:
        doc = store.match(spec.match_id)
        assert doc["status"] == MatchStatus.QUEUED and doc["stopped"] == 1 and doc["attempts"] == 1, doc
        assert doc["requeued_because"].startswith("worker stopped"), doc
        assert store.lease_holder(spec.match_id) is None and not store.is_applied(spec.match_id)
    assert set(store.ratings("ss").values()) <= {1500.0}
    from rq import Worker

    assert [w for w in Worker.all(queue=queue) if w.state != "dead"] == []  # every worker of the pool left


def test_client_pool_never_hands_one_client_to_two_matches_and_keeps_given_back_ones() -> None:
    pool = ClientPool(idle_per_url=1)
    url = "http://127.0.0.1:9"
    with pool.lease([url, url], True) as first, pool.lease([url], True) as second:
        assert len(first) == 1 and first[url] is not second[url]  # two matches at once: two clients
        kept = second[url]  # given back first (the inner block ends first): the one kept
    assert pool.idle_count() == 1  # one kept for the next match, the other closed
    with pool.lease([url], True) as third:
        assert third[url] is kept
    with pool.lease([url], False) as other:  # allow_private is part of the key
        assert other[url] is not kept


def test_admission_takes_no_new_match_while_the_process_lags_but_always_runs_one() -> None:
    from arena.workers import Admission, admits

    assert admits(running=0, lag_s=2.0, max_lag_s=0.01)  # an idle process always takes a match
    assert admits(running=40, lag_s=0.01, max_lag_s=0.01)  # keeping up: another one
    assert not admits(running=1, lag_s=0.011, max_lag_s=0.01)  # lagging: none until the lag falls
    admission = Admission(max_lag_s=0.01)
    assert admission.may_take()
    admission.lag_s = 0.5  # the process wakes up half a second late: saturated
    assert admission.may_take()  # ... but with nothing running, one match is always taken
    admission.started()
    assert not admission.may_take()
    admission.lag_s = 0.002
    assert admission.may_take()
    admission.ended()
    assert admission.running == 0


def test_admission_takes_no_new_match_past_the_memory_budget() -> None:
    from arena.workers import MATCH_BYTES, Admission, resident_bytes

    assert resident_bytes() > 10 * 2**20  # this interpreter's own RSS, read from /proc
    admission = Admission(max_lag_s=0.01, memory_bytes=100 * 2**20)
    admission.started()
    admission.rss_bytes = 100 * 2**20 - MATCH_BYTES  # room for exactly one more match
    assert admission.may_take()
    admission.rss_bytes += 1
    assert not admission.may_take()
    admission.ended()
    assert admission.may_take()  # at the budget with nothing running: one match always runs


def test_a_pool_grows_only_while_every_worker_plays_a_match_and_admission_allows(redis_conn) -> None:
    from arena.workers import Admission, WorkerPool

    pool = WorkerPool(["q"], redis_conn, max_in_flight=3, admission=Admission(max_lag_s=0.01))
    pool._alive = 2  # two workers, standing in for started pool workers
    admission = pool.admission
    admission.idle = 1
    assert not pool.wants_another()  # one waits for a job
    admission.idle, admission.running = 0, 1
    assert not pool.wants_another()  # one is neither playing nor waiting (a lost Redis): no growth
    admission.running = 2
    assert pool.wants_another()  # both play: one more
    admission.starting = 1
    assert not pool.wants_another()  # ... unless one is already on its way
    admission.starting, admission.lag_s = 0, 0.05
    assert not pool.wants_another()  # the process lags: none
    admission.lag_s = 0.0
    pool._alive, admission.running = 3, 3
    assert not pool.wants_another()  # at its ceiling


def test_settling_after_a_new_match_is_short_while_idle_and_full_near_the_lag_ceiling() -> None:
    from arena.workers import settle_time

    assert settle_time(0.0, 0.01, 0.05) == 0.005
    assert settle_time(0.01, 0.01, 0.05) == 0.05
    assert settle_time(1.0, 0.01, 0.05) == 0.05


def test_a_worker_that_ran_a_while_before_failing_restarts_after_the_shortest_delay() -> None:
    from arena.workers import RESTART_MAX_S, RESTART_MIN_S, STEADY_S, restart_delay

    delays: list[float] = []
    delay = None
    for _ in range(8):  # an outage: every new worker fails at once
        delay = restart_delay(delay, lived_s=0.01)
        delays.append(delay)
    assert delays[:3] == [RESTART_MIN_S, 2 * RESTART_MIN_S, 4 * RESTART_MIN_S]
    assert delays[-1] == RESTART_MAX_S and max(delays) == RESTART_MAX_S  # doubling, capped
    # Redis came back and the worker ran for a while: the next outage starts from the shortest delay again.
    assert restart_delay(delay, lived_s=STEADY_S) == RESTART_MIN_S
    assert restart_delay(delay, lived_s=STEADY_S - 1) == RESTART_MAX_S  # still the same outage


@pytest.mark.drill
def test_pool_workers_started_before_their_redis_wait_for_it_and_then_serve(tmp_path, key_prefix,
                                                                           arena_process) -> None:
    """Each pool worker's new RQ worker names itself to Redis: while Redis is not there (not up yet, or gone
    in an outage), the worker waits and tries again instead of ending, the pool does not grow (no worker
    plays a match), and the workers serve once Redis answers."""
    from rq import Worker

    from arena.workers import START_WORKERS
    from devstack.devredis import free_port, server_args, wait_ready

    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    worker = arena_process("worker", "--max-in-flight", "8", env={"REDIS_URL": url})  # a Redis not there yet
    server = None
    try:
        wait_until(lambda: all(f"worker {i} lost Redis" in worker.output() for i in range(START_WORKERS)),
                   timeout=30, what="every starting pool worker failing to reach Redis, at least once")
        assert worker.poll() is None, "the worker exited while Redis was not there"
        assert f"worker {START_WORKERS} " not in worker.output()  # nothing played: the pool did not grow
        server = subprocess.Popen(server_args(port, tmp_path, persistent=False), stdout=subprocess.DEVNULL)
        wait_ready(url)
        conn = redis.Redis.from_url(url)
        queue = Queue(keys.arena_queue(key_prefix), connection=conn)
        wait_until(lambda: len(Worker.all(queue=queue)) == START_WORKERS, timeout=30,
                   what="the pool's starting RQ workers")
    finally:
        stop_worker(worker)  # before its Redis: a warm stop needs it
        if server is not None:
            devserve.stop(server, timeout=10)

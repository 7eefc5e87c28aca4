"""Real RQ worker processes on a real Redis: many concurrent matches rated exactly once; SIGKILL recovery."""

from __future__ import annotations

import random

import pytest
import redis
from rq import Queue

from arena.scheduler import Scheduler
from core import keys
from core.arena.model import LadderConfig, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from core.queues import enqueue_match
from core.settings import Settings
from tests.scenarios import match_spec
from tests.waiting import wait_until

HOUSE = ("heuristic", "eps-0.2", "eps-0.4", "eps-0.6", "eps-0.8", "random")
WORKER_ENV = {"ALLOW_PRIVATE_BOT_URLS": "1", "TA_ARENA_MIN_LEASE_S": "1"}


@pytest.fixture
def conn(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


def test_two_workers_rate_fifty_overlapping_matches_exactly_once(conn, key_prefix, rq_worker, bot_server):
    store = ArenaStore(conn, key_prefix)
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, deadline_ms=500)
    store.save_ladder(ladder)
    queue = Queue(keys.arena_queue(key_prefix), connection=conn)
    # Two good HTTP bots and two hostile ones (garbage JSON, 10 MB answers): workers must shrug them off.
    http_bots = [Member(f"http{i}", MemberKind.HTTP, url=bot_server(kind).url)
                 for i, kind in enumerate(("good", "good", "garbage", "huge"))]
    pool = [Member.house(n) for n in HOUSE] + http_bots
    rng = random.Random(4)
    specs = []
    for i in range(50):
        entrants = rng.sample(pool, 4)
        spec = match_spec(f"{key_prefix}m{i}".replace(":", "-"), entrants, seed=i, duplicate=i % 2 == 0,
                          deadline_ms=2000)
        store.create_match(spec)
        specs.append(spec)
    for spec in specs:
        enqueue_match(queue, spec, ladder, key_prefix)
        # The same match a second time under another job id: a duplicate run must not rate twice.
        queue.enqueue_call("arena.jobs.run_match", args=(spec.match_id, key_prefix),
                           job_id=f"{spec.match_id}-again")
    workers = [rq_worker(queue.name, WORKER_ENV) for _ in range(2)]
    wait_until(lambda: all(store.match(s.match_id)["status"] == MatchStatus.RATED for s in specs), 120,
               "all 50 matches rated")
    wait_until(lambda: queue.count == 0, what="the queue drained")
    assert all(w.poll() is None for w in workers)  # both still alive: no bot could crash a worker
    expected_rating: dict[str, float] = {m.bot_id: 1500.0 for m in pool}
    expected_games: dict[str, int] = {m.bot_id: 0 for m in pool}
    for spec in specs:
        result = store.match(spec.match_id)["result"]
        for bot, delta in result["deltas"].items():
            expected_rating[bot] += delta
            expected_games[bot] += 1
    ratings = store.ratings("ss")
    stats = store.stats("ss", list(expected_games))
    for bot in expected_games:
        assert stats[bot]["matches"] == expected_games[bot], bot
        assert ratings[bot] == pytest.approx(expected_rating[bot]), bot
        assert len(store.history("ss", bot, limit=1000)) == expected_games[bot]
    assert len(store.recent_matches("ss", limit=100)) == 50
    assert stats["http0"]["move_calls"] > 0 and stats["http0"]["mean_latency_ms"] > 0
    assert stats["http0"]["strikes"] == 0
    for hostile in ("http2", "http3"):  # five strikes and a forfeit in every match they played
        assert stats[hostile]["strikes"] == 5 * expected_games[hostile] > 0
        assert stats[hostile]["forfeits"] == expected_games[hostile]


@pytest.mark.drill
def test_sigkilled_worker_costs_no_rating_and_the_match_is_rerun(conn, key_prefix, rq_worker, bot_server):
    store = ArenaStore(conn, key_prefix)
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], deadline_ms=1000,
                          max_active=1)
    store.save_ladder(ladder)
    queue = Queue(keys.arena_queue(key_prefix), connection=conn)
    slow = bot_server("sleep", delay_s=0.04)  # every decision takes 40 ms: the match lasts about 2 s
    entrants = [Member("slow", MemberKind.HTTP, url=slow.url), *(Member.house(n) for n in HOUSE[:3])]
    spec = match_spec(f"{key_prefix}kill".replace(":", "-"), entrants, seed=3, duplicate=True)
    store.create_match(spec)
    enqueue_match(queue, spec, ladder, key_prefix)

    doomed = rq_worker(queue.name, WORKER_ENV)
    wait_until(lambda: sum(r.endswith("/move") for r in slow.requests) >= 5, 20, "the match to be under way")
    doomed.kill()  # SIGKILL mid-match
    doomed.wait()
    calls_at_kill = sum(r.endswith("/move") for r in slow.requests)
    assert store.match(spec.match_id)["status"] == MatchStatus.RUNNING
    assert set(store.ratings("ss").values()) == {1500.0}

    rq_worker(queue.name, WORKER_ENV)
    scheduler = Scheduler(store, queue, Settings("unused", key_prefix, True))
    counts = {"requeued": 0, "aborted": 0}

    def rated() -> bool:
        scheduler.recover(ladder, counts)
        return store.match(spec.match_id)["status"] == MatchStatus.RATED

    wait_until(rated, 60, "the match re-run and rated")  # lease (5 s) + a tick + a re-run, loaded machine
    doc = store.match(spec.match_id)
    assert counts == {"requeued": 1, "aborted": 0}
    assert doc["attempts"] == 2 and "lease expired" in doc["requeued_because"]
    # Re-run from scratch: the whole match was played again (4 games x 13 decisions for the slow bot)...
    assert sum(r.endswith("/move") for r in slow.requests) >= calls_at_kill + 52
    # ... on fresh deals: the killed run had shown the bots cards of the first ones.
    rerun_seed = spec.for_attempt(2).seed
    assert doc["result"]["seed"] == rerun_seed != spec.seed
    rerun = spec.for_attempt(2)  # every game on a deal of the re-run, none of the dead run's
    assert [record["seed"] for record in store.match_games(spec.match_id)] == [
        rerun.game_seed(g) for g in range(rerun.games)]
    assert not {record["seed"] for record in store.match_games(spec.match_id)} & {
        spec.game_seed(g) for g in range(spec.games)}
    stats = store.stats("ss", [m.bot_id for m in entrants])
    assert all(s["matches"] == 1 for s in stats.values())
    ratings = store.ratings("ss")
    for bot, delta in doc["result"]["deltas"].items():
        assert ratings[bot] == pytest.approx(1500.0 + delta)


@pytest.mark.drill
def test_a_crashing_match_is_retried_then_lands_in_the_failed_registry_and_is_aborted(
        conn, key_prefix, rq_worker) -> None:
    from rq.registry import FailedJobRegistry

    store = ArenaStore(conn, key_prefix)
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1)
    store.save_ladder(ladder)
    queue = Queue(keys.arena_queue(key_prefix), connection=conn)
    entrants = [Member.house(n) for n in HOUSE[:4]]
    # Options the engine refuses (rounds = -7, stored without validation): every run raises inside the job,
    # as a bug or a Redis failure would.
    spec = match_spec(f"{key_prefix}crash".replace(":", "-"), entrants, options={"rounds": -7},
                      deadline_ms=200)
    store.create_match(spec)
    enqueue_match(queue, spec, ladder, key_prefix)
    rq_worker(queue.name, WORKER_ENV)
    failed = FailedJobRegistry(queue=queue)
    wait_until(lambda: spec.match_id in failed.get_job_ids(), 30, "the job to exhaust its retries")
    assert store.match(spec.match_id)["attempts"] == 3  # the first run + Retry(max=2)
    scheduler = Scheduler(store, queue, Settings("unused", key_prefix, True))
    counts = {"requeued": 0, "aborted": 0}
    wait_until(lambda: (scheduler.recover(ladder, counts), counts["aborted"] == 1)[1], 30,
             "the scheduler to abort the match once its lease lapsed")
    assert counts["requeued"] == 0
    assert store.match(spec.match_id)["status"] == MatchStatus.ABORTED
    assert set(store.ratings("ss").values()) == {1500.0}


@pytest.mark.parametrize("flags", [["--simple", "--house"], ["--simple", "--analysis", "--nice", "0"], []])
def test_a_one_job_worker_holds_no_pubsub_connection_and_stops_at_once(conn, redis_url, key_prefix, flags):
    """A process manager gives a stopping worker a few seconds (honcho 5): RQ's pub/sub listener, which only
    carries RQ's remote commands, could hold the stop for up to a minute, so these workers run without it."""
    import os
    import signal
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix}
    for _ in range(3):
        before = {c["id"] for c in conn.client_list()}
        process = subprocess.Popen([sys.executable, "-m", "arena", "worker", "--threads", "1", *flags],
                                   cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            def listening(before: set[str] = before) -> bool:
                return any(c["id"] not in before and c["cmd"] in ("blpop", "brpop", "blmove")
                           for c in conn.client_list())

            wait_until(listening, what="the worker waiting on its queue")
            subscribers = [c for c in conn.client_list() if c["id"] not in before and int(c["sub"]) > 0]
            assert subscribers == [], subscribers
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=4) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

"""Scheduler: member sync from the registry, matchmaking, health pausing, recovery; the real processes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import JobStatus
from rq.utils import now as rq_now

from arena.jobs import check_bot_health
from arena.scheduler import MAX_ATTEMPTS, Scheduler, health_interval
from core import keys
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, MemberKind
from core.arena.registry import BotRegistry
from core.arena.store import ArenaStore
from core.queues import enqueue_match
from core.settings import Settings
from tests.waiting import wait_until

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def setup(redis_url: str, key_prefix: str):
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    queue = Queue(keys.arena_queue(key_prefix), connection=conn)
    scheduler = Scheduler(store, queue, Settings(redis_url, key_prefix, True, health_every_s=3600))
    registry = BotRegistry(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix,
                           allow_private_urls=True)
    return store, queue, scheduler, registry


def test_registered_bot_joins_and_is_picked_first(setup, bot_server) -> None:
    store, queue, scheduler, registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1))
    # House bots already have games; the newcomer has none.
    for bot in HOUSE:
        store.redis.hset(keys.arena_stats(store.prefix, "ss", f"house:{bot}"), "matches", 30)
    record, _token = registry.register("newcomer", ["sore-spot"], bot_server("good").url)
    registry.register("other-game", ["spot-hearts"], bot_server("good").url)
    assert scheduler.tick()["health_checks"] == 1  # a new bot is checked at once, and seated once it answers
    assert record["bot_id"] not in _entrants(store, "ss")
    assert check_bot_health(store, record["bot_id"], record["url"], allow_private=True)["ok"]
    store.abort_match("ss", store.active_matches("ss")[0], "test")  # the house-only table of that tick
    counts = scheduler.tick()
    assert counts["created"] == 1
    members = {m.bot_id: m for m in store.members("ss")}
    assert members[record["bot_id"]].kind is MemberKind.HTTP
    assert len(members) == len(HOUSE) + 1  # the spot-hearts bot is not on this ladder
    [match_id] = store.active_matches("ss")
    entrants = [m["bot_id"] for m in store.match(match_id)["spec"]["entrants"]]
    assert record["bot_id"] in entrants
    assert 0 <= store.match(match_id)["spec"]["seed"] < 2**53  # exact as a JSON number once published
    assert queue.fetch_job(match_id) is not None  # job id = match id
    # A full ladder (max_active reached) gets no more matches; busy bots are not double-booked.
    assert scheduler.tick()["created"] == 0


def test_disabled_bot_leaves_and_paused_bot_is_not_matched(setup, bot_server) -> None:
    store, _queue, scheduler, registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    down = bot_server("down_info")
    record, token = registry.register("flaky", ["sore-spot"], down.url)
    bot_id = record["bot_id"]
    for _ in range(3):
        report = check_bot_health(store, bot_id, down.url, timeout_s=1.0, allow_private=True)
    assert report["paused"] is True and report["outcome"] == "http_status"
    # With private URLs disallowed the same loopback bot fails its check before any connection.
    assert check_bot_health(store, bot_id, down.url, allow_private=False)["outcome"] == "unsafe_address"
    assert scheduler.tick()["created"] == 0  # 3 house bots + a paused bot cannot fill a 4-seat table
    registry.update(bot_id, token, {"url": bot_server("good").url})
    assert check_bot_health(store, bot_id, registry.get(bot_id)["url"], allow_private=True)["paused"] is False
    assert scheduler.tick()["created"] == 1
    registry.update(bot_id, token, {"enabled": False})
    scheduler.sync_members(store.ladder("ss"))
    assert bot_id not in {m.bot_id for m in store.members("ss")}


def _one_match(store: ArenaStore, scheduler: Scheduler) -> tuple[LadderConfig, str]:
    """A one-table house ladder and the match its first tick creates."""
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1)
    store.save_ladder(ladder)
    scheduler.tick()
    [match_id] = store.active_matches("ss")
    return ladder, match_id


def test_lost_job_is_requeued_then_aborted_after_max_attempts(setup) -> None:
    store, queue, scheduler, _registry = setup
    ladder, match_id = _one_match(store, scheduler)
    queue.empty()
    store.redis.delete(f"rq:job:{match_id}")  # the job vanished (e.g. Redis lost it)
    counts = {"requeued": 0, "aborted": 0}
    scheduler.recover(ladder, counts)
    assert counts == {"requeued": 1, "aborted": 0}
    assert queue.fetch_job(match_id) is not None
    # A match whose worker keeps dying: after MAX_ATTEMPTS starts it is aborted, and nobody is rated.
    store.update_match(match_id, status=MatchStatus.RUNNING, attempts=MAX_ATTEMPTS)
    scheduler.recover(ladder, counts)
    assert counts["aborted"] == 1
    assert store.match(match_id)["status"] == MatchStatus.ABORTED
    assert store.active_matches("ss") == [] and store.recent_matches("ss") == [match_id]
    assert set(store.ratings("ss").values()) == {1500.0}


def test_a_match_given_back_by_a_stopping_worker_is_requeued_without_using_an_attempt(
        setup, monkeypatch) -> None:
    from arena import runtime, workers

    store, queue, scheduler, _registry = setup
    ladder, match_id = _one_match(store, scheduler)
    start_attempt = ArenaStore.start_attempt

    def start_then_stop(self: ArenaStore, *args: Any, **kwargs: Any) -> Any:
        started = start_attempt(self, *args, **kwargs)
        runtime.STOPPING.set()  # what the worker's first SIGTERM does, once the match is under way
        return started

    monkeypatch.setattr(ArenaStore, "start_attempt", start_then_stop)
    try:
        workers.ArenaSimpleWorker([queue], connection=queue.connection).work(burst=True, with_scheduler=False)
    finally:
        runtime.STOPPING.clear()
    doc = store.match(match_id)
    assert doc["status"] == MatchStatus.QUEUED and doc["stopped"] == 1 and doc["attempts"] == 1
    # Stopped after its first decision: the four seats' sore suits, chosen at once (4 moves).
    assert doc["requeued_because"].startswith("worker stopped (stopped at move 4 of game 0)")
    assert store.lease_holder(match_id) is None and not store.is_applied(match_id)
    assert queue.fetch_job(match_id).get_status() == "finished"  # RQ saw a clean job, no failure
    # Given back as often as the service is stopped: never aborted for that, always queued again.
    store.update_match(match_id, attempts=MAX_ATTEMPTS + 1, stopped=MAX_ATTEMPTS)
    counts = {"requeued": 0, "aborted": 0}
    scheduler.recover(ladder, counts)
    assert counts == {"requeued": 1, "aborted": 0}
    assert queue.fetch_job(match_id).get_status() == "queued"
    assert store.match(match_id)["requeued_because"] == "worker stopped"


def test_a_stopping_worker_starts_no_match_it_is_given(setup) -> None:
    """Enqueued again just as a stopping worker gave it back, a match is left queued, no attempt used."""
    from arena import runtime, workers

    store, queue, scheduler, _registry = setup
    ladder, match_id = _one_match(store, scheduler)
    runtime.STOPPING.set()
    try:
        workers.ArenaSimpleWorker([queue], connection=queue.connection).work(burst=True, with_scheduler=False)
    finally:
        runtime.STOPPING.clear()
    doc = store.match(match_id)
    assert doc["status"] == MatchStatus.QUEUED and doc["attempts"] == 0 and doc.get("stopped", 0) == 0
    assert store.lease_holder(match_id) is None
    counts = {"requeued": 0, "aborted": 0}
    scheduler.recover(ladder, counts)  # the finished job of a queued match: enqueued again
    assert counts == {"requeued": 1, "aborted": 0}
    assert queue.fetch_job(match_id).get_status() == "queued"


def test_scheduler_and_worker_processes_keep_a_ladder_playing(redis_url, key_prefix, arena_process) -> None:
    """What `make run` starts: `python -m arena scheduler` + `python -m arena worker`, nothing else."""
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=("heuristic", "eps-0.2",
                                   "eps-0.5", "eps-0.8", "random"), max_active=1, house_only_gap_s=0.1))
    procs = [arena_process(*args, env={"TA_ARENA_TICK_S": "0.2"})
             for args in (["scheduler", "--no-default-ladders"], ["worker", "--simple"])]
    wait_until(lambda: len(store.recent_matches("ss")) >= 5, timeout=60, what="five matches played")
    for proc in procs:  # a warm stop: the worker finishes and rates the match it is playing
        proc.terminate()
        proc.wait(timeout=30)
    recent = store.recent_matches("ss")
    assert len(recent) >= 5
    assert all(store.match(m)["status"] == MatchStatus.RATED for m in recent)
    stats = store.stats("ss", [b for b, _ in store.ranked("ss")])
    assert sum(s["matches"] for s in stats.values()) == 4 * len(recent)


def test_house_only_matches_are_paced_but_registered_bots_are_not(setup, bot_server) -> None:
    store, _queue, scheduler, registry = setup
    eight = ("heuristic", "eps-0.1", "eps-0.2", "eps-0.3", "eps-0.4", "eps-0.5", "eps-0.6", "random")
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=eight, max_active=2,
                                   house_only_gap_s=60))
    assert scheduler.tick()["created"] == 1  # the second house-only table must wait for the gap
    eager, _ = registry.register("eager", ["sore-spot"], bot_server("good").url)
    assert check_bot_health(store, eager["bot_id"], eager["url"], allow_private=True)["ok"]
    assert scheduler.tick()["created"] == 1  # a table with a registered bot goes at once
    assert len(store.active_matches("ss")) == 2


def test_add_ladder_command_creates_a_ladder(redis_url, key_prefix, monkeypatch) -> None:
    from click.testing import CliRunner

    from arena.__main__ import main

    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("TA_KEY_PREFIX", key_prefix)
    runner = CliRunner()
    result = runner.invoke(main, ["add-ladder", "--id", "ss5", "--game", "sore-spot", "--players", "5",
                                  "--options", '{"rounds": 2}', "--house-bots", "heuristic,random,eps-0.5"])
    assert result.exit_code == 0, result.output
    ladder = ArenaStore(redis.Redis.from_url(redis_url), key_prefix).ladder("ss5")
    assert ladder.players == 5 and ladder.duplicate is False and ladder.options["rounds"] == 2
    bad = runner.invoke(main, ["add-ladder", "--id", "x", "--game", "spot-hearts", "--players", "5"])
    assert bad.exit_code != 0 and "players" in bad.output.lower()


def test_each_tick_keeps_only_the_configured_number_of_match_documents(setup, monkeypatch) -> None:
    store, queue, _scheduler, _registry = setup
    monkeypatch.setenv("TA_ARENA_KEEP_MATCHES", "2")
    settings = Settings.from_env()
    assert settings.keep_matches == 2
    scheduler = Scheduler(store, queue, Settings("unused", store.prefix, True, health_every_s=3600,
                                                 keep_matches=settings.keep_matches))
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1))
    for match_id in ("a", "b", "c"):  # three finished matches, newest first in the recent list
        store.redis.lpush(keys.arena_recent(store.prefix, "ss"), match_id)
        store.redis.set(keys.arena_match(store.prefix, match_id), "{}")
    assert scheduler.tick()["forgotten"] == 1
    assert store.recent_matches("ss") == ["c", "b"] and store.match("a") is None
    monkeypatch.setenv("TA_ARENA_KEEP_MATCHES", "999999")
    assert Settings.from_env().keep_matches == 3000  # capped: the rating script bounds the list there


def test_one_owner_gets_one_seat_per_table_while_other_owners_are_free(setup, bot_server) -> None:
    store, _queue, scheduler, registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1))
    for bot in HOUSE:  # the house has played a lot: fresh bots would be everybody's first picks
        store.redis.hset(keys.arena_stats(store.prefix, "ss", f"house:{bot}"), "matches", 30)
    url = bot_server("good").url
    mine = {registry.register(f"flood{i}", ["sore-spot"], url, address="203.0.113.7")[0]["bot_id"]
            for i in range(3)}
    for bot_id in mine:
        assert check_bot_health(store, bot_id, url, allow_private=True)["ok"]
    assert scheduler.tick()["created"] == 1
    [match_id] = store.active_matches("ss")
    entrants = [m["bot_id"] for m in store.match(match_id)["spec"]["entrants"]]
    assert len(set(entrants) & mine) == 1, entrants


class SteppedClock:
    """The scheduler's `time` module, with a monotonic clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_a_paused_bot_is_retried_with_backoff_while_a_healthy_one_keeps_its_period(setup, bot_server,
                                                                                  monkeypatch) -> None:
    import arena.scheduler

    store, queue, _scheduler, registry = setup
    clock = SteppedClock()
    monkeypatch.setattr(arena.scheduler, "time", clock)
    scheduler = Scheduler(store, queue, Settings("unused", store.prefix, True, health_every_s=0.2))
    down = bot_server("down_info")
    failing = registry.register("down", ["sore-spot"], down.url)[0]["bot_id"]
    healthy = registry.register("up", ["sore-spot"], bot_server("good").url)[0]["bot_id"]
    for _ in range(5):  # five failed checks in a row: paused, and its retries back off (0.2 s × 2^3)
        check_bot_health(store, failing, down.url, timeout_s=1.0, allow_private=True)
    members = {failing: down.url, healthy: "http://127.0.0.1:1/"}
    assert scheduler.schedule_health_checks(members) == 2

    def checked() -> dict[str, int]:
        return {bot_id: sum(1 for job in queue.jobs if job.args[0] == bot_id) for bot_id in members}

    for _ in range(6):  # 1.2 s; the failing bot's next check is due 1.6 s after the first
        clock.now += 0.2
        scheduler.schedule_health_checks(members)
    assert checked()[failing] == 1
    assert checked()[healthy] == 7  # every 0.2 s
    clock.now += 0.5
    scheduler.schedule_health_checks(members)
    assert checked()[failing] == 2
    assert health_interval(30.0, 5) == 240.0


def _entrants(store: ArenaStore, ladder_id: str) -> set[str]:
    return {m["bot_id"] for match_id in store.active_matches(ladder_id)
            for m in store.match(match_id)["spec"]["entrants"]}


def test_a_bot_whose_url_becomes_disallowed_is_paused_with_the_reason_and_no_strikes(
        setup, bot_process, client) -> None:
    store, queue, _scheduler, _registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    url = bot_process("good")
    created = client.post("/api/bots", json={"name": "loopy", "games": ["sore-spot"], "url": url})
    bot_id = created.get_json()["bot_id"]  # registered while the operator allowed private URLs
    assert check_bot_health(store, bot_id, url, allow_private=True)["ok"]  # and it answered its first check
    # The operator turns private URLs off (a scheduler started with them disallowed).
    strict = Scheduler(store, queue, Settings("unused", store.prefix, False, health_every_s=3600))
    assert strict.tick()["created"] == 0, "3 house bots and a paused bot cannot fill a 4-seat table"
    assert store.active_matches("ss") == [] and store.paused_bots([bot_id]) == {bot_id}
    health = store.health(bot_id)
    assert health["paused"] and health["failures"] == 0
    assert health["reason"].startswith("url_disallowed: ") and "127.0.0.1" in health["reason"]
    # Its health checks are refused before any connection: a pause with the reason, never a failed check.
    for _ in range(4):
        report = check_bot_health(store, bot_id, url, timeout_s=1.0, allow_private=False)
        assert report["outcome"] == "unsafe_address" and report["paused"] is True
    assert store.health(bot_id)["failures"] == 0
    detail = client.get(f"/api/bots/{bot_id}").get_json()
    assert detail["paused"] is True and detail["paused_reason"].startswith("url_disallowed: ")
    assert strict.tick()["created"] == 0
    stats = store.stats("ss", [bot_id])[bot_id]
    assert stats["strikes"] == 0 and stats["forfeits"] == 0 and stats["matches"] == 0
    assert store.ratings("ss")[bot_id] == 1500.0 and store.history("ss", bot_id) == []
    # Private URLs allowed again: the bot, which answered before, is seated at once.
    relaxed = Scheduler(store, queue, Settings("unused", store.prefix, True, health_every_s=3600))
    assert relaxed.tick()["created"] == 1
    assert bot_id in _entrants(store, "ss")
    assert store.health(bot_id)["reason"] is None
    assert client.get(f"/api/bots/{bot_id}").get_json()["paused_reason"] is None


def test_a_disallowed_bot_is_matched_again_once_its_owner_moves_it_to_an_allowed_url(
        setup, bot_server, client) -> None:
    store, queue, _scheduler, _registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    created = client.post("/api/bots", json={"name": "mover", "games": ["sore-spot"],
                                             "url": bot_server("good").url}).get_json()
    bot_id, owner = created["bot_id"], {"Authorization": f"Bearer {created['owner_token']}"}
    assert check_bot_health(store, bot_id, created["url"], allow_private=True)["ok"]
    strict = Scheduler(store, queue, Settings("unused", store.prefix, False, health_every_s=3600))
    assert strict.tick()["created"] == 0
    assert store.health(bot_id)["reason"].startswith("url_disallowed: ")
    # A public address (written out: no DNS); no worker runs, so nothing ever connects to it.
    public = "http://93.184.215.14:8080/"
    assert client.patch(f"/api/bots/{bot_id}", json={"url": public}, headers=owner).status_code == 200
    moved = client.get(f"/api/bots/{bot_id}").get_json()  # the block was for the old URL ...
    assert moved["paused_reason"].startswith("waiting for its first passing health check")
    assert strict.tick()["created"] == 0  # the new URL is checked before any seat ...
    store.record_health(bot_id, True)  # ... (nothing listens there: its check's passing outcome, stored)
    assert strict.tick()["created"] == 1
    assert bot_id in _entrants(store, "ss") and store.health(bot_id)["failures"] == 0
    # Back to the loopback one: checked again before any seat (the same scheduler, a new URL).
    store.abort_match("ss", store.active_matches("ss")[0], "test")
    client.patch(f"/api/bots/{bot_id}", json={"url": bot_server("good").url}, headers=owner)
    assert strict.tick()["created"] == 0 and store.active_matches("ss") == []
    assert store.health(bot_id)["reason"].startswith("url_disallowed: ")


def test_a_match_seated_before_the_policy_refused_a_url_is_called_off_before_any_card(
        setup, bot_process, client) -> None:
    from arena import jobs

    store, queue, scheduler, _registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    url = bot_process("good")
    bot_id = client.post("/api/bots", json={"name": "early", "games": ["sore-spot"], "url": url}).get_json()[
        "bot_id"]
    assert check_bot_health(store, bot_id, url, allow_private=True)["ok"]
    assert scheduler.tick()["created"] == 1  # seated while private URLs were allowed
    [match_id] = store.active_matches("ss")
    # The worker that plays it runs under the new policy: private URLs disallowed.
    strict = Settings("unused", store.prefix, False, health_every_s=3600)
    outcome = jobs.play_match(store, match_id, worker="test", settings=strict)
    assert outcome["status"] == MatchStatus.ABORTED and outcome["applied"] is False
    doc = store.match(match_id)
    assert doc["status"] == MatchStatus.ABORTED and bot_id in doc["aborted_because"]
    assert "result" not in doc or not doc["result"], "no game was played"
    assert store.health(bot_id)["reason"].startswith("url_disallowed: ")
    stats = store.stats("ss", [bot_id])[bot_id]
    assert stats["strikes"] == 0 and stats["forfeits"] == 0 and stats["matches"] == 0
    assert set(store.ratings("ss").values()) == {1500.0} and store.history("ss", bot_id) == []
def test_a_group_that_keeps_meeting_waits_for_the_busy_bots_a_bounded_time(setup) -> None:
    store, queue, scheduler, _registry = setup
    fast, slow = ["heuristic", "eps-0.3", "eps-0.6", "random"], ["eps-0.1", "eps-0.2", "eps-0.4", "eps-0.5"]
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=(*fast, *slow),
                                   max_active=2, house_only_gap_s=0.0))
    ladder = store.ladder("ss")
    scheduler.sync_members(ladder)
    members = {m.bot_id: m for m in store.members("ss")}
    # The fast four already played each other three times (the ladder's recent matches say so) ...
    for n in range(3):
        store.redis.lpush(keys.arena_recent(store.prefix, "ss"), f"old{n}")
        store.redis.set(keys.arena_match(store.prefix, f"old{n}"), json.dumps(
            {"status": "rated", "spec": {"entrants": [{"bot_id": f"house:{b}"} for b in fast]}}))
    # ... and the slow four are playing now.
    spec = MatchSpec("slow1", "ss", "sore-spot", 4, {"rounds": 1}, 1, False,
                     [members[f"house:{b}"] for b in slow], 1000, 5, {}, {})
    store.create_match(spec)
    enqueue_match(queue, spec, ladder, store.prefix)
    assert scheduler.tick()["created"] == 0  # the fast four wait for the slow ones
    for bot in fast:  # 30 s later they have waited long enough
        scheduler._free_since["ss"][f"house:{bot}"] -= 30.0
    assert scheduler.tick()["created"] == 1
    new = [m for m in store.active_matches("ss") if m != "slow1"]
    assert sorted(e["bot_id"] for e in store.match(new[0])["spec"]["entrants"]) == sorted(
        f"house:{b}" for b in fast)


def test_a_match_whose_worker_lost_redis_before_the_match_started_is_requeued(setup) -> None:
    """A worker takes the job and then loses the primary (a failover): the job stays started for RQ, or in
    RQ's hand-over list, and the match queued. The scheduler queues it again after two shortest leases."""
    store, queue, _scheduler, _registry = setup
    scheduler = Scheduler(store, queue, Settings(prefix=store.prefix, allow_private_urls=True,
                                                 health_every_s=3600, min_lease_s=0.5))
    ladder, match_id = _one_match(store, scheduler)
    job, _ = Queue.dequeue_any([queue], None, connection=queue.connection)  # taken, never started
    assert job.id == match_id and queue.get_job_position(match_id) is None
    counts = {"requeued": 0, "aborted": 0}

    def requeued() -> int:
        scheduler.recover(ladder, counts)
        return counts["requeued"]

    assert requeued() == 0  # just taken: its worker may be starting it this very moment
    wait_until(lambda: requeued() == 1, what="the job taken and never started is queued again")
    assert queue.get_job_position(match_id) is not None
    assert store.match(match_id)["requeued_because"].startswith("job stranded")

    job, _ = Queue.dequeue_any([queue], None, connection=queue.connection)
    job.set_status(JobStatus.STARTED)  # what RQ records as the job starts, before the match's lease
    job.started_at = rq_now()
    job.save()
    assert requeued() == 1
    wait_until(lambda: requeued() == 2, what="the job started and never leased is queued again")
    assert counts == {"requeued": 2, "aborted": 0} and store.match(match_id)["status"] == MatchStatus.QUEUED


def test_a_bot_that_never_answered_is_never_seated_and_says_why(setup, bot_server, client) -> None:
    """Dead bots never play, so they are never rated above working ones; once a check passes, they are."""
    store, _queue, scheduler, _registry = setup
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    down = bot_server("down_info")  # answers its health check with 503
    created = client.post("/api/bots", json={"name": "silent", "games": ["sore-spot"], "url": down.url})
    bot_id = created.get_json()["bot_id"]
    for _ in range(3):
        assert not check_bot_health(store, bot_id, down.url, timeout_s=1.0, allow_private=True)["ok"]
        assert scheduler.tick()["created"] == 0  # 3 house bots and a bot that never answered: no table
    detail = client.get(f"/api/bots/{bot_id}").get_json()
    assert detail["paused"] is True and "health_check_failed" in detail["paused_reason"]
    fresh = client.post("/api/bots", json={"name": "fresh", "games": ["sore-spot"],
                                           "url": bot_server("good").url}).get_json()
    waiting = client.get(f"/api/bots/{fresh['bot_id']}").get_json()
    assert waiting["paused"]
    assert waiting["paused_reason"].startswith("waiting for its first passing health check")
    assert check_bot_health(store, fresh["bot_id"], fresh["url"], allow_private=True)["ok"]
    assert scheduler.tick()["created"] == 1 and fresh["bot_id"] in _entrants(store, "ss")
    assert bot_id not in _entrants(store, "ss")
    assert client.get(f"/api/bots/{fresh['bot_id']}").get_json()["paused_reason"] is None


def test_the_default_ladders_follow_the_house_only_gap_setting(redis_url, key_prefix) -> None:
    import dataclasses

    from arena.scheduler import run_forever
    from core.arena.model import default_ladders

    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    first, second, *_ = default_ladders()
    store.save_ladder(first)  # made by an older scheduler: the ladders' own default gap
    store.save_ladder(dataclasses.replace(second, max_active=1))  # an operator's own change
    settings = Settings(redis_url, key_prefix, True, tick_s=0.05, house_only_gap_s=90.0)
    # In a thread: the test's process keeps its own signal handlers (the scheduler takes the main thread's).
    ladders = default_ladders(settings.house_only_gap_s)
    scheduler = threading.Thread(target=run_forever, args=(settings, ladders), kwargs={"stop_after_s": 0.2})
    scheduler.start()
    scheduler.join(timeout=30)
    assert store.ladder(first.ladder_id).house_only_gap_s == 90.0
    kept = store.ladder(second.ladder_id)
    assert kept.max_active == 1 and kept.house_only_gap_s == second.house_only_gap_s

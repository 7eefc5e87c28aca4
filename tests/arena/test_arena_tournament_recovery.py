"""A tournament survives a process that dies mid-step: the scheduler's tick mends a round saved without its
tables' matches and closes a round whose last table ended without closing it; a table waiting its turn on
the tournaments' queue is not taken for a lost one (arena.scheduler, core.arena.tournament_store)."""

from __future__ import annotations

import time
from typing import Any

import redis
from rq import Queue

from arena.scheduler import Scheduler
from core import keys
from core.arena.model import FINAL_STATUSES, MatchStatus
from core.arena.store import ArenaStore
from core.arena.tournament_store import TournamentStore
from core.settings import Settings
from tests.waiting import wait_until

HOUSE = ["heuristic", "random", "eps-0.3", "eps-0.6", "eps-0.9", "eps-0.2"]


def _world(make_app: Any, redis_url: str, key_prefix: str,
           **settings: Any) -> tuple[Any, ArenaStore, Queue, Scheduler]:
    client = make_app().test_client()
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    queue = Queue(keys.tournament_queue(key_prefix), connection=conn)
    scheduler = Scheduler(store, Queue(keys.arena_queue(key_prefix), connection=conn),
                          Settings(redis_url, key_prefix, True, **settings), tournament_queue=queue)
    return client, store, queue, scheduler


def _create(client: Any, rounds: int = 2) -> dict[str, Any]:
    key = client.post("/api/accounts").get_json()["api_key"]
    answer = client.post("/api/tournaments", headers={"Authorization": f"Bearer {key}"}, json={
        "game": "sore-spot", "format": "swiss", "players": 3, "rounds": rounds, "bots": HOUSE,
        "options": {"rounds": 1}})
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.get_json())


def _counts() -> dict[str, int]:
    return {"created": 0, "requeued": 0, "aborted": 0}


def test_a_round_saved_without_its_tables_matches_is_mended_and_the_event_goes_on(
        make_app, redis_url, key_prefix, tournament_worker) -> None:
    client, store, queue, scheduler = _world(make_app, redis_url, key_prefix)
    event = _create(client)
    tables = [t["match_id"] for t in event["schedule"][0]["tables"]]
    before = {mid: store.match(mid) for mid in tables}
    # What a process dying between saving the event and saving its new round's matches leaves behind.
    store.redis.delete(*(keys.arena_match(key_prefix, mid) for mid in tables))
    queue.empty()
    counts = _counts()
    scheduler.tend_tournaments(counts)
    assert counts == {"created": 2, "requeued": 0, "aborted": 0}
    assert sorted(queue.job_ids) == sorted(tables)
    for mid in tables:
        mended = store.match(mid)
        assert mended is not None and mended["status"] == MatchStatus.QUEUED
        assert mended["tournament"] == {"tournament_id": event["tournament_id"], "round": 0}
        assert mended["spec"]["entrants"] == before[mid]["spec"]["entrants"]
        assert mended["spec"]["seed"] == before[mid]["spec"]["seed"]  # the round's deals, still shared
    scheduler.tend_tournaments(counts)
    assert counts["created"] == 2 and len(queue.job_ids) == 2, "mended once"
    tournament_worker()
    done = wait_until(lambda: (e := client.get(event["url"]).get_json())["status"] == "finished" and e, 60,
                      "the event over")
    assert [r["status"] for r in done["schedule"]] == ["done", "done"]
    assert all(t["status"] == "played" for r in done["schedule"] for t in r["tables"])


def test_a_round_whose_tables_are_all_over_but_never_closed_is_closed_by_the_scheduler(
        make_app, redis_url, key_prefix) -> None:
    client, store, queue, scheduler = _world(make_app, redis_url, key_prefix)
    event = _create(client)
    tables = [t["match_id"] for t in event["schedule"][0]["tables"]]
    # Both tables given up by a process that died before counting them over (abort_table's first step).
    for mid in tables:
        store.update_match(mid, status=MatchStatus.ABORTED, aborted_because="lost", finished=time.time())
    queue.empty()
    counts = _counts()
    scheduler.tend_tournaments(counts)
    after = client.get(event["url"]).get_json()
    assert [r["status"] for r in after["schedule"]] == ["done", "playing"]
    second = [t["match_id"] for t in after["schedule"][1]["tables"]]
    assert counts["created"] == len(second) == 2 and sorted(queue.job_ids) == sorted(second)
    assert all(store.match(mid)["status"] == MatchStatus.QUEUED for mid in second)
    scheduler.tend_tournaments(counts)
    assert counts["created"] == 2 and len(queue.job_ids) == 2, "closed once"


def test_a_table_waiting_its_turn_on_the_tournaments_queue_is_not_taken_for_a_lost_one(
        make_app, redis_url, key_prefix) -> None:
    client, store, queue, scheduler = _world(make_app, redis_url, key_prefix, min_lease_s=0.05)
    event = _create(client)
    tables = [t["match_id"] for t in event["schedule"][0]["tables"]]
    time.sleep(0.3)  # longer than two shortest leases: a job that left its queue would be stranded by now
    counts = _counts()
    scheduler.tend_tournaments(counts)
    assert counts == _counts()
    assert sorted(queue.job_ids) == sorted(tables)
    assert all(store.match(mid)["status"] not in FINAL_STATUSES and "requeued_because" not in store.match(mid)
               for mid in tables)
    assert TournamentStore(store).repair(event["tournament_id"]) == []

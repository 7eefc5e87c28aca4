"""Fair shares of the game-analysis queue: one client address holds at most MAX_PENDING_ANALYSES_PER_CLIENT
analyses queued or running, checked in the same Lua call as the global cap; a done analysis is answered to
anyone before anything is counted, and an analysis that ends (done, failed, stale) frees its owner's place."""

from __future__ import annotations

import itertools

import pytest
import redis

from core import keys
from core.analysis import (
    QUEUED_TTL,
    STALL_TTL,
    AnalysisStore,
    AnalysisSubject,
    RequestOutcome,
    ShareDecision,
    share_decision,
)
from core.arena.store import ArenaStore
from tests.api.api_helpers import assert_problem
from tests.arena.test_arena_analysis import BUDGET, OWNER, SORE_SPOT, run_worker_burst
from tests.web.site import play_ladder_matches

OTHER = {"REMOTE_ADDR": "10.0.0.2"}  # a second client address
THIRD = {"REMOTE_ADDR": "10.0.0.3"}
DECISIONS = {ShareDecision.ADMIT: RequestOutcome.NEW, ShareDecision.QUEUE_FULL: RequestOutcome.FULL,
             ShareDecision.SHARE_EXHAUSTED: RequestOutcome.SHARE_EXHAUSTED}


@pytest.fixture
def match_id(redis_url: str, key_prefix: str) -> str:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(SORE_SPOT)
    return play_ladder_matches(store, SORE_SPOT, 1)[0]


def test_share_decision_checks_the_owners_share_then_the_queue() -> None:
    assert share_decision(0, 0, 20, 3) is ShareDecision.ADMIT
    assert share_decision(19, 2, 20, 3) is ShareDecision.ADMIT
    assert share_decision(5, 3, 20, 3) is ShareDecision.SHARE_EXHAUSTED
    assert share_decision(20, 0, 20, 3) is ShareDecision.QUEUE_FULL
    # Both used up: the owner is told about its own share, the reason that holds whatever others do.
    assert share_decision(20, 3, 20, 3) is ShareDecision.SHARE_EXHAUSTED
    assert share_decision(0, 0, 20, 0) is ShareDecision.SHARE_EXHAUSTED  # a share of none admits nothing


def test_analysis_store_docstring_examples() -> None:
    import doctest

    import core.analysis

    result = doctest.testmod(core.analysis)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(("total", "own"),
                         [(t, o) for t, o in itertools.product(range(5), range(3)) if o <= t])
def test_the_request_script_decides_as_share_decision(redis_url, key_prefix, total, own) -> None:
    store = AnalysisStore(redis.Redis.from_url(redis_url), key_prefix, max_pending=4, max_pending_per_owner=2)
    # `own` analyses of the owner, the rest of `total` one each from other addresses.
    for n in range(total):
        owner = OWNER if n < own else f"10.1.0.{n}"
        assert store.request(AnalysisSubject.for_table(f"t{n}", 0, 100), owner)[0] is RequestOutcome.NEW
    outcome, _ = store.request(AnalysisSubject.for_table("new", 0, 100), OWNER)
    assert outcome is DECISIONS[share_decision(total, own, 4, 2)]


def test_an_ended_or_stale_analysis_frees_its_owners_place(redis_url, redis_conn, key_prefix) -> None:
    store = AnalysisStore(redis.Redis.from_url(redis_url), key_prefix, max_pending_per_owner=2)
    done, failed, later = (AnalysisSubject.for_table(t, 0, 100) for t in ("t1", "t2", "t3"))
    store.request(done, OWNER, now=1000.0)
    store.request(failed, OWNER, now=1000.0)
    assert redis_conn.hget(keys.analysis(key_prefix, done.key), "owner") == OWNER
    assert store.request(later, OWNER, now=1001.0)[0] is RequestOutcome.SHARE_EXHAUSTED
    store.finish(done, {"decisions": []})
    store.fail(failed, "gone")
    assert store.pending_for(OWNER) == 0 and store.pending() == 0
    # A worker lost mid-job: its entries are stale after the queued and stall limits, in both sets.
    store.request(later, OWNER, now=2000.0)
    store.request(failed, OWNER, now=2000.0)  # a failed one is asked again: queued afresh
    assert store.pending_for(OWNER) == 2
    after = 2000.0 + QUEUED_TTL + STALL_TTL + 1
    assert store.request(AnalysisSubject.for_table("t4", 0, 100), OWNER, now=after)[0] is RequestOutcome.NEW
    assert store.pending_for(OWNER) == 1 and store.pending() == 1
    # An owner's set expires with its last entry, so addresses that never come back leave nothing behind.
    assert 0 < redis_conn.ttl(keys.analysis_owner_pending(key_prefix, OWNER)) <= QUEUED_TTL + STALL_TTL


def test_one_address_holds_its_share_and_no_more(make_app, redis_url, key_prefix, match_id) -> None:
    client = make_app(LIMIT_ANALYSIS="1000/minute").test_client()  # the default share: 3
    url = f"/api/matches/{match_id}/games/{{}}/analysis?budget_ms={BUDGET}&seat={{}}"
    cached = url.format(1, 0)
    assert client.post(cached).status_code == 202
    run_worker_burst(redis_url, key_prefix)
    assert client.get(cached).get_json()["status"] == "done"

    for seat in range(3):
        assert client.post(url.format(0, seat)).status_code == 202
    refused = client.post(url.format(0, 3))
    body = assert_problem(refused, 429, "analysis-share-exhausted")
    assert int(refused.headers["Retry-After"]) > 0
    assert body["pending"] == 3 and body["limit"] == 3
    assert "3 of your game analyses are queued or running" in body["detail"]
    # At its share, the owner is still answered what is done (200, the result) or already queued.
    done = client.post(cached)
    assert done.status_code == 200 and done.get_json()["result"]["seat"] == 0
    assert client.post(url.format(0, 0)).status_code == 202
    # Another address gets in, and joins the first address's analyses without being counted for them.
    assert client.post(url.format(0, 3), environ_base=OTHER).status_code == 202
    assert client.post(url.format(0, 1), environ_base=OTHER).status_code == 202
    store = AnalysisStore(redis.Redis.from_url(redis_url), key_prefix)
    assert store.pending_for("127.0.0.1") == 3 and store.pending_for(OTHER["REMOTE_ADDR"]) == 1

    run_worker_burst(redis_url, key_prefix)  # the worker ends them: the owner's places are free again
    assert store.pending_for("127.0.0.1") == 0 and store.pending() == 0
    assert client.post(url.format(1, 1)).status_code == 202


def test_the_global_cap_still_holds_across_addresses(make_app, redis_url, key_prefix, match_id) -> None:
    client = make_app(LIMIT_ANALYSIS="1000/minute", MAX_PENDING_ANALYSES=3,
                      MAX_PENDING_ANALYSES_PER_CLIENT=2).test_client()
    url = f"/api/matches/{match_id}/games/0/analysis?budget_ms={BUDGET}&seat={{}}"
    assert [client.post(url.format(s)).status_code for s in (0, 1)] == [202, 202]
    assert_problem(client.post(url.format(2)), 429, "analysis-share-exhausted")
    assert client.post(url.format(2), environ_base=OTHER).status_code == 202
    full = client.post(url.format(3), environ_base=THIRD)
    body = assert_problem(full, 503, "analysis-queue-full")
    assert int(full.headers["Retry-After"]) > 0 and "3 game analyses" in body["detail"]

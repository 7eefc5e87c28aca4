"""Game analysis end to end: the API queues it once, a real analysis worker (`python -m arena worker
--analysis`, the Procfile's command) runs it, GET gives progress and the result; unfinished games, floods
and failures are refused or reported as problems, and nothing of a game in play leaks."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import redis
from rq import Queue

from arena.analysis import run_analysis
from core import keys
from core.analysis import AnalysisStore, AnalysisSubject, RequestOutcome
from core.arena.store import ArenaStore
from tests.api.api_helpers import assert_problem
from tests.conftest import REPO_ROOT
from tests.web.site import LADDERS, play_ladder_matches, play_table_through_api

SORE_SPOT = LADDERS[1]  # sore-spot, 4 players, one round: 13 decisions per seat
BUDGET = 10  # ms per decision: the smallest the API takes
OWNER = "127.0.0.1"  # the client address of Flask's test client


@pytest.fixture
def match_id(redis_url: str, key_prefix: str) -> str:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(SORE_SPOT)
    return play_ladder_matches(store, SORE_SPOT, 1)[0]


def analysis_queue(redis_url: str, prefix: str) -> Queue:
    return Queue(keys.analysis_queue(prefix), connection=redis.Redis.from_url(redis_url))


def run_worker_burst(redis_url: str, prefix: str) -> None:
    """The Procfile's analysis worker, in burst mode: it serves the queue until it is empty, then exits."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": prefix}
    env.pop("TA_ANALYSIS_QUEUE", None)
    done = subprocess.run([sys.executable, "-m", "arena", "worker", "--simple", "--analysis", "--burst"],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_match_game_is_analysed_once_by_the_worker(client, redis_url, key_prefix, match_id) -> None:
    url = f"/api/matches/{match_id}/games/1/analysis?seat=2&budget_ms={BUDGET}"
    first = client.post(url)
    assert first.status_code == 202, first.get_json()
    assert first.headers["Location"] == first.get_json()["url"]
    assert first.get_json()["status"] == "queued"
    again = client.post(url)  # a second request joins the first: still one job
    assert again.status_code == 202 and again.get_json()["status"] == "queued"
    queue = analysis_queue(redis_url, key_prefix)
    assert queue.count == 1
    waiting = client.get(first.headers["Location"]).get_json()
    assert waiting["status"] == "queued" and waiting["progress"] == {"done": 0, "total": 0}

    run_worker_burst(redis_url, key_prefix)

    state = client.get(first.headers["Location"]).get_json()
    assert state["status"] == "done", state
    result = state["result"]
    record = client.get(f"/api/matches/{match_id}/games/1/replay").get_json()
    seat_moves = [i for i, m in enumerate(record["moves"]) if m["seat"] == 2]
    assert [d["index"] for d in result["decisions"]] == seat_moves
    assert state["progress"] == {"done": len(seat_moves), "total": len(seat_moves)}
    assert result["seat"] == 2 and result["budget_ms"] == BUDGET and result["over"]
    for decision in result["decisions"]:
        assert decision["regret"] >= 0 and decision["behind_heuristic"] <= decision["regret"]
        assert record["moves"][decision["index"]]["move"] == decision["chosen"]
        if not decision["forced"]:
            assert {c["move"] for c in decision["candidates"]} == set(decision["legal"])
    assert result["total_regret"] == pytest.approx(sum(d["regret"] for d in result["decisions"]), abs=0.05)
    assert result["total_behind_heuristic"] == pytest.approx(
        sum(d["behind_heuristic"] for d in result["decisions"]), abs=0.05)
    # Done: asking again answers the cached result at once and queues nothing.
    cached = client.post(url)
    assert cached.status_code == 200 and cached.get_json()["result"] == result
    assert queue.count == 0 and len(queue.finished_job_registry) == 1


def test_a_finished_table_is_analysed_and_one_in_play_is_refused_without_a_leak(
        client, redis_url, key_prefix) -> None:
    live, _tokens = play_table_through_api(client, "spot-hearts", {}, moves=5)
    hand = set(client.get(f"/api/tables/{live}/seats/0",
                          headers={"Authorization": f"Bearer {_tokens[0]}"}).get_json()["view"]["hand"])
    for method in (client.post, client.get):
        refused = method(f"/api/tables/{live}/analysis?seat=0")
        body = assert_problem(refused, 409, "game-not-over")
        assert "still in play" in body["detail"]
        assert not hand & set(json.dumps(body).replace('"', " ").split())  # not one card of the hand
    assert AnalysisStore(redis.Redis.from_url(redis_url), key_prefix).pending() == 0
    assert analysis_queue(redis_url, key_prefix).count == 0

    finished, _ = play_table_through_api(client, "sore-spot", {"rounds": 1})
    accepted = client.post(f"/api/tables/{finished}/analysis?seat=3&budget_ms={BUDGET}")
    assert accepted.status_code == 202
    run_worker_burst(redis_url, key_prefix)
    state = client.get(accepted.headers["Location"]).get_json()
    assert state["status"] == "done" and len(state["result"]["decisions"]) == 13


def test_bad_requests_are_problems(client, match_id) -> None:
    base = f"/api/matches/{match_id}/games"
    assert_problem(client.post("/api/matches/nope/games/0/analysis?seat=0"), 404, "match-not-found")
    assert_problem(client.post(f"{base}/9/analysis?seat=0"), 404, "game-not-found")
    assert_problem(client.post("/api/tables/nope/analysis?seat=0"), 404, "table-not-found")
    no_seat = assert_problem(client.post(f"{base}/0/analysis?seat=4"), 404, "seat-not-found")
    assert no_seat["detail"] == f"match {match_id} game 0 has no seat 4 (seats 0 to 3)"
    for query in ("seat=-1", "", "seat=0&budget_ms=5", "seat=0&budget_ms=100000", "seat=x"):
        assert_problem(client.post(f"{base}/0/analysis?{query}"), 422, "validation-failed")
    assert_problem(client.get(f"{base}/0/analysis?seat=1"), 404, "analysis-not-found")


def test_a_match_not_finished_is_refused(client, redis_url, key_prefix) -> None:
    from tests.arena.test_arena_api import setup_ladder

    setup_ladder(redis_url, key_prefix)  # queued, never played
    assert_problem(client.post("/api/matches/mapi1/games/0/analysis?seat=0"), 409, "match-not-finished")
    assert analysis_queue(redis_url, key_prefix).count == 0


def test_floods_are_refused_per_address_and_by_the_queue_cap(make_app, redis_url, key_prefix,
                                                              match_id) -> None:
    client = make_app(LIMIT_ANALYSIS="1000/minute", MAX_PENDING_ANALYSES=2).test_client()
    base = f"/api/matches/{match_id}/games/0/analysis?budget_ms={BUDGET}&seat="
    assert client.post(base + "0").status_code == 202
    assert client.post(base + "1").status_code == 202
    full = client.post(base + "2")
    body = assert_problem(full, 503, "analysis-queue-full")
    assert int(full.headers["Retry-After"]) > 0 and "2 game analyses" in body["detail"]
    assert client.post(base + "0").status_code == 202  # one already queued is still answered
    assert analysis_queue(redis_url, key_prefix).count == 2

    limited = make_app(LIMIT_ANALYSIS="3/minute").test_client()
    answers = [limited.post(base + "0").status_code for _ in range(3)]
    assert answers == [202, 202, 202]
    flood = limited.post(base + "0")
    assert_problem(flood, 429, "rate-limited")
    assert int(flood.headers["Retry-After"]) > 0
    assert limited.get(base + "0").status_code == 200  # polling is not limited


def test_a_failed_analysis_is_reported_and_can_be_retried(client, redis_url, key_prefix, match_id) -> None:
    url = f"/api/matches/{match_id}/games/0/analysis?seat=1&budget_ms={BUDGET}"
    assert client.post(url).status_code == 202
    # The stored record goes bad before the worker runs (the engine refuses its first move).
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    records = store.match_games(match_id)
    records[0]["moves"][0]["move"] = "ZZ"
    conn.set(keys.arena_match_games(key_prefix, match_id), json.dumps(records))
    run_worker_burst(redis_url, key_prefix)
    state = client.get(url).get_json()
    assert state["status"] == "failed" and "ZZ" in state["reason"], state
    assert "result" not in state
    assert AnalysisStore(conn, key_prefix).pending() == 0  # a failure frees its place under the cap
    retried = client.post(url)  # asking again retries it
    assert retried.status_code == 202 and retried.get_json()["status"] == "queued"
    assert analysis_queue(redis_url, key_prefix).count == 1


def test_an_analysis_stops_when_its_worker_is_told_to(redis_url, key_prefix, match_id) -> None:
    conn = redis.Redis.from_url(redis_url)
    store = AnalysisStore(conn, key_prefix)
    subject = AnalysisSubject.for_match(match_id, 0, 0, BUDGET)
    store.request(subject, OWNER)
    summary = run_analysis(conn, key_prefix, subject, stop_requested=lambda: True)
    assert summary["status"] == "failed"
    state = store.get(subject)
    assert state is not None and state["status"] == "failed"
    assert "ask for the analysis again" in state["reason"]
    assert state["progress"]["done"] == 1  # it stopped after the first decision


def test_requests_are_counted_once_and_expired_places_are_freed(redis_url, key_prefix) -> None:
    store = AnalysisStore(redis.Redis.from_url(redis_url), key_prefix, max_pending=1)
    first, second = (AnalysisSubject.for_table(t, 0, 100) for t in ("t1", "t2"))
    assert store.request(first, OWNER, now=1000.0) == (RequestOutcome.NEW, "queued")
    assert store.request(first, OWNER, now=1001.0) == (RequestOutcome.EXISTING, "queued")
    assert store.request(second, OWNER, now=1002.0) == (RequestOutcome.FULL, "full")
    assert store.progress(first, 3, 13) and store.get(first)["status"] == "running"
    # A worker killed mid-job: its entry is stale after the queued and stall limits, and is swept.
    assert store.request(second, OWNER, now=1000.0 + 3600 + 600 + 1)[0] is RequestOutcome.NEW


def test_openapi_documents_the_analysis_endpoints(client) -> None:
    paths = client.get("/api/openapi.json").get_json()["paths"]
    for path in ("/api/matches/{match_id}/games/{game_no}/analysis", "/api/tables/{table_id}/analysis"):
        assert {"get", "post"} <= set(paths[path]), path
        post = paths[path]["post"]
        assert {"200", "202"} <= set(post["responses"])
        assert {p["name"] for p in post["parameters"] if p["in"] == "query"} == {"seat", "budget_ms"}
    schemas = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    assert {"regret", "heuristic", "behind_heuristic"} <= set(schemas["Decision"]["properties"])
    assert {"mean_regret", "mean_behind_heuristic"} <= set(schemas["AnalysisResult"]["properties"])

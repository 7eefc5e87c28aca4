"""Tournaments through the API, with no worker: creating one (an account's, the operator's open event), the
refusals (format, limits, a bot entered twice, quotas, bots that cannot be seated), entries and the start at
the scheduler's tick (api.blueprints.tournaments, core.arena.tournament_store)."""

from __future__ import annotations

import time
from typing import Any

import redis
from rq import Queue

from arena.scheduler import Scheduler
from core import keys
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.api.api_helpers import assert_problem as problem
from tests.api.api_helpers import bearer

OPERATOR_TOKEN = "operator-s3cret"
GRADED = ["heuristic", "eps-0.2", "eps-0.4", "eps-0.6", "eps-0.8", "random"]


def _account(client: Any) -> str:
    answer = client.post("/api/accounts")
    assert answer.status_code == 201, answer.get_json()
    return str(answer.get_json()["api_key"])


def _bot(client: Any, key: str, name: str, url: str | None = "http://127.0.0.1:9/") -> str:
    body: dict[str, Any] = {"name": name, "games": ["spot-hearts"]}
    if url:
        body["url"] = url
    answer = client.post("/api/bots", json=body, headers=bearer(key))
    assert answer.status_code == 201, answer.get_json()
    return str(answer.get_json()["bot_id"])


def _create(client: Any, key: str, **body: Any) -> Any:
    full = {"game": "spot-hearts", "format": "swiss", "rounds": 2, **body}
    return client.post("/api/tournaments", json={k: v for k, v in full.items() if v is not None},
                       headers=bearer(key))


def test_an_account_creates_a_swiss_event_that_starts_at_once_with_its_first_round_queued(
        make_app, redis_url, key_prefix) -> None:
    app = make_app(ALLOW_PRIVATE_BOT_URLS=True)
    client = app.test_client()
    key = _account(client)
    mine = _bot(client, key, "mine")
    created = _create(client, key, name="Friday", bots=[mine, *GRADED, "search-5"])
    assert created.status_code == 201, created.get_json()
    event = created.get_json()
    assert created.headers["Location"] == event["url"]
    assert (event["status"], event["entry"], event["format"], event["rounds"]) == (
        "running", "invited", "swiss", 2)
    assert len(event["schedule"]) == 1 and event["schedule"][0]["status"] == "playing"
    tables = event["schedule"][0]["tables"]
    assert len(tables) == 2 and sorted(b for t in tables for b in t["bots"]) == sorted(
        [mine, *(f"house:{b}" for b in (*GRADED, "search-5"))])
    assert all(t["status"] == "queued" and t["places"] is None for t in tables)
    # No round is over: every bot is in the standings with nothing yet.
    assert {row["points"] for row in event["standings"]} == {0.0} and len(event["standings"]) == 8
    queue = Queue(keys.tournament_queue(key_prefix), connection=redis.Redis.from_url(redis_url))
    assert sorted(queue.job_ids) == sorted(t["match_id"] for t in tables)
    # A queued table is a match like any other, unrated, linked to its event, with no seed shown.
    match = client.get(tables[0]["url"]).get_json()
    assert match["tournament"] == event["tournament_id"] and match["seed"] is None and match["replays"] == []
    standings = client.get(event["standings_url"]).get_json()
    assert standings["rounds_done"] == 0 and len(standings["standings"]) == 8
    page = client.get(event["web_url"])
    assert page.status_code == 200 and tables[0]["match_id"] in page.get_data(as_text=True)


def test_refusals_format_limits_a_bot_entered_twice_and_bots_that_cannot_sit(make_app) -> None:
    app = make_app(ALLOW_PRIVATE_BOT_URLS=True)
    client = app.test_client()
    key = _account(client)
    mine = _bot(client, key, "mine")
    problem(client.post("/api/tournaments", json={"game": "spot-hearts", "format": "swiss", "rounds": 1,
                                                   "bots": GRADED}), 401, "token-required")
    body = problem(_create(client, key, rounds=None, bots=[mine, *GRADED]), 422, "bad-tournament")
    assert "rounds" in body["errors"]
    body = problem(_create(client, key, bots=[mine, *GRADED, "search-5"], max_tables=3), 422,
                    "bad-tournament")
    assert body["errors"] == {"max_tables": ["needs 4"]}
    # Every quartet of 12 bots: 495 tables, more than any event may play.
    many = [f"eps-0.{n}" for n in range(1, 10)] + ["heuristic", "random", "search-5"]
    body = problem(client.post("/api/tournaments", json={"game": "spot-hearts", "format": "round-robin",
                                                          "bots": many}, headers=bearer(key)),
                    422, "bad-tournament")
    assert "495" in body["detail"]
    body = problem(_create(client, key, bots=[mine, *GRADED, mine]), 409, "tournament-closed")
    assert body["bot_id"] == mine
    problem(_create(client, key, bots=["heuristic", "house:heuristic", "random", "eps-0.3"]), 409,
             "tournament-closed")
    problem(_create(client, key, bots=["eps-0.3", "random"]), 422, "bad-tournament")  # fewer than a table
    poller = _bot(client, key, "poller", url=None)
    body = problem(_create(client, key, bots=[poller, *GRADED]), 409, "challenge-not-accepted")
    assert body["bot_id"] == poller and "HTTP" in body["detail"]
    other = _bot(client, _account(client), "other")
    body = problem(_create(client, key, bots=[other, *GRADED]), 409, "challenge-not-accepted")
    assert body["bot_id"] == other
    problem(_create(client, key, bots=["house:nobody", *GRADED]), 422, "bad-tournament")
    problem(_create(client, key, bots=["0000000000000000", *GRADED]), 404, "bot-not-found")
    body = problem(_create(client, key, bots=GRADED, entry="open", starts_at=time.time() + 60), 422,
                    "bad-tournament")
    assert body["errors"] == {"entry": ["invited"]}
    problem(client.get("/api/tournaments/t0000"), 404, "tournament-not-found")


def test_an_account_has_two_events_running_at_once_and_five_a_day(make_app, redis_conn, key_prefix) -> None:
    client = make_app().test_client()
    key = _account(client)
    for _ in range(2):
        assert _create(client, key, bots=GRADED[:4]).status_code == 201
    body = problem(_create(client, key, bots=GRADED[:4]), 429, "tournament-quota-exceeded")
    assert (body["quota"], body["limit"]) == ("active", 2)
    assert _create(client, _account(client), bots=GRADED[:4]).status_code == 201  # another account's share
    # Finished events free their places; the day's count stays.
    redis_conn.delete(*redis_conn.keys(f"{key_prefix}tournaments:owner:*:active"))
    for _ in range(3):
        assert _create(client, key, bots=GRADED[:4]).status_code == 201
        redis_conn.delete(*redis_conn.keys(f"{key_prefix}tournaments:owner:*:active"))
    answer = _create(client, key, bots=GRADED[:4])
    body = problem(answer, 429, "tournament-quota-exceeded")
    assert (body["quota"], body["limit"]) == ("per_day", 5) and int(answer.headers["Retry-After"]) >= 1


def test_the_operators_open_event_takes_entries_until_its_start_then_the_scheduler_starts_it(
        make_app, redis_url, key_prefix) -> None:
    app = make_app(ADMIN_TOKEN=OPERATOR_TOKEN, ALLOW_PRIVATE_BOT_URLS=True)
    client = app.test_client()
    starts = time.time() + 3600
    created = client.post("/api/tournaments", headers=bearer(OPERATOR_TOKEN), json={
        "game": "spot-hearts", "format": "round-robin", "players": 4, "bots": ["heuristic", "random"],
        "entry": "open", "starts_at": starts, "field_limit": 4})
    assert created.status_code == 201, created.get_json()
    event = created.get_json()
    assert (event["status"], event["entry"], event["schedule"]) == ("open", "open", [])
    tid = event["tournament_id"]
    keys_ = [_account(client) for _ in range(3)]
    bots = [_bot(client, k, f"entrant-{i}") for i, k in enumerate(keys_)]
    entered = client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[0]}, headers=bearer(keys_[0]))
    assert entered.status_code == 201 and len(entered.get_json()["entrants"]) == 3
    body = problem(client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[0]},
                                headers=bearer(keys_[0])), 409, "tournament-closed")
    assert body["bot_id"] == bots[0]
    problem(client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[1]}, headers=bearer(keys_[0])),
             403, "bad-token")  # only its owner enters a bot
    assert client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[1]},
                       headers=bearer(keys_[1])).status_code == 201
    body = problem(client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[2]},
                                headers=bearer(keys_[2])), 409, "tournament-closed")
    assert "full" in body["detail"]

    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    queue = Queue(keys.tournament_queue(key_prefix), connection=conn)
    scheduler = Scheduler(store, Queue(keys.arena_queue(key_prefix), connection=conn),
                          Settings(redis_url, key_prefix), tournament_queue=queue)
    scheduler.tend_tournaments({"created": 0, "requeued": 0, "aborted": 0})
    assert client.get(event["url"]).get_json()["status"] == "open" and queue.count == 0  # not yet
    doc_key = keys.tournament(key_prefix, tid)
    raw = store.redis.get(doc_key)
    store.redis.set(doc_key, raw.replace(repr(starts), repr(time.time() - 1)), keepttl=True)
    counts = {"created": 0, "requeued": 0, "aborted": 0}
    scheduler.tend_tournaments(counts)
    started = client.get(event["url"]).get_json()
    assert started["status"] == "running" and counts["created"] == 1 == queue.count
    assert sorted(started["schedule"][0]["tables"][0]["bots"]) == sorted(
        ["house:heuristic", "house:random", *bots[:2]])
    problem(client.post(f"/api/tournaments/{tid}/entries", json={"bot": bots[2]}, headers=bearer(keys_[2])),
             409, "tournament-closed")

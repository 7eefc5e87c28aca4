"""End-to-end over a real HTTP server on 127.0.0.1: long-poll, concurrent moves, a whole practice game."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import httpx
import pytest
import redis

from tests.api.api_helpers import app_watcher
from tests.waiting import wait_until

OPEN_AND_HOUSE = ["open", "heuristic", "random", "eps-0.3"]

# Concurrent posts of one decision: as many as the per-seat limit lets through at one table version.
POSTS = 10




def _open(base: str, seats: list[str], **extra) -> dict:
    response = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": seats, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def _join(base: str, table_id: str, seat: int) -> dict[str, str]:
    response = httpx.post(f"{base}/api/tables/{table_id}/seats/{seat}/join")
    assert response.status_code == 201, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}


def test_long_poll_answers_at_once_when_newer(live_server):
    table = _open(live_server, ["open"] * 4)
    auth = _join(live_server, table["table_id"], 0)
    started = time.monotonic()
    response = httpx.get(f"{live_server}/api/tables/{table['table_id']}/seats/0",
                         params={"after": -1, "wait": 30}, headers=auth, timeout=60)
    assert response.status_code == 200 and response.json()["version"] == 0
    assert time.monotonic() - started < 15  # not the 30 s wait


def test_long_poll_times_out_with_the_unchanged_state(live_server):
    table = _open(live_server, ["open"] * 4)
    auth = _join(live_server, table["table_id"], 0)
    started = time.monotonic()
    response = httpx.get(f"{live_server}/api/tables/{table['table_id']}/seats/0",
                         params={"after": 0, "wait": 0.5}, headers=auth, timeout=30)
    elapsed = time.monotonic() - started
    assert response.status_code == 200 and response.json()["version"] == 0
    assert 0.45 <= elapsed < 15  # at its wait, not held on


def _pattern_subscribers(client: redis.Redis) -> int:
    return sum(1 for info in client.client_list() if int(info.get("psub", 0)) > 0)


def test_long_poll_wakes_on_another_seats_move(live_server, app, redis_url):
    table = _open(live_server, ["open"] * 4)
    table_id = table["table_id"]
    seat0, seat1 = _join(live_server, table_id, 0), _join(live_server, table_id, 1)
    answers: list[tuple[float, dict]] = []

    def poll() -> None:
        response = httpx.get(f"{live_server}/api/tables/{table_id}/seats/0", params={"after": 0, "wait": 25},
                             headers=seat0, timeout=30)
        answers.append((time.monotonic(), response.json()))

    client = redis.Redis.from_url(redis_url)
    subscribers_before = _pattern_subscribers(client)
    waiters = [threading.Thread(target=poll) for _ in range(30)]
    for waiter in waiters:
        waiter.start()
    # Wait until every poll is parked on the watcher, then move: they must all wake from the notification.
    watcher = app_watcher(app)
    wait_until(lambda: watcher.waiting == 30, what="the 30 long-polls parked")
    # 30 waiting polls, one new pattern-subscribed connection (the process's shared listener).
    assert _pattern_subscribers(client) == subscribers_before + 1
    state = httpx.get(f"{live_server}/api/tables/{table_id}/seats/1", headers=seat1).json()
    moved_at = time.monotonic()
    response = httpx.post(f"{live_server}/api/tables/{table_id}/seats/1/moves", headers=seat1,
                          json={"move": state["view"]["legal"][:3], "expected_version": 0})
    assert response.status_code == 200
    for waiter in waiters:
        waiter.join(timeout=30)
    assert len(answers) == 30
    assert all(body["version"] == 1 for _, body in answers)
    assert max(at for at, _ in answers) - moved_at < 10  # woken, not timed out at 25 s


def test_ten_concurrent_http_posts_exactly_one_applied(live_server):
    table = _open(live_server, ["open"] * 4)
    table_id = table["table_id"]
    auth = _join(live_server, table_id, 2)
    legal = httpx.get(f"{live_server}/api/tables/{table_id}/seats/2", headers=auth).json()["view"]["legal"]
    barrier = threading.Barrier(POSTS)
    statuses: list[int] = []

    def post() -> None:
        with httpx.Client() as http:
            barrier.wait()
            response = http.post(f"{live_server}/api/tables/{table_id}/seats/2/moves", headers=auth,
                                 json={"move": legal[:3], "expected_version": 0})
            statuses.append(response.status_code)
            if response.status_code != 200:
                assert response.headers["Content-Type"].startswith("application/problem+json")

    threads = [threading.Thread(target=post) for _ in range(POSTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * (POSTS - 1)
    assert httpx.get(f"{live_server}/api/tables/{table_id}").json()["version"] == 1


@pytest.mark.timeout(120)
def test_practice_game_against_three_house_bots_over_http(live_server, app, rq_worker, tmp_path):
    """One polling seat, three house bots driven by a real RQ worker; HTTP alone, to the very end."""
    rq_worker(app.config["RQ_QUEUE"])
    table = _open(live_server, OPEN_AND_HOUSE, options={"target": 60})
    table_id = table["table_id"]
    assert table["seed"] is None and len(table["seed_commitment"]) == 64
    auth = _join(live_server, table_id, 0)
    version, moves = -1, 0
    with httpx.Client(base_url=live_server, headers=auth, timeout=40) as http:
        while True:
            state = http.get(f"/api/tables/{table_id}/seats/0", params={"after": version, "wait": 25}).json()
            version = state["version"]
            view = state["view"]
            # Hidden information: only our own hand, never anyone else's.
            assert view["seat"] == 0 and "hands" not in view
            assert len(view["hand"]) == view["hand_sizes"][0]
            if state["status"] == "over":
                break
            if not state["your_turn"]:
                continue
            decision = view["decision"]
            move = view["legal"][: decision["count"]] if decision["kind"] == "pass" else view["legal"][0]
            response = http.post(f"/api/tables/{table_id}/seats/0/moves",
                                 json={"move": move, "expected_version": version})
            assert response.status_code == 200, response.text
            moves += 1
            assert moves < 1000
        public = http.get(f"/api/tables/{table_id}").json()
        replay = http.get(f"/api/tables/{table_id}/replay")
    assert public["status"] == "over" and public["view"]["winners"]
    assert public["seed"] is not None
    import hashlib

    assert hashlib.sha256(f"{public['seed_nonce']}:{public['seed']}".encode()).hexdigest() == \
        table["seed_commitment"]
    assert replay.status_code == 200
    record_file = tmp_path / "replay.json"
    record_file.write_text(replay.text)
    summary = subprocess.run([sys.executable, "-m", "engine", "replay", str(record_file), "--json"],
                             capture_output=True, text=True, check=True)
    assert json.loads(summary.stdout)["totals"] == public["view"]["scores"]


def test_spectators_long_poll_the_public_table(live_server, app):
    table = _open(live_server, ["open"] * 4)
    table_id = table["table_id"]
    auth = _join(live_server, table_id, 2)
    answers: list[tuple[float, dict]] = []

    def watch() -> None:
        response = httpx.get(f"{live_server}/api/tables/{table_id}", params={"after": 0, "wait": 20},
                             timeout=30)
        answers.append((time.monotonic(), response.json()))

    watcher = threading.Thread(target=watch)
    watcher.start()
    wait_until(lambda: app_watcher(app).waiting == 1, what="the spectator's long-poll parked")
    assert not answers, "no move yet: the spectator is still waiting"
    legal = httpx.get(f"{live_server}/api/tables/{table_id}/seats/2", headers=auth).json()["view"]["legal"]
    moved = time.monotonic()
    httpx.post(f"{live_server}/api/tables/{table_id}/seats/2/moves", headers=auth,
               json={"move": legal[:3], "expected_version": 0})
    watcher.join(timeout=30)
    (answered_at, body), = answers
    assert body["version"] == 1 and answered_at - moved < 10
    assert "hand" not in body["view"]

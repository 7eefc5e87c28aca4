"""The production serving path: gunicorn with the gevent worker (api/gunicorn_conf.py)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

# Concurrent posts of one decision: as many as the per-seat limit lets through at one table version.
POSTS = 10


@pytest.mark.timeout(90)
def test_gevent_worker_holds_many_long_polls_and_still_serves(gunicorn_server):
    with gunicorn_server("gevent", workers=1) as base:
        table = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4}).json()
        table_id = table["table_id"]
        tokens = [httpx.post(f"{base}/api/tables/{table_id}/seats/{seat}/join").json()["token"]
                  for seat in range(2)]
        versions: list[int] = []
        sent = threading.Semaphore(0)
        # One shared client (a connection per poll): a client per thread spends seconds building SSL contexts.
        limits = httpx.Limits(max_connections=300, max_keepalive_connections=300)
        http = httpx.Client(limits=limits, timeout=30)

        def poll() -> None:
            sent.release()
            response = http.get(f"{base}/api/tables/{table_id}/seats/0", params={"after": 0, "wait": 25},
                                headers={"Authorization": f"Bearer {tokens[0]}"})
            versions.append(response.json()["version"])

        pollers = [threading.Thread(target=poll) for _ in range(100)]
        started = time.monotonic()
        for poller in pollers:
            poller.start()
        for _ in pollers:
            sent.acquire()
        time.sleep(2.0)  # let the last requests reach the server and park
        assert time.monotonic() - started < 15, "the client itself was too slow to park the polls"
        # One worker process, 100 requests parked: other requests are still answered at once.
        started = time.monotonic()
        for _ in range(20):
            assert httpx.get(f"{base}/api/hello").status_code == 200
        assert time.monotonic() - started < 10  # 20 requests; far below the 25 s the polls hold
        auth = {"Authorization": f"Bearer {tokens[1]}"}
        state = httpx.get(f"{base}/api/tables/{table_id}/seats/1", headers=auth).json()
        moved = time.monotonic()
        response = httpx.post(f"{base}/api/tables/{table_id}/seats/1/moves", headers=auth,
                              json={"move": state["view"]["legal"][:3], "expected_version": 0})
        assert response.status_code == 200
        for poller in pollers:
            poller.join(timeout=30)
        assert time.monotonic() - moved < 10  # woken by the notification, not the 25 s timeout
        assert versions == [1] * 100
        http.close()


@pytest.mark.timeout(90)
def test_ten_posts_across_two_worker_processes_apply_exactly_one(gunicorn_server, redis_conn, key_prefix):
    """Across processes only the Lua version check stands between two commits: one wins, the rest get 409."""
    from core.tables import TableStore

    with gunicorn_server("gevent", workers=2) as base:
        created = httpx.post(f"{base}/api/tables", json={"game": "spot-hearts", "seats": ["open"] * 4})
        table_id = created.json()["table_id"]
        token = httpx.post(f"{base}/api/tables/{table_id}/seats/3/join").json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        legal = httpx.get(f"{base}/api/tables/{table_id}/seats/3", headers=auth).json()["view"]["legal"]
        barrier = threading.Barrier(POSTS)
        statuses: list[int] = []

        def post() -> None:
            # A fresh connection each: gunicorn spreads them over both worker processes.
            with httpx.Client(headers={"Connection": "close"}) as http:
                barrier.wait()
                response = http.post(f"{base}/api/tables/{table_id}/seats/3/moves", headers=auth,
                                     json={"move": legal[:3], "expected_version": 0})
                statuses.append(response.status_code)

        threads = [threading.Thread(target=post) for _ in range(POSTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(statuses) == [200] + [409] * (POSTS - 1)
    tables = TableStore(redis_conn, key_prefix)
    assert tables.load_table(table_id).version == 1
    assert len(tables.moves(table_id)) == 1

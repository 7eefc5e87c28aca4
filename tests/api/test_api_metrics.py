"""GET /metrics: the operator's Prometheus scrape, counted across gunicorn's worker processes
(PROMETHEUS_MULTIPROC_DIR), read back with prometheus-client's own parser."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import redis
from rq import Queue

from arena.workers import ArenaSimpleWorker
from core import keys
from tests.conftest import REPO_ROOT
from tests.scrape import samples, value

TOKEN = "operator-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}




@pytest.mark.drill
@pytest.mark.timeout(90)
def test_two_gunicorn_workers_count_into_one_scrape(gunicorn_server, redis_url, key_prefix, tmp_path: Path):
    metrics_dir = tmp_path / "metrics"
    env = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "TA_ADMIN_TOKEN": TOKEN}
    connection = redis.Redis.from_url(redis_url)  # RQ's payloads are bytes
    queue = Queue(keys.arena_queue(key_prefix), connection=connection)
    # A failed job (a real RQ worker ran it; the arena's, which holds no pub/sub listener to wait for) and
    # three waiting ones: the queue gauges read them from Redis.
    queue.enqueue("builtins.int", "not a number")
    ArenaSimpleWorker([queue], connection=connection).work(burst=True)
    for _ in range(3):
        queue.enqueue("builtins.int", "7")
    # A process killed outright while it held a long-poll: its live gauge file stays behind, and the next
    # gunicorn to start drops it (a master killed with SIGKILL never ran child_exit for its workers).
    code = ("import os, signal; from core import metrics; metrics.LONG_POLLS_HELD.labels('seat').inc(); "
            "os.kill(os.getpid(), signal.SIGKILL)")
    killed = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env})
    assert killed.returncode == -signal.SIGKILL
    assert len(list(metrics_dir.glob("gauge_livesum_*.db"))) == 1
    with gunicorn_server("gevent", workers=2, extra_env=env) as base:
        requests = 40
        # A fresh connection each (one client: building one costs an SSL context): the kernel spreads them
        # over both workers' sockets.
        with httpx.Client(headers={"Connection": "close"}) as http:
            for _ in range(requests):
                assert http.get(f"{base}/api/games").status_code == 200
        assert httpx.get(f"{base}/api/tables/no-such-table").status_code == 404
        assert httpx.get(f"{base}/no/such/path/{time.time()}").status_code == 404

        unauthorised = httpx.get(f"{base}/metrics")
        assert unauthorised.status_code == 401
        assert unauthorised.headers["content-type"] == "application/problem+json"
        assert unauthorised.json()["type"] == "/problems/token-required"
        assert unauthorised.headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
        wrong = httpx.get(f"{base}/metrics", headers={"Authorization": "Bearer operator-s3creT"})
        assert wrong.status_code == 403 and wrong.json()["type"] == "/problems/not-operator"

        # A long-poll parked on a seat shows in the gauge while it waits, and leaves it when answered.
        table_id = httpx.post(f"{base}/api/tables",
                              json={"game": "spot-hearts", "seats": ["open"] * 4}).json()["table_id"]
        seat_token = httpx.post(f"{base}/api/tables/{table_id}/seats/0/join").json()["token"]
        poll = threading.Thread(target=httpx.get, args=(f"{base}/api/tables/{table_id}/seats/0",),
                                kwargs={"params": {"after": 5, "wait": 3}, "timeout": 10,
                                        "headers": {"Authorization": f"Bearer {seat_token}"}})
        poll.start()
        deadline = time.monotonic() + 2.5
        held = 0.0
        while held < 1 and time.monotonic() < deadline:
            held = value(samples(httpx.get(f"{base}/metrics", headers=AUTH).text),
                         "trickarena_long_polls_held", view="seat")
        assert held == 1
        poll.join()

        response = httpx.get(f"{base}/metrics", headers=AUTH)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
        scraped = samples(response.text)
    games = {"route": "/api/games", "method": "GET"}
    assert value(scraped, "trickarena_http_requests_total", status="200", **games) == requests
    assert value(scraped, "trickarena_http_request_duration_seconds_count", **games) == requests
    assert value(scraped, "trickarena_http_request_duration_seconds_bucket", le="+Inf", **games) == requests
    assert value(scraped, "trickarena_http_requests_total", route="/api/tables/<table_id>", method="GET",
                 status="404") == 1
    assert value(scraped, "trickarena_http_requests_total", route="unmatched", method="GET",
                 status="404") == 1
    # The refused scrapes were counted too, by their status.
    assert value(scraped, "trickarena_http_requests_total", route="/metrics", method="GET", status="401") == 1
    assert value(scraped, "trickarena_http_requests_total", route="/metrics", method="GET", status="403") == 1
    assert value(scraped, "trickarena_long_polls_held", view="seat") == 0
    assert value(scraped, "trickarena_http_requests_total", route="/api/tables/<table_id>/seats/<int:seat>",
                 method="GET", status="200") == 1
    # No raw path ever becomes a label.
    assert not [labels for _name, labels in scraped if any(table_id in v for _k, v in labels)]
    assert value(scraped, "trickarena_queue_jobs", queue="arena") == 3
    assert value(scraped, "trickarena_queue_failed_jobs", queue="arena") == 1
    assert value(scraped, "trickarena_queue_jobs", queue="house") == 0
    # Both worker processes wrote their own counters: the scrape added them up.
    assert len(list(metrics_dir.glob("counter_*.db"))) == 2
    # Each stopped worker's live gauge file went with it (gunicorn's child_exit).
    assert list(metrics_dir.glob("gauge_livesum_*.db")) == []


def test_metrics_are_closed_without_an_operator_token_or_with_their_own_address(make_app):
    closed = make_app(ADMIN_TOKEN=None).test_client().get("/metrics", headers=AUTH)
    assert closed.status_code == 404 and closed.json["type"] == "/problems/metrics-closed"
    assert closed.content_type == "application/problem+json"
    elsewhere = make_app(ADMIN_TOKEN=TOKEN, METRICS_BIND="127.0.0.1:9108").test_client()
    answer = elsewhere.get("/metrics", headers=AUTH)
    assert answer.status_code == 404 and answer.json["type"] == "/problems/metrics-closed"


def test_redis_errors_are_counted_and_a_scrape_survives_a_lost_redis(make_app):
    from devstack.devredis import free_port

    app = make_app(ADMIN_TOKEN=TOKEN, REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    client = app.test_client()

    def unavailable() -> float:
        scrape = client.get("/metrics", headers=AUTH)
        assert scrape.status_code == 200
        return value(samples(scrape.text), "trickarena_redis_errors_total", component="api",
                     kind="unavailable")

    before = unavailable()
    for _ in range(3):
        assert client.get("/api/tables/some-table").status_code == 503
    assert unavailable() == before + 3
    scraped = samples(client.get("/metrics", headers=AUTH).text)
    assert value(scraped, "trickarena_redis_errors_total", component="metrics", kind="unavailable") >= 2
    assert not [name for name, _labels in scraped if name.startswith("trickarena_queue_")]

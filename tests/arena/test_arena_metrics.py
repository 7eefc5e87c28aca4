"""The arena's metrics: a real `python -m arena worker` plays a match against real HTTP bots (one good, one
too slow for its deadline, one illegal) and writes its samples to the machine's PROMETHEUS_MULTIPROC_DIR;
`python -m arena metrics` on its own address and the API's GET /metrics both serve them."""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import redis
from rq import Queue

from core import keys
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from core.queues import enqueue_match
from devstack import devserve
from devstack.devredis import free_port
from tests.conftest import REPO_ROOT
from tests.scenarios import match_spec
from tests.scrape import samples, value
from tests.waiting import wait_until

TOKEN = "operator-s3cret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
STRIKES = 5




def wait_listening(url: str, process: subprocess.Popen, timeout: float = 30.0) -> None:
    def listening() -> bool:
        assert process.poll() is None, f"exited with {process.returncode}"
        try:
            httpx.get(url, timeout=1)
        except httpx.TransportError:
            return False
        return True

    wait_until(listening, timeout, f"something listening at {url}", interval=0.1)


@pytest.mark.timeout(120)
def test_a_match_with_a_slow_and_an_illegal_bot_is_counted(redis_url, key_prefix, bot_server, gunicorn_server,
                                                            tmp_path: Path):
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    ladder = LadderConfig("mx", "sore-spot", 4, {"rounds": 1}, house_bots=("heuristic",), deadline_ms=1000,
                          strike_limit=STRIKES)
    store.save_ladder(ladder)
    # A deadline a compliant bot meets on a busy machine too; the slow bot is twice as slow as it allows.
    bots = {"good": bot_server("good"), "slow": bot_server("sleep", delay_s=2.0),
            "cheat": bot_server("illegal")}
    entrants = [Member(name, MemberKind.HTTP, url=bot.url) for name, bot in bots.items()]
    entrants.append(Member.house("heuristic"))
    spec = match_spec(f"{key_prefix}metrics".replace(":", "-"), entrants, ladder_id="mx", seed=7,
                      strike_limit=STRIKES)
    store.create_match(spec)
    enqueue_match(Queue(keys.arena_queue(key_prefix), connection=conn), spec, ladder, key_prefix)

    metrics_dir = tmp_path / "metrics"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix,
           "ALLOW_PRIVATE_BOT_URLS": "1", "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
           "TA_ADMIN_TOKEN": TOKEN}
    worker = subprocess.run([sys.executable, "-m", "arena", "worker", "--burst", "--threads", "2"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=90)
    assert worker.returncode == 0, worker.stderr[-2000:]
    doc = store.match(spec.match_id)
    assert doc["status"] in ("rated", "void")
    stats = store.stats("mx", list(bots))
    assert stats["slow"]["strikes"] == STRIKES and stats["cheat"]["strikes"] == STRIKES

    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "arena", "metrics", "--bind", f"127.0.0.1:{port}"],
                              cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        wait_listening(url, server)
        refused = httpx.get(url)
        assert refused.status_code == 401 and refused.json()["type"] == "/problems/token-required"
        wrong = httpx.get(url, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 403 and wrong.json()["type"] == "/problems/not-operator"
        assert httpx.get(f"http://127.0.0.1:{port}/other", headers=AUTH).status_code == 404
        answer = httpx.get(url, headers=AUTH)
        assert answer.status_code == 200
        scraped = samples(answer.text)
    finally:
        devserve.stop(server, timeout=5)

    assert value(scraped, "trickarena_matches_started_total", ladder="mx") == 1
    assert value(scraped, "trickarena_matches_finished_total", ladder="mx", status=doc["status"]) == 1
    assert value(scraped, "trickarena_bot_decisions_total", ladder="mx", outcome="timeout") == STRIKES
    assert value(scraped, "trickarena_bot_decisions_total", ladder="mx", outcome="illegal") == STRIKES
    good_calls = stats["good"]["move_calls"]
    assert good_calls
    assert value(scraped, "trickarena_bot_decisions_total", ladder="mx", outcome="ok") == good_calls
    assert value(scraped, "trickarena_bot_decisions_total", ladder="mx", outcome="error") == 0
    calls = sum(stats[bot]["move_calls"] for bot in bots)
    assert value(scraped, "trickarena_bot_decision_seconds_count", ladder="mx") == calls
    # The slow bot's five calls each took the whole deadline: none is in the 100 ms bucket.
    assert value(scraped, "trickarena_bot_decision_seconds_bucket", ladder="mx", le="0.1") <= calls - STRIKES
    assert value(scraped, "trickarena_queue_jobs", queue="arena") == 0
    assert value(scraped, "trickarena_queue_oldest_job_age_seconds", queue="arena") == 0
    # The match is over: none in flight; the good bot's last answer is stamped (a worker that has ended
    # leaves its live gauges out).
    assert value(scraped, "trickarena_matches_in_flight", ladder="mx") == 0
    assert abs(value(scraped, "trickarena_last_decision_timestamp_seconds", ladder="mx") - time.time()) < 120

    # The API of the same machine serves the same directory: one scrape target for every process.
    with gunicorn_server("gevent", workers=1, extra_env={"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
                                                         "TA_ADMIN_TOKEN": TOKEN}) as base:
        from_api = samples(httpx.get(f"{base}/metrics", headers=AUTH).text)
    assert value(from_api, "trickarena_matches_started_total", ladder="mx") == 1
    assert value(from_api, "trickarena_bot_decisions_total", ladder="mx", outcome="timeout") == STRIKES


def test_the_metrics_command_answers_a_wrong_start_with_one_line(monkeypatch):
    from click.testing import CliRunner

    import arena.metricsserver
    from arena.__main__ import main

    monkeypatch.delenv("TA_METRICS_BIND", raising=False)
    for args in (["metrics"], ["metrics", "--bind", "localhost"], ["metrics", "--bind", "127.0.0.1:9108"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code != 0 and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert result.output.startswith("Error:"), result.output
    # This test process has no metrics directory: the server refuses to serve an empty view.
    assert "PROMETHEUS_MULTIPROC_DIR" in CliRunner().invoke(main, ["metrics", "--bind", "127.0.0.1:1"]).output
    examples = doctest.testmod(arena.metricsserver)
    assert examples.attempted and not examples.failed

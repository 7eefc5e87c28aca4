"""The first scrape after a start shows every documented metric, zero-valued where nothing happened, in
single-process mode (in-process) and multiprocess mode (gunicorn with a fresh directory); and the example
alert rules name only metrics that exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.test_metrics_docs import documented

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "first-scrape-operator"
RULES = ROOT / "deploy" / "prometheus" / "trick-arena-alerts.yml"


def families(text: str) -> dict[str, list]:
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def expected() -> set[str]:
    """The documented names as the text format's families name them (a counter's without _total)."""
    return {name.removesuffix("_total") for name in documented()}


FIRST_SCRAPE = """
from api import create_app
app = create_app({"TESTING": True, "REDIS_URL": REDIS_URL, "ADMIN_TOKEN": TOKEN})
answer = app.test_client().get("/metrics", headers={"Authorization": "Bearer " + TOKEN})
assert answer.status_code == 200, answer.status_code
print(answer.get_data(as_text=True))
"""


def test_a_fresh_app_shows_every_metric_in_its_first_scrape(redis_url: str) -> None:
    # A process of its own: this one's metrics already hold what earlier tests counted.
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    code = f"REDIS_URL, TOKEN = {redis_url!r}, {TOKEN!r}\n" + FIRST_SCRAPE
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = families(done.stdout)
    assert expected() <= set(found), sorted(expected() - set(found))
    decisions = {s.labels["outcome"] for s in found["trickarena_bot_decisions"]
                 if s.labels.get("ladder") == "spot-hearts-4p" and s.name.endswith("_total")}
    assert decisions == {"ok", "timeout", "illegal", "error"}


@pytest.mark.drill
def test_gunicorn_with_a_fresh_metrics_directory_shows_every_metric_at_once(gunicorn_server, tmp_path):
    env = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"), "TA_ADMIN_TOKEN": TOKEN}
    with gunicorn_server("gevent", workers=2, extra_env=env) as base:
        text = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    found = families(text)
    assert expected() <= set(found), sorted(expected() - set(found))


def test_the_alert_rules_name_only_documented_metrics() -> None:
    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    assert {rule["alert"] for rule in rules} >= {"TrickArenaNoDecisions", "TrickArenaStrikeRate",
                                                 "TrickArenaQueueAge"}
    named = {name for rule in rules for name in re.findall(r"trickarena_\w+", rule["expr"])}
    # A histogram is documented by its name; a rule reads its series (name_bucket, name_sum, name_count).
    known = set(documented())
    named = {name if name in known else re.sub(r"_(bucket|sum|count)$", "", name) for name in named}
    assert named and named <= set(documented()), sorted(named - set(documented()))


def test_the_queue_age_is_the_wait_of_its_oldest_job(redis_url: str, key_prefix: str) -> None:
    import time

    import redis
    from rq import Queue

    from core import metrics

    connection = redis.Redis.from_url(redis_url)
    queue = Queue(f"{key_prefix}age", connection=connection)
    collector = metrics.QueueCollector(connection, {"arena": queue.name})
    ages = {f.name: f.samples[0].value for f in collector.collect()}
    assert ages["trickarena_queue_oldest_job_age_seconds"] == 0  # nothing waiting
    oldest, newer = queue.enqueue("builtins.int", "1"), queue.enqueue("builtins.int", "2")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime(time.time() - 120))
    connection.hset(oldest.key, "enqueued_at", stamp)  # it has waited two minutes
    age = {f.name: f.samples[0].value for f in collector.collect()}["trickarena_queue_oldest_job_age_seconds"]
    assert 115 < age < 180 and newer.id

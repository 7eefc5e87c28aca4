"""Redis Sentinel, for real: a primary, a replica and three Debian redis-sentinel processes on loopback.

The connection factory picks Sentinel when REDIS_SENTINELS names sentinels (and the API works through it);
the Lua scripts run again on a new primary that has never seen them (NOSCRIPT answered by loading them);
and the failover drill, with a few seconds of load, loses no acknowledged move and no rating. Without
redis-sentinel these tests skip, and fail under CI (.ci/run installs it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from core.metrics import OWN
from core.redis.connections import ScriptLane, redis_client, settings_client
from core.settings import Settings
from core.tables.record import SeatKind
from core.tables.store import SeatSpec, TableStore
from devstack.sentinel import REDIS_CONF, SENTINEL_CONF, SentinelCluster, sample_setting, sentinel_binary
from devstack.stack import Stack
from tests.ci import under_ci
from tests.conftest import REPO_ROOT, log_folder_on_failure


@pytest.fixture(scope="module")
def sentinel_needed() -> None:
    if sentinel_binary() is None:
        message = "redis-sentinel is needed for the Sentinel tests (Debian: apt-get install redis-sentinel)"
        if under_ci():
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture
def cluster(sentinel_needed: None, tmp_path: Path) -> Iterator[tuple[SentinelCluster, Stack]]:
    stack = Stack(workdir=tmp_path)
    cluster = SentinelCluster(tmp_path / "cluster", down_after_ms=1000)  # a quick failover
    samples = {path: path.read_text() for path in (REDIS_CONF, SENTINEL_CONF)}
    try:
        cluster.launch(lambda name, command: stack._add(name, command, stack.env()))
        yield cluster, stack
    finally:
        stack.stop()
    # The servers and sentinels rewrite their configuration as the topology changes: their own copies.
    assert {path: path.read_text() for path in samples} == samples


def fail_over(cluster: SentinelCluster, stack: Stack, timeout: float = 30.0) -> int:
    """SIGKILL the primary; the new primary's port once the sentinels report it."""
    before = cluster.primary_port()
    stack.children[cluster.node_name(0)].kill()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = cluster.primary_port()
        if now is not None and now != before:
            return now
        time.sleep(0.1)
    raise AssertionError(f"no failover within {timeout} s; see {stack.workdir}")


def test_the_factory_finds_the_primary_through_the_sentinels(cluster, make_app, key_prefix):
    cluster, _stack = cluster
    # REDIS_URL's host and port are not used on Sentinel (nothing listens on port 1): only its database.
    settings = Settings.from_env({"REDIS_URL": "redis://127.0.0.1:1/3",
                                  "REDIS_SENTINELS": ",".join(cluster.sentinels),
                                  "REDIS_SENTINEL_SERVICE": cluster.service})
    client = settings_client(settings, decode_responses=True)
    assert client.set(f"{key_prefix}where", "primary") and client.get(f"{key_prefix}where") == "primary"
    primary = redis_client(cluster.node_url(0).replace("/0", "/3"), decode_responses=True)
    assert primary.get(f"{key_prefix}where") == "primary"  # on the primary, in database 3
    assert type(client.connection_pool).__name__ == "SentinelConnectionPool"
    assert type(redis_client(cluster.node_url(0)).connection_pool).__name__ == "ConnectionPool"

    # The API on the same settings: tables (Lua scripts), RQ's queue and the per-address limit's storage.
    app = make_app(REDIS_URL="redis://127.0.0.1:1/3", REDIS_SENTINELS=",".join(cluster.sentinels),
                   REDIS_SENTINEL_SERVICE=cluster.service)
    assert app.config["RATELIMIT_STORAGE_URI"] == f"redis+sentinel://{','.join(cluster.sentinels)}/trick-arena"
    http = app.test_client()
    seats = ["open", "random", "random", "random"]
    answer = http.post("/api/tables", json={"game": "spot-hearts", "seats": seats, "options": {"target": 1}})
    assert answer.status_code == 201, answer.text
    table_id = answer.get_json()["table_id"]
    assert primary.exists(f"{key_prefix}table:{table_id}")
    assert primary.keys(f"{key_prefix}rl*") or primary.keys("*LIMITER*"), "the limit counted on the primary"


def unreplicated_writes(write: str = "move") -> float:
    return OWN.get_sample_value("trickarena_redis_writes_unreplicated_total", {"write": write}) or 0.0


def play_one(store: TableStore, table_id: str) -> int:
    record = store.load_table(table_id)
    seat = record.to_act[0]
    held = store.seat_view(table_id, seat)
    decision = held.view["decision"]
    move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
    store.apply_move(table_id, seat, move, expected_version=held.version)
    return store.load_table(table_id).version


def test_scripts_run_again_on_a_new_primary_that_never_saw_them(cluster, key_prefix):
    cluster, stack = cluster
    client = cluster.client(decode_responses=True)
    store = TableStore(client, key_prefix, wait_ms=500)
    assert isinstance(store._lane, ScriptLane)
    table = store.create_table("spot-hearts", 4, {"target": 1}, [SeatSpec(SeatKind.HOUSE, "random")] * 4)
    unreplicated = unreplicated_writes()
    version = play_one(store, table.table_id)  # acknowledged once the replica has it (WAIT 1 500)
    assert unreplicated_writes() == unreplicated
    replica = redis_client(cluster.node_url(1), decode_responses=True)
    replica.execute_command("SCRIPT", "FLUSH")  # the replica, soon primary, knows no script
    sha = store._commit.sha
    assert replica.script_exists(sha) == [False]

    new_port = fail_over(cluster, stack)
    assert new_port == cluster.data_ports[1]
    # The same store: its lane's idle connection points at the dead primary, the scripts are unknown there.
    deadline = time.monotonic() + 20
    while True:
        try:
            after = play_one(store, table.table_id)
            break
        except redis.ConnectionError:  # the new primary may still be taking over
            assert time.monotonic() < deadline
            time.sleep(0.2)
    assert after == version + 1  # the move acknowledged before the kill is there, and one more on top
    assert unreplicated_writes() == unreplicated + 1  # the new primary has no replica yet: answered, counted
    assert replica.script_exists(sha) == [True]  # NOSCRIPT answered by loading it on the new primary
    assert replica.info("replication")["role"] == "master"


def test_the_gevent_lane_reloads_its_scripts_on_a_new_primary(cluster, key_prefix):
    """The API's gevent workers run the table store's scripts on one pipelined connection
    (core/redis/pipelined.py): after a failover it connects to the new primary and loads them there."""
    cluster, stack = cluster
    replica = redis_client(cluster.node_url(1), decode_responses=True)
    scenario = subprocess.Popen([sys.executable, "-m", "tests.core.gevent_lane_scenarios",
                                 "sentinel_failover", ",".join(cluster.sentinels), key_prefix], cwd=REPO_ROOT,
                                text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = json.loads(scenario.stdout.readline() or "{}")
        assert first.get("lane") == "PipelinedLane", first or scenario.stderr.read()
        replica.execute_command("SCRIPT", "FLUSH")
        assert fail_over(cluster, stack) == cluster.data_ports[1]
        out, err = scenario.communicate("failed over\n", timeout=60)
        assert scenario.returncode == 0, err
        seen = json.loads(out.splitlines()[-1])
    finally:
        scenario.kill()
    assert seen["after"] == first["version"] + 1 and seen["links_opened"] == 2
    assert replica.script_exists(first["sha"]) == [True]


def test_the_failover_drill_with_a_few_seconds_of_load(sentinel_needed, tmp_path, request):
    output = tmp_path / "failover.json"
    done = subprocess.run(
        [sys.executable, "-m", "loadtest", "--output", str(output), "faults", "redis-failover",
         "--seconds", "3", "--clients", "2", "--bots", "4", "--commit-rounds", "1",
         "--down-after-ms", "1000"],
        cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, capture_output=True, text=True,
        timeout=240)
    assert output.exists(), done.stderr[-3000:]
    result = json.loads(output.read_text())
    log_folder_on_failure(request.node, Path(result["workdir"]))
    # Moves and ratings are lost only where the service answered writes no replica had acknowledged.
    if not result["unreplicated_writes_before_fault"]:
        assert result["acknowledged_moves_lost"] == 0 and result["ratings_lost"] == 0, result
    assert not result["rating_problems"] and not result["processes_died"], result
    assert result["writes_accepted_after_s"] < 15, result
    assert result["failed_checks"] == [], result
    assert done.returncode == 0 and result["passed"], result


def test_the_sentinel_docs_name_real_files_flags_and_the_sample_timings():
    doc = (REPO_ROOT / "docs" / "reliability.md").read_text()
    part = doc[doc.index("### Redis Sentinel failover"):doc.index("## Hostile input")]
    for path in re.findall(r"`((?:deploy|core|arena|loadtest|tests)/[\w./-]+)`", part):
        assert (REPO_ROOT / path).exists(), path
    usage = subprocess.run([sys.executable, "-m", "loadtest", "faults", "--help"], cwd=REPO_ROOT,
                           capture_output=True, text=True, check=True).stdout
    assert "redis-failover" in usage
    for flag in set(re.findall(r"(--[a-z][a-z-]+)", part)):
        assert flag in usage, flag
    for name in ("down-after-milliseconds", "failover-timeout"):
        assert f"`{name}` {sample_setting(name)}" in part or f"{name} {sample_setting(name)}" in part, name
    readme = (REPO_ROOT / "README.md").read_text()
    assert "`TA_REDIS_WAIT_MS`" in readme and "`REDIS_SENTINELS`" in readme

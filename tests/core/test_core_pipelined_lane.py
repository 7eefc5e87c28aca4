"""core.redis.pipelined.PipelinedLane: under gevent, the hot calls of every greenlet on one shared connection,
written together per turn of the loop, each caller getting its own reply and the client's errors.

Each scenario runs in a process gevent has monkey-patched, as the API's gunicorn workers are
(tests/core/gevent_lane_scenarios.py); the assertions are here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from core.redis.connections import ScriptLane, script_lane
from devstack.devredis import free_port, server_args, wait_ready
from devstack.devserve import stop
from tests.conftest import REPO_ROOT


def run_scenario(name: str, url: str, prefix: str = "") -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "tests.core.gevent_lane_scenarios", name, url, prefix],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_gevent_processes_get_the_pipelined_lane_and_others_the_connection_stack(redis_conn, redis_url):
    assert isinstance(script_lane(redis_conn), ScriptLane)  # this process is not patched
    # Patched, RESP2 pipelines; RESP3 may interleave pushes with replies, so it keeps the stack.
    assert run_scenario("lane_kind", redis_url) == {"resp2": "PipelinedLane", "resp3": "ScriptLane"}


def test_concurrent_greenlets_each_get_their_own_replies_from_batched_writes(redis_url, key_prefix):
    seen = run_scenario("many_greenlets", redis_url, key_prefix)
    assert seen["wrong"] == []  # every script reply, plain reply and refusal went to the caller that asked
    assert seen["count"] == str(50 * 50)  # every script ran exactly once
    assert seen["links_opened"] == 1
    assert seen["commands"] >= 50 * 150
    assert seen["writes"] * 10 < seen["commands"]  # written together, not one write per command


def test_a_script_redis_does_not_know_is_loaded_and_every_caller_answered(redis_url):
    seen = run_scenario("unknown_script", redis_url)
    assert (seen["known_before"], seen["known_after"]) == (False, True)
    assert seen["replies"] == [f"g{index}" for index in range(20)]


def test_a_connection_killed_while_idle_is_replaced_before_the_next_call(redis_url, key_prefix):
    seen = run_scenario("killed_while_idle", redis_url, key_prefix)
    assert (seen["first"], seen["second"], seen["stored"]) == (1, 2, "2")  # the call counted once
    assert seen["new_id"] and seen["links_opened"] == 2


def test_a_call_written_to_a_connection_just_killed_is_made_once_more(redis_url, key_prefix):
    seen = run_scenario("killed_before_the_reader_noticed", redis_url, key_prefix)
    assert (seen["second"], seen["stored"], seen["links_opened"]) == (2, "2", 2)  # once, on a new connection


def test_calls_in_flight_when_redis_dies_fail_and_the_next_call_reconnects(tmp_path):
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    server = subprocess.Popen(server_args(port, tmp_path, persistent=False), stdout=subprocess.DEVNULL)
    wait_ready(url)
    scenario = subprocess.Popen([sys.executable, "-m", "tests.core.gevent_lane_scenarios",
                                 "redis_gone_mid_flight", url, ""], cwd=REPO_ROOT, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert scenario.stdout.readline().strip() == "in flight"
        server.kill()
        server.wait()
        outcomes = json.loads(scenario.stdout.readline())
        server = subprocess.Popen(server_args(port, tmp_path, persistent=False), stdout=subprocess.DEVNULL)
        wait_ready(url)
        out, err = scenario.communicate("restarted\n", timeout=60)
        assert scenario.returncode == 0, err
        seen = json.loads(out.splitlines()[-1])
    finally:
        scenario.kill()
        stop(server, timeout=10)
    # The three callers were waiting on the dead connection: each got the client's error (its one retry
    # found no Redis), none hung; once Redis is back the next call opens a new connection.
    assert outcomes == ["ConnectionError"] * 3
    assert seen == {"after": "PONG", "links_opened": 2}


def test_a_writer_killed_before_writing_leaves_the_others_commands_to_be_written(redis_url, key_prefix):
    seen = run_scenario("writer_interrupted", redis_url, key_prefix)
    assert seen["first_killed"] and seen["second"] == "v"
    assert seen["links_opened"] == 1 and seen["after"] == "v"  # the connection was not given up


def test_a_reply_that_times_out_is_not_taken_for_a_later_calls(redis_url, key_prefix):
    seen = run_scenario("timed_out", redis_url, key_prefix)
    assert seen == {"outcome": "TimeoutError", "next": "1", "links_opened": 2}


def test_a_caller_that_gives_up_keeps_its_own_timeout_and_the_connection_stays_in_order(redis_url,
                                                                                      key_prefix):
    seen = run_scenario("caller_given_up", redis_url, key_prefix)
    assert seen == {"outcome": "its own Timeout", "after": ["1", "PONG"], "links_opened": 1}


def test_a_large_reply_comes_whole_between_other_callers_replies(redis_url, key_prefix):
    seen = run_scenario("large_reply", redis_url, key_prefix)
    assert seen == {"small": [["x"], ["x"]], "big_whole": True}


def test_a_redis_that_is_not_there_raises_the_clients_error_each_time():
    seen = run_scenario("refused_from_the_start", f"redis://127.0.0.1:{free_port()}/0")
    assert seen["outcomes"] == ["ConnectionError", "ConnectionError"]

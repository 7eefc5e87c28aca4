"""core.redis.connections.ScriptLane: the table store's scripts on connections of their own, with the client's
semantics (unknown scripts loaded, a connection gone stale replaced, the same errors, a cap)."""

from __future__ import annotations

import secrets
import threading
import time

import pytest
import redis

from core.redis.connections import ScriptLane


def _client_id(lane: ScriptLane) -> int:
    """The Redis client id of the lane's idle connection (a test looks inside; nothing else does)."""
    conn = lane._idle[-1]
    conn.send_command("CLIENT", "ID")
    return int(conn.read_response())


def test_a_script_redis_does_not_know_yet_is_loaded_and_run(redis_conn, key_prefix):
    # A script text no one has loaded: its first EVALSHA is refused with NOSCRIPT.
    script = redis_conn.register_script(f"-- {secrets.token_hex(8)}\nreturn {{KEYS[1], ARGV[1]}}")
    assert redis_conn.script_exists(script.sha) == [False]
    lane = ScriptLane(redis_conn)
    assert lane.run(script, [f"{key_prefix}k"], [7]) == [f"{key_prefix}k", "7"]
    assert redis_conn.script_exists(script.sha) == [True]
    assert lane.run(script, [f"{key_prefix}k"], ["x"]) == [f"{key_prefix}k", "x"]
    assert lane.idle == 1  # one connection served both calls


def test_a_connection_killed_while_idle_is_replaced_and_the_call_made_once(redis_conn, key_prefix):
    counter = f"{key_prefix}calls"
    script = redis_conn.register_script("return redis.call('INCR', KEYS[1])")
    lane = ScriptLane(redis_conn)
    assert lane.run(script, [counter], []) == 1
    redis_conn.client_kill_filter(_id=_client_id(lane))  # what a Redis restart does to idle sockets
    assert lane.run(script, [counter], []) == 2
    assert redis_conn.get(counter) == "2"  # the failed attempt never reached Redis; the retry counted once


def test_a_connection_refused_from_the_start_raises_the_clients_error(redis_conn):
    from devstack.devredis import free_port

    nowhere = redis.Redis(port=free_port(), decode_responses=True)
    script = nowhere.register_script("return 1")
    lane = ScriptLane(nowhere)
    with pytest.raises(redis.ConnectionError):
        lane.run(script, [], [])
    # The second call's connection is not fresh: one retry, then the error.
    with pytest.raises(redis.ConnectionError):
        lane.run(script, [], [])


def test_a_script_error_comes_out_as_the_clients_and_leaves_the_connection_usable(redis_conn, key_prefix):
    script = redis_conn.register_script("return redis.error_reply('NOPE ' .. ARGV[1])")
    ok = redis_conn.register_script("return ARGV[1]")
    lane = ScriptLane(redis_conn)
    with pytest.raises(redis.ResponseError, match="NOPE 1"):
        lane.run(script, [], [1])
    before = _client_id(lane)
    assert lane.run(ok, [], ["fine"]) == "fine"
    assert _client_id(lane) == before  # not reconnected


def test_beyond_its_limit_calls_go_through_the_client(redis_conn, key_prefix):
    script = redis_conn.register_script("return ARGV[1]")
    lane = ScriptLane(redis_conn, limit=1)
    lane.run(script, [], ["first"])
    taken = lane._idle.pop()  # the lane's one connection is busy (as in a concurrent call)
    assert lane.run(script, [], ["second"]) == "second"  # served by the client's pool
    assert lane.idle == 0
    lane._idle.append(taken)


def test_threads_sharing_a_lane_each_get_their_own_connection(redis_conn, key_prefix):
    counter = f"{key_prefix}calls"
    script = redis_conn.register_script("return {redis.call('INCR', KEYS[1]), ARGV[1]}")
    lane = ScriptLane(redis_conn)
    mixed = []

    def caller(name: str) -> None:
        for _ in range(200):
            if lane.run(script, [counter], [name])[1] != name:
                mixed.append(name)  # another caller's reply: a connection was shared

    threads = [threading.Thread(target=caller, args=(f"t{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert mixed == [] and redis_conn.get(counter) == "1600"
    assert 1 <= lane.idle <= 8


def test_a_reply_larger_than_one_socket_read_comes_whole(redis_conn, key_prefix):
    # A finished table's record runs to hundreds of kilobytes: several reads of the parser's buffer.
    big = secrets.token_hex(300_000)
    redis_conn.hset(f"{key_prefix}h", mapping={"a": big, "b": "x"})
    lane = ScriptLane(redis_conn)
    assert lane.execute("HMGET", f"{key_prefix}h", "a", "b", "c") == [big, "x", None]
    assert lane.execute("HMGET", f"{key_prefix}h", "b") == ["x"]  # nothing of the big reply left unread


def _pings(conn: redis.Redis) -> int:
    return int(conn.info("commandstats").get("cmdstat_ping", {}).get("calls", 0))


def test_a_connection_idle_beyond_its_health_check_interval_is_checked_first(redis_conn, key_prefix):
    checked = redis.Redis(connection_pool=redis.ConnectionPool(
        **{**redis_conn.connection_pool.connection_kwargs, "health_check_interval": 30}))
    lane = ScriptLane(checked)
    lane.execute("SET", f"{key_prefix}k", "1")  # opens the connection
    before = _pings(redis_conn)
    assert lane.execute("GET", f"{key_prefix}k") == "1"
    assert _pings(redis_conn) == before  # checked recently: no PING
    lane._idle[-1].next_health_check = 0.0  # as if idle for longer than the interval
    assert lane.execute("GET", f"{key_prefix}k") == "1"
    assert _pings(redis_conn) == before + 1
    assert lane._idle[-1].next_health_check > 0.0  # a reply restarts the interval


def test_a_reply_that_times_out_is_not_taken_for_the_next_calls(redis_conn, key_prefix):
    impatient = redis.Redis(connection_pool=redis.ConnectionPool(
        **{**redis_conn.connection_pool.connection_kwargs, "socket_timeout": 0.05}))
    lane = ScriptLane(impatient)
    assert lane.execute("SET", f"{key_prefix}k", "1") == "OK"  # opens the connection
    slow = redis_conn.register_script(
        "local stop = redis.call('TIME')[2] + 200000 "
        "while (redis.call('TIME')[2] - stop) % 1000000 > 500000 do end return 'late'")
    redis_conn.script_load(slow.script)  # known to Redis: the lane's own EVALSHA path
    with pytest.raises(redis.TimeoutError):
        lane.run(slow, [], [])
    time.sleep(0.3)  # the script ends and its late reply reaches the timed-out socket
    # The next call must not read that reply as its own.
    assert lane.execute("GET", f"{key_prefix}k") == "1"

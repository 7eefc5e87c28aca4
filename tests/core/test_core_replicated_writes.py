"""A write answered with TA_REDIS_WAIT_MS set but no replica's acknowledgement is counted
(``trickarena_redis_writes_unreplicated_total``), on every path a write takes: the script lane and the
client's pipeline. The session Redis has no replica, so every WAIT here times out; a write acknowledged by a
replica is not counted (tests/reliability/test_reliability_sentinel.py)."""

from __future__ import annotations

import redis

from core.metrics import OWN
from core.redis.connections import ScriptLane
from core.redis.scripts import run_and_wait


def unreplicated_writes(write: str = "move") -> float:
    return OWN.get_sample_value("trickarena_redis_writes_unreplicated_total", {"write": write}) or 0.0


def test_a_write_no_replica_acknowledged_is_answered_and_counted(redis_conn: redis.Redis,
                                                                  key_prefix: str) -> None:
    script = redis_conn.register_script("return redis.call('INCR', KEYS[1])")
    key = f"{key_prefix}n"
    moves, ratings = unreplicated_writes("move"), unreplicated_writes("rating")
    assert run_and_wait(redis_conn, script, [key], [], wait_ms=5) == 1  # how a rating is applied
    assert (unreplicated_writes("move"), unreplicated_writes("rating")) == (moves, ratings + 1)
    assert ScriptLane(redis_conn).run(script, [key], [], wait_ms=5) == 2  # how a move is committed
    assert (unreplicated_writes("move"), unreplicated_writes("rating")) == (moves + 1, ratings + 1)
    assert ScriptLane(redis_conn).run(script, [key], []) == 3  # no WAIT asked: nothing to count
    assert (unreplicated_writes("move"), unreplicated_writes("rating")) == (moves + 1, ratings + 1)

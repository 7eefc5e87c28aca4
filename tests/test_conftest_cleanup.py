"""The session's clean-up of RQ's own keys: only this prefix's queues and their jobs, nothing else."""

from __future__ import annotations

import secrets

import redis
from rq import Queue

from tests.conftest import forget_rq_queues


def test_rq_keys_of_our_queues_and_their_jobs_go_and_nobody_elses(redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    session = f"tacleanup:{secrets.token_hex(4)}:"  # a session prefix; queues are "<prefix>N-arena"
    ours = Queue(f"{session}0-arena", connection=conn)
    theirs = Queue(f"tacleanup:{secrets.token_hex(4)}:0-arena", connection=conn)
    queued = ours.enqueue("builtins.print", "a")
    failed = ours.enqueue("builtins.print", "b")
    ours.remove(failed)
    ours.failed_job_registry.add(failed, ttl=600)
    other = theirs.enqueue("builtins.print", "c")
    try:
        assert forget_rq_queues(conn, session) == 2
        assert not list(conn.scan_iter(match=f"rq:*{session}*"))
        assert not conn.exists(f"rq:job:{queued.id}", f"rq:job:{failed.id}")
        assert conn.exists(f"rq:job:{other.id}") and theirs.get_job_ids() == [other.id]
    finally:
        theirs.delete(delete_jobs=True)


def test_a_job_left_in_rqs_intermediate_queue_is_found_and_its_first_seen_mark_goes(redis_url: str) -> None:
    # A worker moves a job from `rq:queue:NAME` to `rq:queue:NAME:intermediate` before it registers it as
    # started; killed in between, it leaves the job there, and a later worker's maintenance pass marks it with
    # a string key `rq:queue:NAME:intermediate:first_seen:ID`. Neither is a queue of its own.
    from rq.intermediate_queue import IntermediateQueue

    conn = redis.Redis.from_url(redis_url)
    session = f"tacleanup:{secrets.token_hex(4)}:"
    queue = Queue(f"{session}0-arena", connection=conn)
    stranded = queue.enqueue("builtins.print", "d")
    intermediate = IntermediateQueue(queue.key, connection=conn)
    conn.lmove(queue.key, intermediate.key)
    assert intermediate.set_first_seen(stranded.id)
    assert forget_rq_queues(conn, session) == 1
    assert not list(conn.scan_iter(match=f"rq:*{session}*"))
    assert not conn.exists(f"rq:job:{stranded.id}")

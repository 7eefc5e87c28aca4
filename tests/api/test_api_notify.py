"""The long-poll wake-up listener on its own, over the session's real Redis."""

from __future__ import annotations

import threading
import time

import redis

from core import keys
from core.redis.notify import VersionWatcher


def pattern_subscriptions(conn: redis.Redis) -> int:
    return int(conn.execute_command("PUBSUB", "NUMPAT"))


def test_a_published_version_wakes_the_waiter_and_close_ends_the_listener(redis_url: str,
                                                                         key_prefix: str) -> None:
    conn = redis.Redis.from_url(redis_url)
    watcher = VersionWatcher(conn, key_prefix)
    version = {"now": 1}
    answers: list[int] = []
    waiting = threading.Thread(target=lambda: answers.append(
        watcher.wait(keys.table_events(key_prefix, "t1"), after=1, timeout=20,
                     current_version=lambda: version["now"])))
    waiting.start()
    deadline = time.monotonic() + 10
    while watcher.waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watcher.waiting == 1
    patterns_before = pattern_subscriptions(conn)
    started = time.monotonic()
    version["now"] = 2
    conn.publish(keys.table_events(key_prefix, "t1"), 2)
    waiting.join(10)
    assert answers == [2] and time.monotonic() - started < 5  # woken, not timed out after 20 s

    listener = watcher._thread
    assert listener is not None and listener.is_alive()
    watcher.close()
    assert not listener.is_alive()
    assert pattern_subscriptions(conn) == patterns_before - 1  # its subscription is gone too
    conn.close()


def test_each_channel_wakes_only_its_own_waiters(redis_url: str, key_prefix: str) -> None:
    """A bot's seats and a table with the same id are two channels: a version on one wakes no waiter of the
    other."""
    conn = redis.Redis.from_url(redis_url)
    watcher = VersionWatcher(conn, key_prefix)
    versions = {"table": 1, "seats": 1}
    answers: dict[str, int] = {}
    channels = {"table": keys.table_events(key_prefix, "x1"),
                "seats": keys.bot_seats_events(key_prefix, "x1")}
    waiting = {name: threading.Thread(target=lambda name=name: answers.update({name: watcher.wait(
        channels[name], after=1, timeout=3, current_version=lambda: versions[name])}))
        for name in channels}
    for thread in waiting.values():
        thread.start()
    deadline = time.monotonic() + 10
    while watcher.waiting < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    versions["seats"] = 2
    conn.publish(channels["seats"], 2)
    waiting["seats"].join(10)
    assert answers == {"seats": 2} and time.monotonic() - started < 2  # the table's waiter sleeps on
    waiting["table"].join(10)
    assert answers["table"] == 1  # timed out: nothing was published on the table's channel
    watcher.close()
    conn.close()

"""The long-poll wake-up listener on its own, over the session's real Redis."""

from __future__ import annotations

import threading
import time
from typing import Any

import redis

from core import keys
from core.redis.notify import VersionWatcher
from tests.waiting import wait_until


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
    wait_until(lambda: watcher.waiting == 1, what="the waiter registered")
    patterns_before = pattern_subscriptions(conn)
    started = time.monotonic()
    version["now"] = 2
    conn.publish(keys.table_events(key_prefix, "t1"), 2)
    waiting.join(30)
    assert answers == [2] and time.monotonic() - started < 15  # woken, not timed out after 20 s

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
    timeouts = {"table": 5, "seats": 30}
    answers: dict[str, int] = {}
    channels = {"table": keys.table_events(key_prefix, "x1"),
                "seats": keys.bot_seats_events(key_prefix, "x1")}
    waiting = {name: threading.Thread(target=lambda name=name: answers.update({name: watcher.wait(
        channels[name], after=1, timeout=timeouts[name], current_version=lambda: versions[name])}))
        for name in channels}
    for thread in waiting.values():
        thread.start()
    wait_until(lambda: watcher.waiting == 2, what="both waiters registered")
    started = time.monotonic()
    versions["seats"] = 2
    conn.publish(channels["seats"], 2)
    waiting["seats"].join(30)
    # Woken, not timed out after 30 s; the table's waiter sleeps on.
    assert answers == {"seats": 2} and time.monotonic() - started < 15
    waiting["table"].join(30)
    assert answers["table"] == 1  # timed out: nothing was published on the table's channel
    watcher.close()
    conn.close()


def wait_in_threads(watcher: VersionWatcher, channel: str, count: int, after: int, timeout: float,
                    current_version: Any) -> tuple[list[threading.Thread], list[int]]:
    answers: list[int] = []
    threads = [threading.Thread(target=lambda: answers.append(
        watcher.wait(channel, after=after, timeout=timeout, current_version=current_version)))
        for _ in range(count)]
    for thread in threads:
        thread.start()
    wait_until(lambda: watcher.waiting == count, what=f"{count} waiters registered")
    return threads, answers


class CountedVersion:
    """A table's version as the watcher reads it, counting the reads."""

    def __init__(self, now: int) -> None:
        self.now = now
        self.reads = 0

    def __call__(self) -> int:
        self.reads += 1
        return self.now


def test_one_message_wakes_every_waiter_with_its_version_and_no_read(redis_url: str, key_prefix: str) -> None:
    """Fifty waiters on one table: each reads the version once, when it registers; the message that wakes
    them carries the new version, so waking them all costs Redis nothing more. A waiter that asks again at
    once is answered from the version the listener kept, without a read either."""
    conn = redis.Redis.from_url(redis_url)
    watcher = VersionWatcher(conn, key_prefix)
    channel = keys.table_events(key_prefix, "many")
    version = CountedVersion(4)

    threads, answers = wait_in_threads(watcher, channel, 50, after=4, timeout=20,
                                       current_version=version)
    assert version.reads == 50
    version.now = 5
    conn.publish(channel, 5)
    for thread in threads:
        thread.join(10)
    assert answers == [5] * 50 and version.reads == 50
    assert watcher.waiting == 0  # every waiter left the registry

    assert watcher.wait(channel, after=4, timeout=20, current_version=version) == 5
    assert version.reads == 50  # known from the message: no read
    watcher.close()
    conn.close()


def test_a_waiter_that_fails_or_times_out_is_released(redis_url: str, key_prefix: str) -> None:
    """However a wait ends (its timeout, or an error while it waits, as when its client is gone and the
    request is torn down), the waiter leaves the registry: nothing leaks."""
    conn = redis.Redis.from_url(redis_url)
    watcher = VersionWatcher(conn, key_prefix)
    channel = keys.table_events(key_prefix, "gone")
    assert watcher.wait(channel, after=1, timeout=0.2, current_version=lambda: 1) == 1
    assert watcher.waiting == 0

    calls = {"count": 0}

    def vanishing_table() -> int:
        calls["count"] += 1
        if calls["count"] > 1:
            raise LookupError("the table is gone")
        return 1

    failures: list[BaseException] = []

    def waiting() -> None:
        try:
            watcher.wait(channel, after=1, timeout=20, current_version=vanishing_table)
        except LookupError as error:
            failures.append(error)

    thread = threading.Thread(target=waiting)
    thread.start()
    wait_until(lambda: watcher.waiting == 1, what="the waiter registered")
    conn.execute_command("PUBSUB", "NUMPAT")  # the listener is up (the waiter registered after it was)
    watcher._wake_all()  # woken without a version (as after a reconnection): it reads, and the read fails
    thread.join(10)
    assert len(failures) == 1 and watcher.waiting == 0
    watcher.close()
    conn.close()


def test_versions_known_from_messages_are_forgotten_when_the_subscription_is_lost(redis_url: str,
                                                                                  key_prefix: str) -> None:
    """Messages published while the listener reconnects are lost: the versions it kept are dropped, and the
    next waiter reads the version from Redis."""
    conn = redis.Redis.from_url(redis_url)
    watcher = VersionWatcher(conn, key_prefix)
    channel = keys.table_events(key_prefix, "lost")
    version = CountedVersion(6)

    threads, _ = wait_in_threads(watcher, channel, 1, after=6, timeout=20, current_version=version)
    version.now = 7
    conn.publish(channel, 7)
    threads[0].join(10)
    assert watcher.wait(channel, after=6, timeout=5, current_version=version) == 7
    assert version.reads == 1
    conn.client_kill_filter(_type="pubsub")  # every subscriber of this Redis: they all reconnect
    wait_until(lambda: not watcher._latest, what="the kept versions forgotten")
    assert watcher.wait(channel, after=6, timeout=5, current_version=version) == 7
    assert version.reads == 2
    watcher.close()
    conn.close()

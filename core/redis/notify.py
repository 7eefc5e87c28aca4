"""Long-poll wake-ups: one pattern subscription per process, fanned out to waiting requests, which take the
new version from the message (or from the newest one the listener keeps per channel) instead of reading it.

Design: docs/api.md#long-polling
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import redis

from core import keys
from core.redis.connections import StrRedis

log = logging.getLogger(__name__)

BACKOFF_MIN, BACKOFF_MAX = 0.25, 5.0  # seconds between reconnection attempts
LATEST_CHANNELS = 8192  # channels whose newest published version the listener keeps (the most recent ones)


class _Waiter:
    __slots__ = ("after", "event", "published")

    def __init__(self, after: int) -> None:
        self.after = after
        self.event = threading.Event()
        self.published: int | None = None  # the version a message woke it with; None: read it from Redis


class VersionWatcher:
    """Waits for versions published on the channels under ``keys.version_events_pattern(prefix)``."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._client: StrRedis = client
        self._prefix = prefix
        self._lock = threading.Lock()
        self._waiters: dict[str, set[_Waiter]] = {}
        # The newest version published on a channel since the subscription was (re)made; emptied whenever it
        # is lost, as messages may then be missed.
        self._latest: OrderedDict[str, int] = OrderedDict()
        self._subscribed = threading.Event()
        self._thread: threading.Thread | None = None
        self._pubsub: redis.client.PubSub | None = None
        self._closed = threading.Event()
        self._pid = os.getpid()

    # --- waiting side ---------------------------------------------------------------------------------------

    def wait(self, channel: str, after: int, timeout: float, current_version: Callable[[], int]) -> int:
        """Return the version once it is > after, or the current version after `timeout` seconds.

        `channel` is where new versions are published; `current_version` reads the version itself (a
        message only says when to read it again).
        """
        if timeout <= 0:
            return current_version()
        self._ensure_listening()
        waiter = _Waiter(after)
        with self._lock:
            self._waiters.setdefault(channel, set()).add(waiter)
            known = self._latest.get(channel) if self._subscribed.is_set() else None
        try:
            deadline = time.monotonic() + timeout
            # Read once registered: a move committed before that is seen here, one committed after wakes us.
            version = known if known is not None else current_version()
            while True:
                remaining = deadline - time.monotonic()
                if version > after or remaining <= 0:
                    return version
                woken = waiter.event.wait(remaining)
                waiter.event.clear()
                published, waiter.published = waiter.published, None
                version = published if woken and published is not None else current_version()
        finally:
            with self._lock:
                channel_waiters = self._waiters.get(channel)
                if channel_waiters is not None:
                    channel_waiters.discard(waiter)
                    if not channel_waiters:
                        del self._waiters[channel]

    @property
    def waiting(self) -> int:
        with self._lock:
            return sum(len(waiters) for waiters in self._waiters.values())

    # --- listener side --------------------------------------------------------------------------------------

    def _ensure_listening(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._subscribed.wait(10)
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._subscribed.clear()
                self._thread = threading.Thread(target=self._listen_forever, name="ta-version-watcher",
                                                daemon=True)
                self._thread.start()
        self._subscribed.wait(10)

    def _listen_forever(self) -> None:
        pattern = keys.version_events_pattern(self._prefix)
        backoff = BACKOFF_MIN
        while not self._closed.is_set():
            pubsub = self._pubsub = self._client.pubsub(ignore_subscribe_messages=False)
            try:
                pubsub.psubscribe(pattern)
                for message in pubsub.listen():
                    kind = message.get("type")
                    if kind == "psubscribe":
                        self._forget_latest()
                        self._subscribed.set()
                        backoff = BACKOFF_MIN
                        # Anything published while we were (re)connecting was lost: wake all to re-check.
                        self._wake_all()
                    elif kind == "pmessage":
                        self._dispatch(message["channel"], message["data"])
            except Exception as error:  # the listener must outlive any Redis hiccup
                self._subscribed.clear()
                self._forget_latest()
                if self._closed.is_set():
                    return
                if backoff == BACKOFF_MIN:  # one warning per outage, not one per retry
                    log.warning("version watcher lost its Redis subscription (%s); reconnecting", error)
                self._closed.wait(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()

    def close(self) -> None:
        """Stop listening and drop the subscription (waiters still wake at their timeouts)."""
        self._closed.set()
        pubsub = self._pubsub
        if pubsub is not None:
            with contextlib.suppress(Exception):
                pubsub.close()  # makes the listener's blocking read fail, and it sees _closed
        if self._thread is not None:
            self._thread.join(2)

    def _dispatch(self, channel: str | bytes, data: str | bytes) -> None:
        if isinstance(channel, bytes):
            channel = channel.decode()
        try:
            version = int(data)
        except (TypeError, ValueError):
            return
        with self._lock:
            waiters = self._waiters.get(channel, ())
            known = self._latest.get(channel)
            if waiters or known is not None:
                self._latest[channel] = version if known is None else max(known, version)
                self._latest.move_to_end(channel)
                if len(self._latest) > LATEST_CHANNELS:
                    self._latest.popitem(last=False)
            for waiter in waiters:
                if version > waiter.after:
                    if waiter.published is None or version > waiter.published:
                        waiter.published = version
                    waiter.event.set()

    def _forget_latest(self) -> None:
        with self._lock:
            self._latest.clear()

    def _wake_all(self) -> None:
        with self._lock:
            for waiters in self._waiters.values():
                for waiter in waiters:
                    waiter.published = None  # whatever was missed: the waiter reads the version itself
                    waiter.event.set()


_watchers: dict[tuple[int, str, int], VersionWatcher] = {}
_watchers_guard = threading.Lock()


def get_watcher(client: redis.Redis, prefix: str) -> VersionWatcher:
    """The process-wide watcher for this connection pool and key prefix (recreated after a fork)."""
    key = (id(client.connection_pool), prefix, os.getpid())
    with _watchers_guard:
        watcher = _watchers.get(key)
        if watcher is None:
            watcher = _watchers[key] = VersionWatcher(client, prefix)
        return watcher


def close_all_watchers() -> None:
    """Stop every watcher of this process: before the Redis they listen to goes away (test sessions)."""
    with _watchers_guard:
        watchers = list(_watchers.values())
        _watchers.clear()
    for watcher in watchers:
        watcher.close()

"""A worker process's match leases, extended together: each decision notes its match, and one thread sends the
leases of every match that made one in one script call a second.

Design: docs/arena.md#processes
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import redis

# At most this long, and at most a quarter of the shortest lease in use, between two refreshes: a lease covers
# three deadlines (the slowest decision) and a second more (``arena.jobs.lease_seconds``), so a decision's
# note is sent well before the lease it extends runs out.
REFRESH_EVERY_S = 1.0
LOG = logging.getLogger("arena.leases")

Lease = tuple[str, str, float]  # match id, worker, lease seconds


class LeaseKeeper:
    """The leases of one process's matches: `beat()` after every decision, `release()` at the match's end;
    `flush()` (every `every_s`, at most a quarter of the shortest lease beaten, on a thread started by the
    first beat) extends the beaten ones together.

    A failed refresh (Redis gone for a moment) keeps the beats for the next one: a blip costs no match.
    """

    def __init__(self, refresh: Callable[[list[Lease]], object], every_s: float = REFRESH_EVERY_S) -> None:
        self.refresh = refresh
        self.every_s = every_s
        self._beaten: dict[str, tuple[str, float]] = {}  # match id -> (worker, lease s), since the last flush
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def beat(self, match_id: str, worker: str, lease_s: float) -> None:
        self._beaten[match_id] = (worker, lease_s)
        if lease_s < 4 * self.every_s:  # a short lease (a short deadline): looked at every quarter of it
            self.every_s = lease_s / 4
        if self._thread is None:
            self._start_thread()

    def release(self, match_id: str) -> None:
        self._beaten.pop(match_id, None)

    def pending(self) -> list[str]:
        """The matches whose lease the next flush extends."""
        return list(self._beaten)

    def flush(self) -> int:
        """Extend the leases of the matches that beat since the last flush; how many were sent."""
        beaten, self._beaten = self._beaten, {}  # one swap: beats from now on go to the next flush
        if not beaten:
            return 0
        try:
            self.refresh([(match_id, worker, lease_s) for match_id, (worker, lease_s) in beaten.items()])
        except redis.RedisError as exc:
            for match_id, lease in beaten.items():
                self._beaten.setdefault(match_id, lease)
            LOG.warning("lease refresh failed (%s); retried in %.1f s", exc, self.every_s)
            return 0
        return len(beaten)

    def _start_thread(self) -> None:
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-leases", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.every_s)
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - the keeper must outlive a bug in one refresh
                LOG.exception("lease refresh failed")


# One keeper per key prefix in a process (one Redis in use): its matches' leases go together.
_KEEPERS: dict[str, LeaseKeeper] = {}


def keeper_for(prefix: str, refresh: Callable[[list[Lease]], object]) -> LeaseKeeper:
    """The process's keeper for `prefix`, sending through `refresh` (the newest store's connection)."""
    keeper = _KEEPERS.get(prefix)
    if keeper is None:
        keeper = _KEEPERS[prefix] = LeaseKeeper(refresh)
    keeper.refresh = refresh
    return keeper

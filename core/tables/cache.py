"""Process-local state of the table store: live engine games by table, per-table locks.

None of it is needed for correctness (Redis and the Lua commit are the truth); it saves replaying a table's
move log and lost commit races on the common path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.tables.record import TableRecord


class GameCache:
    """Per-process LRU of live engine games by table, so a move does not replay the whole log.

    A game is *taken* out while a move is tried on it and only put back at the version it then has, so a
    failed commit can never leave a game that is ahead of Redis in the cache.
    """

    def __init__(self, size: int = 2048) -> None:
        self._size = size
        # key -> (version, game, the table record at that version if this process committed it, else None)
        self._games: OrderedDict[tuple[str, str], tuple[int, Any, TableRecord | None]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: tuple[str, str], version: int) -> tuple[int, Any] | None:
        """(cached version, game) if the cached game is not ahead of `version`; it is removed either way."""
        with self._lock:
            entry = self._games.pop(key, None)
        if entry is not None and entry[0] <= version:
            return entry[0], entry[1]
        return None

    def take_entry(self, key: tuple[str, str]) -> tuple[int, Any, TableRecord | None] | None:
        with self._lock:
            return self._games.pop(key, None)

    def version_of(self, key: tuple[str, str]) -> int | None:
        with self._lock:
            entry = self._games.get(key)
        return None if entry is None else entry[0]

    def put(self, key: tuple[str, str], version: int, game: Any, record: TableRecord | None = None) -> None:
        with self._lock:
            self._games[key] = (version, game, record)
            self._games.move_to_end(key)
            while len(self._games) > self._size:
                self._games.popitem(last=False)


games = GameCache()
# Moves on one table from one process are serialised so they do not fight over the commit.
_table_locks: dict[str, threading.Lock] = {}
_table_locks_guard = threading.Lock()


def table_lock(key: str) -> threading.Lock:
    with _table_locks_guard:
        lock = _table_locks.get(key)
        if lock is None:
            if len(_table_locks) > 10_000:
                _table_locks.clear()  # locks are only an optimisation: the Lua check guarantees correctness
            lock = _table_locks[key] = threading.Lock()
        return lock

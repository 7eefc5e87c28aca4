"""Process-local state of the table store: live engine games by table, per-table locks.

None of it is needed for correctness (Redis and the Lua commit are the truth); it saves replaying a table's
move log and lost commit races on the common path.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.tables.record import TableRecord


class GameCache:
    """Per-process LRU of live engine games by table, so a move does not replay the whole log.

    A game is *taken* out while a move is tried on it and only put back at the version it then has, so a
    failed commit can never leave a game that is ahead of Redis in the cache (:func:`checked_out` does both).
    """

    def __init__(self, size: int = 2048) -> None:
        self._size = size
        # key -> (version, game, the table record at that version if this process committed it, else None)
        self._games: OrderedDict[tuple[str, str], tuple[int, Any, TableRecord | None]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: tuple[str, str]) -> tuple[int, Any, TableRecord | None] | None:
        """(version, game, record or None) cached for the table, removed from the cache; None if none is."""
        with self._lock:
            return self._games.pop(key, None)

    def put(self, key: tuple[str, str], version: int, game: Any, record: TableRecord | None = None) -> None:
        with self._lock:
            self._games[key] = (version, game, record)
            self._games.move_to_end(key)
            while len(self._games) > self._size:
                self._games.popitem(last=False)


games = GameCache()


class CheckedOutGame:
    """A table's game while it is out of the cache: `game` is the table as Redis holds it at `version`
    (with `record`, the table record at that version, when this process knows it), or None for no game."""

    def __init__(self, entry: tuple[int, Any, TableRecord | None] | None) -> None:
        self.version: int | None = None
        self.game: Any = None
        self.record: TableRecord | None = None
        if entry is not None:
            self.version, self.game, self.record = entry

    def hold(self, game: Any, version: int, record: TableRecord | None = None) -> None:
        """`game` is now the table as Redis holds it at `version` (caught up from the log, or committed)."""
        self.game, self.version, self.record = game, version, record

    def drop(self) -> None:
        """The game no longer matches Redis (a move was applied whose commit lost): it must not go back."""
        self.game = self.version = self.record = None

    @property
    def current(self) -> bool:
        """The game is still at the version it is held for (no move applied to it since)."""
        return self.game is not None and self.game.version == self.version


@contextmanager
def checked_out(key: tuple[str, str]) -> Iterator[CheckedOutGame]:
    """Take the table's game out of the cache for a move; on exit put it back at the version it then has if
    that is the version Redis holds (``hold``), or leave it out: a game moved past its last commit (a lost
    race, a refusal after ``apply``, an exception) is dropped and rebuilt on demand.

    >>> with checked_out(("doc:", "t1")) as out:
    ...     out.game is None
    True
    """
    out = CheckedOutGame(games.take(key))
    try:
        yield out
    finally:
        if out.current and out.version is not None:
            games.put(key, out.version, out.game, out.record)


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

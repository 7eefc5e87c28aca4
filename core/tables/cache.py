"""Process-local state of the table store: live engine games by table, per-table locks.

None of it is needed for correctness (Redis and the Lua commit are the truth); it saves replaying a table's
move log and lost commit races on the common path.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.tables.record import TableRecord
    from engine.state import GameState

    Game = GameState[Any]  # a table's game (imported for types only: the engine may run compiled)


class GameCache:
    """Per-process LRU of live engine games by table, so a move does not replay the whole log.

    A game is *taken* out while a move is tried on it and only put back at the version it then has, so a
    failed commit can never leave a game that is ahead of Redis in the cache (:func:`checked_out` does both).
    """

    def __init__(self, size: int = 2048) -> None:
        self._size = size
        # key -> (version, game, the table record at that version if this process committed it, else None)
        self._games: OrderedDict[tuple[str, str], tuple[int, Game, TableRecord | None]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: tuple[str, str]) -> tuple[int, Game, TableRecord | None] | None:
        """(version, game, record or None) cached for the table, removed from the cache; None if none is."""
        with self._lock:
            return self._games.pop(key, None)

    def put(self, key: tuple[str, str], version: int, game: Game, record: TableRecord | None = None) -> None:
        with self._lock:
            self._games[key] = (version, game, record)
            self._games.move_to_end(key)
            while len(self._games) > self._size:
                self._games.popitem(last=False)


games = GameCache()


class CheckedOutGame:
    """A table's game while it is out of the cache: `game` is the table as Redis holds it at `version`
    (with `record`, the table record at that version, when this process knows it), or None for no game."""

    def __init__(self, entry: tuple[int, Game, TableRecord | None] | None) -> None:
        self.version: int | None = None
        self.game: Game | None = None
        self.record: TableRecord | None = None
        if entry is not None:
            self.version, self.game, self.record = entry

    def hold(self, game: Game, version: int, record: TableRecord | None = None) -> None:
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
        if out.current and out.version is not None and out.game is not None:
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


class RenderedAnswers:
    """Per-process answers by table, each at the version it shows, rendered once however many ask at once.

    When a move wakes a thousand spectators parked on one table, they all want the same answer at the same
    version: the first to ask renders it (reads the table, encodes the JSON) while the others wait on its
    stripe, then take it from here. Redis commands and rendering per move then stay flat in the number of
    spectators (`python -m tools.growth.watchers`). A caller only ever asks for a version it knows is current
    (the one a long-poll was woken with), so an answer at that version or newer is right — except for what
    changes a table without a move (a seat joined keeps the version): an answer is therefore shared for
    ``max_age_s`` only, the length of one move's fan-out, and a seat joined within it shows a moment later.

    >>> answers = RenderedAnswers(size=2)
    >>> answers.get("t1", 3, lambda: (3, b"v3"))
    b'v3'
    >>> answers.get("t1", 2, lambda: (9, b"not read"))
    b'v3'
    >>> answers.get("t1", 4, lambda: (5, b"v5"))
    b'v5'
    >>> RenderedAnswers(max_age_s=0).get("t1", 1, lambda: (1, b"fresh"))
    b'fresh'
    """

    def __init__(self, size: int = 4096, stripes: int = 64, max_age_s: float = 1.0) -> None:
        self._size = size
        self._max_age_s = max_age_s
        # key -> (version, answer, time.monotonic() when rendered)
        self._answers: OrderedDict[str, tuple[int, bytes, float]] = OrderedDict()
        self._guard = threading.Lock()
        self._stripe_count = stripes
        self._stripes: list[threading.Lock] = []

    def _cached(self, key: str, at_least: int) -> bytes | None:
        with self._guard:
            entry = self._answers.get(key)
            if entry is None or entry[0] < at_least or time.monotonic() - entry[2] > self._max_age_s:
                return None
            self._answers.move_to_end(key)
            return entry[1]

    def get(self, key: str, at_least: int, render: Callable[[], tuple[int, bytes]]) -> bytes:
        """The answer for `key` at version `at_least` or newer; `render` gives (version, answer) when none is
        cached, called by one caller at a time per stripe."""
        cached = self._cached(key, at_least)
        if cached is not None:
            return cached
        with self._stripe(key):
            cached = self._cached(key, at_least)  # rendered while we waited for the stripe
            if cached is not None:
                return cached
            version, answer = render()
            self.put(key, version, answer)
            return answer

    def _stripe(self, key: str) -> threading.Lock:
        """The lock a render of `key` holds across its Redis reads. Made on first use, not at import: the
        gunicorn master imports this module before a gevent worker patches threading, and an unpatched
        lock held across I/O would block the worker's every greenlet."""
        with self._guard:
            if not self._stripes:
                self._stripes = [threading.Lock() for _ in range(self._stripe_count)]
            return self._stripes[hash(key) % self._stripe_count]

    def put(self, key: str, version: int, answer: bytes) -> None:
        """Keep `answer` unless a newer one is kept already."""
        with self._guard:
            entry = self._answers.get(key)
            if entry is None or entry[0] <= version:
                self._answers[key] = (version, answer, time.monotonic())
            self._answers.move_to_end(key)
            while len(self._answers) > self._size:
                self._answers.popitem(last=False)


public_answers = RenderedAnswers()

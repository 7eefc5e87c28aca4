"""The live spectator feed of a ladder match: the public table of the game being played, for the web page,
built from the engine's spectator view and published at most every ``LIVE_EVERY_S`` and at each game's end.

Design: docs/arena.md#live-spectators
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from core.arena.matchgame import MatchGame

LIVE_EVERY_S = 0.25
LIVE_TTL_S = 120  # a feed outlives its match briefly (the page shows the final table), then goes
# Between a game's start and end the table is refreshed only while somebody reads it: a read marks the match
# watched for WATCHED_TTL_S, and the worker looks whether it is at most every WATCHED_CHECK_S. A match nobody
# watches costs a look a second instead of four snapshots (docs/arena.md#live-spectators).
WATCHED_TTL_S = 10
WATCHED_CHECK_S = 1.0

Snapshot = dict[str, Any]


def live_snapshot(match_id: str, game_no: int, games: int, seating: list[str], game: MatchGame,
                  table_id: str | None = None) -> Snapshot:
    """What a spectator may see of game `game_no` (of `games`) of a match, right now.

    ``seating``: the bot id in each seat; ``table_id``: the API table the game is played at, if any.
    """
    over = bool(game.over)
    return {
        "match_id": match_id, "game_no": game_no, "games": games, "seating": list(seating),
        "table": table_id, "game_over": over, "version": game.version,
        "to_act": [] if over else list(game.to_act()), "view": game.spectator_view(), "updated": time.time(),
    }


class WatchedMatches:
    """Which matches somebody reads, as one worker process knows it: `fetch()` (every watched match id, one
    Redis read) at most every `every_s`, whoever asks; the matches in flight ask this, not Redis, so the
    process makes one read a second however many matches it plays. A fetch that fails answers "none"
    until the next one.
    """

    def __init__(self, fetch: Callable[[], set[str]], every_s: float = WATCHED_CHECK_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.fetch = fetch
        self.every_s = every_s
        self.clock = clock
        self._ids: set[str] = set()
        self._at: float | None = None
        self._fetching = threading.Lock()

    def __contains__(self, match_id: str) -> bool:
        now = self.clock()
        # Non-blocking: while one match fetches, the others answer from the set they have.
        if (self._at is None or now - self._at >= self.every_s) and self._fetching.acquire(blocking=False):
            try:
                self._at = now
                try:
                    self._ids = self.fetch()
                except Exception:  # noqa: BLE001 - a Redis blip skips a frame or two, never a match
                    self._ids = set()
            finally:
                self._fetching.release()
        return match_id in self._ids


class LiveFeed:
    """Throttled publisher of live snapshots; the match runner calls it after every decision.

    ``watched``: whether anybody reads the feed now (None: always published); asked at most every
    ``check_every_s``. A game's start and end are always published.
    """

    def __init__(self, match_id: str, games: int, publish: Callable[[Snapshot], None],
                 every_s: float = LIVE_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 watched: Callable[[], bool] | None = None, check_every_s: float = WATCHED_CHECK_S) -> None:
        self.match_id = match_id
        self.games = games
        self.publish = publish
        self.every_s = every_s
        self.clock = clock
        self.watched = watched
        self.check_every_s = check_every_s
        self._last: float | None = None
        self._looked: float | None = None
        self._seen = False

    def __call__(self, game_no: int, game: MatchGame, seating: list[str], force: bool = False,
                 table_id: str | None = None) -> bool:
        """Publish if `force` (a game starts or ends) or the last one is older than `every_s` and somebody
        watches; True if so."""
        now = self.clock()
        if not force and self._last is not None and now - self._last < self.every_s:
            return False
        if not force and not self._is_watched(now):
            return False
        self._last = now
        self.publish(live_snapshot(self.match_id, game_no, self.games, seating, game, table_id))
        return True

    def _is_watched(self, now: float) -> bool:
        if self.watched is None:
            return True
        if self._looked is None or now - self._looked >= self.check_every_s:
            self._looked = now
            self._seen = self.watched()
        return self._seen

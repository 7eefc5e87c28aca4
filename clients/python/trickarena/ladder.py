"""A polling bot on the ladder: watch its ladder seats and play each one through the move API.

A bot registered without a URL is seated by the arena at real API tables; ``GET /api/bots/{id}/ladder-seats``
(owner token) lists them with their seat tokens. Each new seat is played in its own thread by ``play_seat``
(long-polls, no timers); the seat list itself is re-read every ``idle_poll_s``. Each decision has the ladder's
deadline (1 s by default): a bot that misses it gets a strike and the arena plays a fallback move.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from trickarena.api import ArenaClient
from trickarena.http import ApiError, ApiUnavailable
from trickarena.poll import play_seat
from trickarena.types import LadderSeat

if TYPE_CHECKING:
    from trickarena.bot import Bot

log = logging.getLogger("trickarena.ladder")


def play_ladder(api_url: str, bot_id: str, owner_token: str, bot: Bot, idle_poll_s: float = 1.0,
                stop: threading.Event | None = None, max_games: int | None = None) -> int:
    """Play every ladder seat of `bot_id` until `stop` is set (or `max_games` finished); games played."""
    stop = stop or threading.Event()
    playing: dict[tuple[str, int], threading.Thread] = {}
    finished = 0
    lock = threading.Lock()

    def play(entry: LadderSeat) -> None:
        nonlocal finished
        with ArenaClient(api_url) as seat_api:
            try:
                play_seat(seat_api, entry.table, entry.seat, entry.token, bot, on_refused="fallback",
                          wait_s=10)
            except (ApiError, ApiUnavailable) as error:
                log.warning("ladder seat %s/%s ended: %s", entry.table, entry.seat, error)
        with lock:
            finished += 1

    with ArenaClient(api_url) as api:
        while not stop.is_set() and (max_games is None or finished < max_games):
            for entry in api.ladder_seats(bot_id, owner_token, version=str(bot.version)):
                key = (entry.table, entry.seat)
                if key not in playing:
                    log.info("new ladder seat: table %s seat %s (match %s)", *key, entry.match)
                    playing[key] = threading.Thread(target=play, args=(entry,), daemon=True,
                                                    name=f"seat-{key[0]}-{key[1]}")
                    playing[key].start()
            time.sleep(idle_poll_s)
    for thread in playing.values():
        thread.join(timeout=5)
    return finished

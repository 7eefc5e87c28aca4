"""A polling bot on the ladder: hold a long-poll on the bot's ladder seats and play each new seat through the
move API, in a thread of its own (``play_ladder``); the held call keeps the bot present.

Design: docs/sdk.md#3-as-a-polling-bot-on-the-ladder
"""

from __future__ import annotations

import logging
import threading

from trickarena.api import ArenaClient
from trickarena.bot_interface import BotInterface
from trickarena.http import ApiError, ApiUnavailable
from trickarena.poll import play_seat
from trickarena.types import LadderSeat

log = logging.getLogger("trickarena.ladder")


def play_ladder(api_url: str, bot_id: str, owner_token: str, bot: BotInterface, wait_s: float = 25.0,
                stop: threading.Event | None = None, max_games: int | None = None) -> int:
    """Play every ladder seat of `bot_id` until `stop` is set (or `max_games` finished); games played.

    The seat list is long-polled `wait_s` seconds at a time; an error the API answers (e.g. 401: wrong owner
    token, 404: bot deleted) ends the call with that ``ApiError``.
    """
    stop = stop or threading.Event()
    done = threading.Event()  # stopped, finished max_games, or failed
    playing: dict[tuple[str, int], threading.Thread] = {}
    failure: list[ApiError] = []
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
            if max_games is not None and finished >= max_games:
                done.set()

    def watch() -> None:
        version: int | None = None
        with ArenaClient(api_url) as api:
            while not done.is_set():
                try:
                    seats, version = api.watch_ladder_seats(bot_id, owner_token, after=version, wait=wait_s,
                                                             version=str(bot.version))
                except ApiUnavailable as error:
                    log.warning("ladder seats unavailable, retrying: %s", error)
                    version = None
                    done.wait(1.0)
                    continue
                except ApiError as error:
                    failure.append(error)
                    done.set()
                    return
                for entry in seats:
                    key = (entry.table, entry.seat)
                    if key not in playing and not done.is_set():
                        log.info("new ladder seat: table %s seat %s (match %s)", *key, entry.match)
                        playing[key] = threading.Thread(target=play, args=(entry,), daemon=True,
                                                        name=f"seat-{key[0]}-{key[1]}")
                        playing[key].start()

    # The watcher may sit in a long-poll when we stop: it is a daemon and ends with its next answer.
    threading.Thread(target=watch, daemon=True, name=f"ladder-seats-{bot_id}").start()
    while not done.wait(0.2):
        if stop.is_set():
            done.set()
    for thread in list(playing.values()):
        thread.join(timeout=5)
    if failure:
        raise failure[0]
    return finished

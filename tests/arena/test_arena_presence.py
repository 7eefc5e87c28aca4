"""Presence of polling bots: only bots around to play are seated; idle ones cost the ladder nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import redis
import requests
from rq import Queue

from arena.scheduler import Scheduler
from core import keys
from core.arena.model import LadderConfig, MatchStatus
from core.arena.presence import is_present, present_bots
from core.arena.seats import seats_changed
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.arena.test_arena_polling import register
from tests.waiting import wait_until

REPO_ROOT = Path(__file__).resolve().parents[2]
HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")
# A per-decision deadline five times the ladder's default: what the strike checks below guard is that every
# decision is made, which a busy machine (the whole stack runs on it) must not turn into a late one.
SLACK_DEADLINE_MS = 5000


def seats(base: str, bot_id: str, owner: str, **params) -> requests.Response:
    response = requests.get(f"{base}/api/bots/{bot_id}/ladder-seats", params=params, timeout=40,
                            headers={"Authorization": f"Bearer {owner}"})
    assert response.status_code == 200, response.text
    return response


def test_presence_is_a_recent_call_or_a_held_long_poll() -> None:
    assert is_present(100.0, None, 110.0, 10.0) and not is_present(100.0, None, 110.5, 10.0)
    assert is_present(10.0, 200.0, 150.0, 10.0)  # an old call, but a long-poll held until 200
    assert not is_present(10.0, 140.0, 150.0, 10.0)
    assert not is_present(None, None, 0.0, 10.0)  # never called


def test_idle_polling_bots_are_skipped_and_join_as_soon_as_they_poll(live_server, redis_url, key_prefix):
    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    scheduler = Scheduler(store, Queue(keys.arena_queue(key_prefix), connection=conn),
                          Settings(redis_url, key_prefix, True, health_every_s=3600))
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=1))
    for bot in HOUSE:  # house bots have games already: an idle newcomer would be everybody's first pick
        store.redis.hset(keys.arena_stats(key_prefix, "ss", f"house:{bot}"), "matches", 30)
    idle = [register(live_server, f"idle{i}")[0] for i in range(6)]
    assert scheduler.tick()["created"] == 1
    [match_id] = store.active_matches("ss")
    entrants = {m["bot_id"] for m in store.match(match_id)["spec"]["entrants"]}
    assert entrants == {f"house:{b}" for b in HOUSE}  # no idle bot seated, and no strike or bench for them
    assert all(not store.health(b)["benched_until"] for b in idle)
    # The match ends; one idle bot calls its ladder-seats endpoint: the next table seats it.
    store.abort_match("ss", match_id, "test: make room")
    bot_id, owner = register(live_server, "comer")
    seats(live_server, bot_id, owner)
    assert scheduler.tick()["created"] == 1
    [match_id] = store.active_matches("ss")
    entrants = {m["bot_id"] for m in store.match(match_id)["spec"]["entrants"]}
    assert bot_id in entrants and not entrants & set(idle)


def held_mark(conn: redis.Redis, prefix: str, bot_id: str, at_least: float) -> float:
    """Wait until `bot_id`'s held-until mark reaches `at_least` (a long-poll's call has begun); the mark."""

    def reached() -> float | None:
        mark = conn.zscore(keys.arena_poll_holding(prefix), bot_id)
        return mark if mark is not None and mark >= at_least else None

    # The call is on its way: only a broken server takes this long.
    return wait_until(reached, what=f"a long-poll of {bot_id} held until {at_least}")


class LongPoll(threading.Thread):
    """One ladder-seats long-poll of a bot (`after=version&wait=wait_s`) on a thread of its own."""

    def __init__(self, base: str, bot_id: str, owner: str, version: int, wait_s: float) -> None:
        super().__init__(daemon=True)
        self.args = (base, bot_id, owner)
        self.params = {"after": version, "wait": wait_s}
        self.response: requests.Response | None = None

    def run(self) -> None:
        self.response = seats(*self.args, **self.params)

    def version(self) -> int:
        """The version it was answered with, once it has been (within 25 s: its wait is at most 30 s)."""
        self.join(timeout=25)
        assert self.response is not None, "the long-poll was not answered"
        return int(self.response.headers["X-Seats-Version"])


def test_a_held_long_poll_keeps_a_bot_present_and_wakes_on_a_new_seat(live_server, redis_url, key_prefix):
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    bot_id, owner = register(live_server, "holder")
    version = int(seats(live_server, bot_id, owner).headers["X-Seats-Version"])
    poll = LongPoll(live_server, bot_id, owner, version, 30)
    poll.start()
    mark = held_mark(conn, key_prefix, bot_id, time.time() + 25)
    # Five seconds on, the last call is older than a 1 s window: present only because the long-poll is held.
    later = time.time() + 5
    assert mark > later
    assert present_bots(conn, key_prefix, [bot_id], window_s=1.0, now=later) == {bot_id}
    seats_changed(conn, key_prefix, bot_id)  # what the arena does when it seats the bot
    assert poll.version() == version + 1  # woken by the change: the 30 s timeout would answer `version`
    # The poll ended: its hold is released, so five seconds on it lapses for a 1 s window, not for 10 s.
    later = time.time() + 5
    assert present_bots(conn, key_prefix, [bot_id], window_s=1.0, now=later) == set()
    assert present_bots(conn, key_prefix, [bot_id], window_s=10.0, now=later) == {bot_id}


def test_two_long_polls_of_one_bot_at_once_are_both_answered_and_hold_it_present(live_server, redis_url,
                                                                                 key_prefix):
    """A bot with two long-polls in flight (two processes, or a retry while the first still waits): a short
    one that times out answers the same version and does not end the longer one's hold; a change wakes
    every poll still held with the new version; the bot lapses only when the last one ends."""
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    bot_id, owner = register(live_server, "twice")
    version = int(seats(live_server, bot_id, owner).headers["X-Seats-Version"])
    longer = LongPoll(live_server, bot_id, owner, version, 30)
    longer.start()
    held_mark(conn, key_prefix, bot_id, time.time() + 25)
    shorter = LongPoll(live_server, bot_id, owner, version, 1)
    shorter.start()
    assert shorter.version() == version  # its own 1 s timed out: nothing changed
    later = time.time() + 5
    assert present_bots(conn, key_prefix, [bot_id], window_s=1.0, now=later) == {bot_id}  # still held
    assert longer.is_alive()
    # Two held at once again, then one change: both answered with it.
    seen = conn.zscore(keys.arena_poll_seen(key_prefix), bot_id)
    second = LongPoll(live_server, bot_id, owner, version, 20)
    second.start()
    wait_until(lambda: conn.zscore(keys.arena_poll_seen(key_prefix), bot_id) != seen,  # its call has begun
               what="the second long-poll's call arrives")
    # (A change landing before it starts waiting still wakes it: it asks for anything after `version`.)
    seats_changed(conn, key_prefix, bot_id)
    assert longer.version() == version + 1 and second.version() == version + 1
    later = time.time() + 5
    assert present_bots(conn, key_prefix, [bot_id], window_s=1.0, now=later) == set()  # both ended


@pytest.fixture
def production_limits_server(make_app):
    """The API with the production move limit (the suite's default app relaxes it)."""
    from tests.conftest import serving

    with serving(make_app(LIMIT_SEAT_POSTS=Settings.from_env().limit_seat_posts)) as base:
        yield base


def play_ladder_with_arena(base: str, redis_url: str, key_prefix: str, store: ArenaStore, bot_id: str,
                           owner: str, enough: Callable[[list[dict]], bool], seconds: float) -> list[dict]:
    """The SDK's `play_ladder` for `bot_id` next to a real scheduler and two RQ match workers, until
    `enough(finished match documents of ladder ss)` or `seconds` pass; the documents then."""
    from trickarena.ladder import play_ladder

    from tests.clients.starters import starter_bot

    stop = threading.Event()
    poller = threading.Thread(target=play_ladder, kwargs={"stop": stop},
                              args=(base, bot_id, owner, starter_bot("sore-spot")))
    poller.start()
    env = {**os.environ, "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix, "PYTHONPATH": str(REPO_ROOT),
           "TA_ARENA_TICK_S": "0.2"}
    procs = [subprocess.Popen([sys.executable, "-m", "arena", *args], env=env, cwd=REPO_ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for args in (["scheduler", "--no-default-ladders"], *[["worker", "--simple"]] * 2)]

    def played() -> list[dict]:
        return [doc for doc in map(store.match, store.recent_matches("ss", limit=100)) if doc is not None]

    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not enough(played()):
            time.sleep(0.2)
    finally:
        for proc in procs:  # a worker finishes its match before it exits: the bot plays on meanwhile
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        stop.set()
        poller.join(timeout=10)
    return played()


def with_bot(docs: list[dict], bot_id: str) -> list[dict]:
    return [doc for doc in docs if any(m["bot_id"] == bot_id for m in doc["spec"]["entrants"])]


def strikes_of(docs: list[dict], bot_id: str) -> list[dict]:
    return [s for doc in docs for s in doc["result"]["strikes"] if s["bot_id"] == bot_id]


@pytest.mark.drill
@pytest.mark.timeout(200)
def test_idle_polling_bots_do_not_stall_a_ladder(production_limits_server, redis_url, key_prefix) -> None:
    """Real scheduler and worker processes, 8 registered polling bots that never poll and one that plays with
    the SDK: the ladder keeps playing, no idle bot is ever seated, the present one plays without a strike
    (and so without a 429: a refused move would have cost it a timeout)."""
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=2,
                                   house_only_gap_s=0.0, deadline_ms=SLACK_DEADLINE_MS))
    idle = {register(production_limits_server, f"idle{i}")[0] for i in range(8)}
    present, owner = register(production_limits_server, "present")
    docs = play_ladder_with_arena(production_limits_server, redis_url, key_prefix, store, present, owner,
                                  lambda docs: len(docs) >= 6 and bool(with_bot(docs, present)), 150)
    assert len(docs) >= 6
    seated = {m["bot_id"] for doc in docs for m in doc["spec"]["entrants"]}
    assert not seated & idle
    assert present in seated
    assert all(doc["status"] == MatchStatus.RATED for doc in docs)
    assert strikes_of(docs, present) == []


@pytest.mark.drill
@pytest.mark.timeout(200)
def test_an_sdk_polling_bot_is_seated_from_its_held_long_poll_and_plays_match_after_match_without_a_strike(
        production_limits_server, redis_url, key_prefix) -> None:
    """The SDK's polling bot with a real scheduler and RQ workers. The ladder counts a bot present only
    while it holds a ladder-seats long-poll (presence_s 0): it is seated match after match, so the SDK holds
    one whenever it waits, and a held long-poll answers the moment a seat is published (the test above).
    Every decision, a game's first included, is made before a deadline with room for a loaded machine:
    several matches, not one strike. How fast it answers is a benchmark's figure, not this test's."""
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    ladder = LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=2,
                          house_only_gap_s=0.0, presence_s=0.0, deadline_ms=SLACK_DEADLINE_MS)
    store.save_ladder(ladder)
    bot_id, owner = register(production_limits_server, "prompt")
    docs = play_ladder_with_arena(production_limits_server, redis_url, key_prefix, store, bot_id, owner,
                                  lambda docs: len(with_bot(docs, bot_id)) >= 3, 150)
    mine = with_bot(docs, bot_id)
    assert len(mine) >= 3, f"{len(mine)} matches with the bot in 150 s"
    assert all(doc["status"] == MatchStatus.RATED for doc in mine)
    # Every seat of every game: 4 games a match (duplicate), each opened with a fresh seat to discover.
    assert all(len(doc["result"]["games"]) == 4 for doc in mine)
    assert strikes_of(docs, bot_id) == []

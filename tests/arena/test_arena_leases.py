"""Match leases, extended together: a process's keeper sends the leases of the matches that made a decision
since its last look in one script call, leaves a lease that lapsed or changed hands alone, survives a Redis
blip, and keeps a match that lasts longer than its lease leased from start to end.

Real Redis; the last test plays a real match against real HTTP bots on 127.0.0.1.
"""

from __future__ import annotations

import threading
import time

import pytest
import redis

from arena.jobs import lease_seconds, play_match
from arena.leases import LeaseKeeper
from core import keys
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.scenarios import match_spec


def test_the_matches_that_beat_since_the_last_flush_are_sent_together() -> None:
    sent: list[list[tuple[str, str, float]]] = []
    keeper = LeaseKeeper(sent.append, every_s=3600)  # flushed by hand here
    keeper.beat("m1", "w", 10.0)
    keeper.beat("m2", "w", 10.0)
    keeper.beat("m1", "w", 10.0)  # a second decision of m1: one lease, once
    keeper.beat("m3", "w", 10.0)
    keeper.release("m3")  # ended before the flush: not extended
    assert keeper.flush() == 2
    assert sorted(sent[0]) == [("m1", "w", 10.0), ("m2", "w", 10.0)]
    assert keeper.flush() == 0 and len(sent) == 1  # nothing beat since: nothing sent
    keeper.beat("m2", "w", 10.0)
    assert keeper.flush() == 1 and sent[1] == [("m2", "w", 10.0)]


def test_a_failed_refresh_keeps_the_beats_for_the_next() -> None:
    calls: list[list[tuple[str, str, float]]] = []

    def refresh(leases: list[tuple[str, str, float]]) -> None:
        calls.append(leases)
        if len(calls) == 1:
            raise redis.ConnectionError("Redis went away")

    keeper = LeaseKeeper(refresh, every_s=3600)
    keeper.beat("m1", "w", 10.0)
    assert keeper.flush() == 0 and keeper.pending() == ["m1"]
    assert keeper.flush() == 1 and calls[1] == [("m1", "w", 10.0)]


def test_a_short_lease_is_looked_at_every_quarter_of_it() -> None:
    keeper = LeaseKeeper(lambda leases: None, every_s=1.0)
    keeper.every_s = 1.0
    keeper._thread = threading.current_thread()  # no thread: only the period is under test
    keeper.beat("m1", "w", 10.0)
    assert keeper.every_s == 1.0
    keeper.beat("m2", "w", 1.4)
    assert keeper.every_s == pytest.approx(0.35)


def test_only_leases_still_held_by_the_worker_are_extended(redis_url: str, key_prefix: str) -> None:
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    store = ArenaStore(conn, key_prefix)
    lease = lambda match_id: keys.arena_match_lease(key_prefix, match_id)  # noqa: E731
    conn.set(lease("mine"), "w1", px=1000)
    conn.set(lease("taken"), "w2", px=1000)  # re-run by another worker after this one's lapsed
    assert store.refresh_leases([("mine", "w1", 60.0), ("taken", "w1", 60.0), ("lapsed", "w1", 60.0)]) == 1
    assert 59_000 < conn.pttl(lease("mine")) <= 60_000
    assert conn.pttl(lease("taken")) <= 1000 and conn.get(lease("taken")) == "w2"
    assert not conn.exists(lease("lapsed"))  # a lapsed lease stays lapsed
    assert store.refresh_leases([]) == 0


def test_a_match_longer_than_its_lease_keeps_it_to_the_end(redis_url: str, key_prefix: str, bot_server,
                                                           monkeypatch) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bots listen on 127.0.0.1
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    deadline_ms = 150
    settings = Settings(min_lease_s=0.0, allow_private_urls=True)
    lease_s = lease_seconds(deadline_ms, settings.min_lease_s)  # 1.6 s
    store.save_ladder(LadderConfig("lease-3p", "sore-spot", 3, {"rounds": 1}, deadline_ms=deadline_ms))
    bots = [bot_server("sleep", delay_s=0.08) for _ in range(3)]  # 51 cards at 80 ms: about twice the lease
    entrants = [Member(f"b{i}", MemberKind.HTTP, url=b.url, name=f"b{i}") for i, b in enumerate(bots)]
    spec = match_spec("long-match", entrants, ladder_id="lease-3p", deadline_ms=deadline_ms)
    store.create_match(spec)
    holders: list[str | None] = []
    done = threading.Event()

    def watch() -> None:  # the lease as the scheduler would see it, all along the match
        while not done.wait(0.05):
            holders.append(store.lease_holder("long-match"))

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.monotonic()
    try:
        result = play_match(store, "long-match", worker="w-long", settings=settings)
    finally:
        done.set()
        watcher.join()
    assert result["status"] == "rated", result
    assert time.monotonic() - started > 1.5 * lease_s  # the match outlasted its lease
    assert set(holders[:-3]) == {"w-long"}, holders  # held all along (the last looks may come after the end)

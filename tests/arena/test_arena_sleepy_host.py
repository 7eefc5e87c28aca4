"""A bot whose free host sleeps when idle: the wake-up call before the first deal waits for it, so its first
move is no timeout and its opponents lose nothing; a host that never wakes still plays on with strikes. Two
bots registered at one URL share its connection: their calls never overlap on it.

Real Redis, real HTTP bots on 127.0.0.1 (a "sleepy" one takes 3 s to wake, three times the 1 s deadline).
"""

from __future__ import annotations

import time

import pytest
import redis

from arena.drivers import HttpDriver
from arena.jobs import play_match
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

WAKE_S = 3.0


@pytest.fixture
def store(redis_url: str, key_prefix: str, monkeypatch) -> ArenaStore:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bots listen on 127.0.0.1
    arena = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    arena.save_ladder(LadderConfig("sleepy-4p", "sore-spot", 4, {"rounds": 1}, house_bots=("heuristic",)))
    return arena


def play(store: ArenaStore, match_id: str, entrants: list[Member]) -> dict:
    spec = match_spec(match_id, entrants, ladder_id="sleepy-4p", seed=11, deadline_ms=1000)
    store.create_match(spec)
    return play_match(store, match_id, worker="test")


def test_a_sleeping_host_is_woken_before_the_first_deal_and_takes_no_strike(store, bot_server) -> None:
    sleepy = bot_server("sleepy", delay_s=WAKE_S, sleep_after_s=30.0)
    good = bot_server("good")
    entrants = [Member("sleepy", MemberKind.HTTP, url=sleepy.url, name="sleepy"),
                Member("good", MemberKind.HTTP, url=good.url, name="good"),
                *(Member.house(name) for name in ("heuristic", "random"))]
    started = time.monotonic()
    result = play(store, "sleepy-match", entrants)
    assert result["status"] == "rated", result
    assert time.monotonic() - started >= WAKE_S  # the match waited for the host to wake
    doc = store.match("sleepy-match")
    assert doc["result"]["strikes"] == [], doc["result"]["strikes"]  # nobody struck: not the sleeper either
    log = doc["result"]["calls"]["sleepy"]["log"]
    assert log[0][:2] == ["wake", "ok"] and log[0][2] >= WAKE_S * 1000 * 0.9, log[:2]  # woken first, slowly
    assert all(outcome == "ok" for kind, outcome, _ms in log if kind == "move"), log
    assert sleepy.server.requests[0] == "GET /"  # woken by the wake-up call, before any move


def test_a_host_that_does_not_wake_in_time_plays_on_with_strikes(store, bot_server, monkeypatch) -> None:
    monkeypatch.setattr(HttpDriver, "WAKE_TIMEOUT_S", 0.5)  # it sleeps longer than the arena waits
    sleepy = bot_server("sleepy", delay_s=WAKE_S, sleep_after_s=30.0)
    entrants = [Member("sleepy", MemberKind.HTTP, url=sleepy.url, name="sleepy"),
                *(Member.house(name) for name in ("heuristic", "random", "eps-0.5"))]
    result = play(store, "never-woke", entrants)
    assert result["status"] in ("rated", "void"), result
    doc = store.match("never-woke")
    log = doc["result"]["calls"]["sleepy"]["log"]
    assert log[0][:2] == ["wake", "timeout"], log[:2]
    assert any(kind == "move" and outcome == "timeout" for kind, outcome, _ms in log), log


def test_two_bots_at_one_url_are_woken_and_play_without_overlapping_calls(store, bot_server) -> None:
    shared = bot_server("good", delay_s=0.05)  # one server playing two registered bots
    entrants = [Member("first", MemberKind.HTTP, url=shared.url, name="first"),
                Member("second", MemberKind.HTTP, url=shared.url, name="second"),
                *(Member.house(name) for name in ("heuristic", "random"))]
    result = play(store, "shared-url", entrants)
    assert result["status"] == "rated", result
    doc = store.match("shared-url")
    assert doc["result"]["strikes"] == [], doc["result"]["strikes"]
    for bot_id in ("first", "second"):
        log = doc["result"]["calls"][bot_id]["log"]
        assert log[0][:2] == ["wake", "ok"], log[:2]  # not a connect error from two calls on one connection
        assert all(outcome == "ok" for _kind, outcome, _ms in log), log

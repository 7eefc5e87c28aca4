"""Two bots registered at one URL (one server playing several bots) seated in the same match: the arena's
calls to that URL never overlap on its one kept-alive connection, so both play the match without a strike.

Real Redis, a real HTTP bot on 127.0.0.1.
"""

from __future__ import annotations

import pytest
import redis

from arena.jobs import play_match
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec


@pytest.fixture
def store(redis_url: str, key_prefix: str, monkeypatch) -> ArenaStore:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bot listens on 127.0.0.1
    arena = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    arena.save_ladder(LadderConfig("shared-4p", "sore-spot", 4, {"rounds": 1}, house_bots=("heuristic",)))
    return arena


def test_two_bots_at_one_url_play_one_match_without_strikes(store, bot_server) -> None:
    shared = bot_server("good", delay_s=0.05)
    entrants = [Member("first", MemberKind.HTTP, url=shared.url, name="first"),
                Member("second", MemberKind.HTTP, url=shared.url, name="second"),
                *(Member.house(name) for name in ("heuristic", "random"))]
    spec = match_spec("shared-url", entrants, ladder_id="shared-4p", seed=5, deadline_ms=1000)
    store.create_match(spec)
    result = play_match(store, "shared-url", worker="test")
    assert result["status"] == "rated", result
    doc = store.match("shared-url")
    assert doc["result"]["strikes"] == [], doc["result"]["strikes"]
    for bot_id in ("first", "second"):
        log = doc["result"]["calls"][bot_id]["log"]
        assert log[0][:2] == ["wake", "ok"], log[:2]
        assert all(outcome == "ok" for _kind, outcome, _ms in log), log

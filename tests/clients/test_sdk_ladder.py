"""A polling bot on a ladder, written with the SDK: it finds its ladder seats and plays them to a rating."""

from __future__ import annotations

import threading

import redis
from trickarena import ArenaClient
from trickarena.ladder import play_ladder

from arena.jobs import play_match
from core.arena.model import LadderConfig, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from tests.clients.starters import starter_bot
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")


def test_sdk_polling_bot_plays_its_ladder_match_without_strikes(live_server, redis_url, key_prefix) -> None:
    with ArenaClient(live_server) as api:
        bot = api.register_bot("sdk-poller", ["sore-spot"])
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member(bot.bot_id, MemberKind.POLL, name=bot.name), *(Member.house(n) for n in HOUSE)]
    spec = match_spec("m-sdk", entrants, seed=9, duplicate=True, deadline_ms=3000)
    store.create_match(spec)
    outcome: dict = {}
    match = threading.Thread(target=lambda: outcome.update(play_match(store, "m-sdk", worker="test")))
    match.start()
    stop = threading.Event()
    played = play_ladder(live_server, bot.bot_id, bot.owner_token, starter_bot("sore-spot"),
                         stop=stop, max_games=4)  # duplicate: one game per seat rotation
    match.join(timeout=60)
    assert played == 4
    assert outcome["status"] == MatchStatus.RATED and outcome["applied"] is True
    doc = store.match("m-sdk")
    assert [s for s in doc["result"]["strikes"] if s["bot_id"] == bot.bot_id] == []
    assert store.stats("ss", [bot.bot_id])[bot.bot_id]["matches"] == 1

"""Retention: a finished match's replays and then its document expire after their configured times, and
trimming drops matches nothing links to any more; ratings, stats, rating history and the bots' records
stay; the API answers a deleted match or replay with 410 problems. A match still in play keeps its deals
hidden whatever retention does around it.

Real Redis, the Flask app; matches played by the worker's own job function with house bots, on a store
configured with retention times of two and four seconds (two seconds apart: a loaded machine may take
one between two steps).
"""

from __future__ import annotations

import pytest
import redis

from arena.jobs import play_match
from core import keys
from core.arena.model import LadderConfig, MatchSpec, Member
from core.arena.store import ArenaStore
from core.arena.store.matches import MATCH_TTL_S
from core.settings import Settings
from tests.scenarios import match_spec
from tests.waiting import wait_until

LADDER = "keep-4p"
HOUSE = ("heuristic", "eps-0.4", "eps-0.8", "random")
ONE_ROUND = {"rounds": 1}


@pytest.fixture
def conn(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


def short_lived(conn: redis.Redis, prefix: str, record_limit: int = 500) -> ArenaStore:
    store = ArenaStore(conn, prefix, record_limit=record_limit, match_ttl_s=4, replay_ttl_s=2)
    store.save_ladder(LadderConfig(LADDER, "sore-spot", 4, ONE_ROUND, house_bots=HOUSE))
    return store


def new_match(store: ArenaStore, match_id: str) -> MatchSpec:
    entrants = [Member.house(name) for name in HOUSE]
    spec = match_spec(match_id, entrants, ladder_id=LADDER, seed=len(match_id), duplicate=True,
                      deadline_ms=2000)
    store.create_match(spec)
    return spec


def play(store: ArenaStore, redis_url: str, prefix: str, match_id: str) -> None:
    new_match(store, match_id)
    outcome = play_match(store, match_id, "test", Settings(redis_url=redis_url, prefix=prefix))
    assert outcome["status"] == "rated", outcome


def problem(client, url: str) -> tuple[int, str]:
    answer = client.get(url)
    assert answer.mimetype == "application/problem+json", answer.get_data(as_text=True)
    return answer.status_code, answer.get_json()["type"].rsplit("/", 1)[-1]


def test_replays_then_the_document_expire_and_the_ratings_and_records_stay(client, conn, redis_url,
                                                                             key_prefix) -> None:
    store = short_lived(conn, key_prefix)
    play(store, redis_url, key_prefix, "mkeep")
    assert 0 < conn.pttl(keys.arena_match_games(key_prefix, "mkeep")) <= 2000  # set when written
    assert 2000 < conn.pttl(keys.arena_match(key_prefix, "mkeep")) <= 4000
    assert client.get("/api/matches/mkeep/games/0/replay").status_code == 200
    wait_until(lambda: not conn.exists(keys.arena_match_games(key_prefix, "mkeep")), what="replays expire")
    assert problem(client, "/api/matches/mkeep/games/0/replay") == (410, "replay-expired")
    assert client.get("/api/matches/mkeep").get_json()["status"] == "rated"
    wait_until(lambda: not conn.exists(keys.arena_match(key_prefix, "mkeep")), what="the document expires")
    assert problem(client, "/api/matches/mkeep") == (410, "match-expired")
    page = client.get("/matches/mkeep")  # the web page alike, as HTML
    assert page.status_code == 410 and "retention policy" in page.get_data(as_text=True)
    assert problem(client, "/api/matches/never-played") == (404, "match-not-found")
    ranking = client.get(f"/api/ladders/{LADDER}").get_json()
    assert sorted(row["matches"] for row in ranking["ranking"]) == [1, 1, 1, 1]  # kept forever
    bot = f"house:{HOUSE[0]}"
    assert [p["match"] for p in store.history(LADDER, bot)] == ["mkeep"]
    assert [e["match"] for e in store.bot_record(LADDER, bot)[0]] == ["mkeep"]
    assert store.is_applied("mkeep")  # never rated twice, even forgotten


def test_trimmed_matches_go_and_answer_410(client, conn, redis_url, key_prefix) -> None:
    store = ArenaStore(conn, key_prefix, record_limit=1)  # each bot's record links its newest match only
    store.save_ladder(LadderConfig(LADDER, "sore-spot", 4, ONE_ROUND, house_bots=HOUSE))
    play(store, redis_url, key_prefix, "mold")
    play(store, redis_url, key_prefix, "mnew")
    assert store.trim_recent(LADDER, keep=1) == 1  # nothing links to the older one now: deleted
    assert problem(client, "/api/matches/mold") == (410, "match-expired")
    assert conn.exists(keys.arena_match_games(key_prefix, "mold")) == 0
    assert client.get("/api/matches/mnew/games/0/replay").status_code == 200
    row = client.get(f"/api/ladders/{LADDER}").get_json()["ranking"][0]
    assert row["matches"] == 2


def test_a_match_in_play_keeps_its_deals_hidden_whatever_retention_does(client, conn, redis_url,
                                                                        key_prefix) -> None:
    store = short_lived(conn, key_prefix)
    running = new_match(store, "mrunning")
    store.start_attempt("mrunning", "test", 60.0)
    play(store, redis_url, key_prefix, "mdone")
    wait_until(lambda: not conn.exists(keys.arena_match(key_prefix, "mdone"),
                                       keys.arena_match_games(key_prefix, "mdone")),
               what="the finished match's document and replays expire")
    store.trim_recent(LADDER, keep=0)
    match = client.get("/api/matches/mrunning").get_json()
    assert match["status"] == "running" and match["seed"] is None and not match["replays"]
    assert problem(client, "/api/matches/mrunning/games/0/replay") == (409, "match-not-finished")
    assert conn.ttl(keys.arena_match(key_prefix, "mrunning")) > MATCH_TTL_S - 60  # not the finished TTL
    assert conn.exists(keys.arena_match_games(key_prefix, "mrunning")) == 0
    assert running.seed != 0

"""Arena endpoints of the API: ranked ladder, bot history, recent matches, replays (problem+json errors)."""

from __future__ import annotations

import redis

import engine
from arena.jobs import play_match
from core.arena.model import LadderConfig, MatchSpec, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random", "eps-0.9")


def setup_ladder(redis_url: str, prefix: str) -> tuple[ArenaStore, MatchSpec]:
    store = ArenaStore(redis.Redis.from_url(redis_url), prefix)
    store.save_ladder(LadderConfig("ss-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member.house(n) for n in HOUSE]
    spec = match_spec("mapi1", entrants, ladder_id="ss-4p", seed=11, duplicate=True, deadline_ms=500)
    store.create_match(spec)
    return store, spec


def test_ranked_ladder_history_matches_and_replays(client, redis_url, key_prefix) -> None:
    store, spec = setup_ladder(redis_url, key_prefix)
    # Before the match is played: listed as active, seed hidden, no replay.
    queued = client.get("/api/matches/mapi1").get_json()
    assert queued["status"] == "queued" and queued["seed"] is None and queued["replays"] == []
    not_yet = client.get("/api/matches/mapi1/games/0/replay")
    assert not_yet.status_code == 409 and not_yet.mimetype == "application/problem+json"

    play_match(store, "mapi1", worker="test")

    ladders = client.get("/api/ladders").get_json()
    assert [lad["ladder_id"] for lad in ladders] == ["ss-4p"] and ladders[0]["members"] == 4
    ranking = client.get("/api/ladders/ss-4p").get_json()["ranking"]
    assert [r["rank"] for r in ranking] == [1, 2, 3, 4]
    assert all(r["provisional"] and r["uncertainty"] == 247.5 for r in ranking)  # 350 / sqrt(2)
    assert [r["rating"] for r in ranking] == sorted((r["rating"] for r in ranking), reverse=True)
    assert all(r["matches"] == 1 for r in ranking)
    top = ranking[0]
    history = client.get(top["history"]).get_json()
    assert history["history"][0]["match"] == "mapi1"
    assert abs(history["history"][0]["rating"] - top["rating"]) < 0.1
    recent = client.get("/api/ladders/ss-4p/matches").get_json()["matches"]
    assert [m["match_id"] for m in recent] == ["mapi1"]
    match = recent[0]
    assert match["status"] == "rated" and match["seed"] == 11 and len(match["replays"]) == 4
    for url, game in zip(match["replays"], match["games"], strict=True):
        record = client.get(url).get_json()
        replayed = engine.load(record)
        assert replayed.over and list(replayed.totals) == game["totals"]


def test_a_bot_with_no_rated_match_is_listed_as_new_not_ranked(client, redis_url, key_prefix) -> None:
    store, _ = setup_ladder(redis_url, key_prefix)
    play_match(store, "mapi1", worker="test")
    store.set_members("ss-4p", [Member("b-new", MemberKind.HTTP, url="http://127.0.0.1:9", name="newbie")])
    body = client.get("/api/ladders/ss-4p").get_json()
    assert [r["rank"] for r in body["ranking"]] == [1, 2, 3, 4]
    assert "b-new" not in {r["bot_id"] for r in body["ranking"]}
    [new] = body["new"]
    assert (new["bot_id"], new["name"], new["matches"], new["rating"]) == ("b-new", "newbie", 0, 1500.0)
    assert "rank" not in new and new["provisional"] and new["history"].endswith("/bots/b-new/history")


def test_unknown_ladder_match_and_bot_are_problem_json(client, redis_url, key_prefix) -> None:
    setup_ladder(redis_url, key_prefix)
    for url in ("/api/ladders/nope", "/api/matches/nope", "/api/ladders/ss-4p/bots/nobody/history",
                "/api/ladders/nope/matches"):
        response = client.get(url)
        assert response.status_code == 404 and response.mimetype == "application/problem+json"
        body = response.get_json()
        assert body["status"] == 404 and body["detail"]


def test_openapi_documents_the_arena_endpoints(client) -> None:
    paths = client.get("/api/openapi.json").get_json()["paths"]
    for path in ("/api/ladders", "/api/ladders/{ladder_id}", "/api/ladders/{ladder_id}/bots/{bot_id}/history",
                 "/api/ladders/{ladder_id}/matches", "/api/matches/{match_id}",
                 "/api/matches/{match_id}/games/{game_no}/replay"):
        assert path in paths, path


def test_ladder_and_match_problems_keep_their_type_title_and_detail(client, redis_url, key_prefix) -> None:
    store, _spec = setup_ladder(redis_url, key_prefix)
    before_play = {"/api/matches/mapi1/games/0/replay": (
        409, "match-not-finished", "Match not finished",
        "match mapi1 is queued; replays are published when it has been played to the end (rated or void)")}
    after_play = {
        "/api/ladders/nope": (404, "ladder-not-found", "Ladder not found", "no ladder 'nope'"),
        "/api/ladders/nope/matches": (404, "ladder-not-found", "Ladder not found", "no ladder 'nope'"),
        "/api/ladders/nope/bots/x/history": (404, "ladder-not-found", "Ladder not found", "no ladder 'nope'"),
        "/api/matches/nope": (404, "match-not-found", "Match not found", "no match 'nope'"),
        "/api/matches/nope/live": (404, "match-not-found", "Match not found", "no match 'nope'"),
        "/api/matches/nope/games/0/replay": (404, "match-not-found", "Match not found", "no match 'nope'"),
        "/api/ladders/ss-4p/matches?after=gone": (
            404, "match-not-found", "Match not found",
            "match 'gone' is not (or no longer) among the recent matches of ladder 'ss-4p'"),
        "/api/matches/mapi1/games/9/replay": (404, "game-not-found", "Game not found",
                                              "match mapi1 has games 0..3"),
        "/api/ladders/ss-4p/bots/nobody/history": (404, "bot-not-on-ladder", "Bot not on ladder",
                                                   "bot 'nobody' has never been on ladder 'ss-4p'"),
        "/api/bots/nobody/matches": (404, "bot-not-on-ladder", "Bot not on ladder",
                                     "bot 'nobody' has never been on a ladder"),
        "/api/bots/house:random/matches?ladder=nope": (404, "ladder-not-found", "Ladder not found",
                                                       "no ladder 'nope'"),
    }
    for url, (status, slug, title, detail) in before_play.items():
        assert client.get(url).get_json() == {"type": f"/problems/{slug}", "title": title, "status": status,
                                              "detail": detail}, url
    play_match(store, "mapi1", worker="test")
    store.save_ladder(LadderConfig("ss-5p", "sore-spot", 5, {"rounds": 1}, house_bots=(*HOUSE, "eps-0.1")))
    after_play["/api/bots/house:eps-0.1/matches?ladder=ss-4p"] = (
        404, "bot-not-on-ladder", "Bot not on ladder", "bot 'house:eps-0.1' has never been on ladder 'ss-4p'")
    after_play["/api/bots/house:random/matches"] = (
        400, "ladder-required", "Ladder required",
        "bot 'house:random' is on several ladders (ss-4p, ss-5p): say which with ?ladder=")
    for url, (status, slug, title, detail) in after_play.items():
        response = client.get(url)
        assert response.mimetype == "application/problem+json", url
        assert response.get_json() == {"type": f"/problems/{slug}", "title": title, "status": status,
                                       "detail": detail}, url


def test_a_benched_polling_bot_is_marked_paused_in_the_ranking(client, redis_url, key_prefix) -> None:
    """Benched after forfeits is a pause for a polling bot too: the ranking (API, page, CLI) marks it."""
    import time

    from core import keys

    store, _ = setup_ladder(redis_url, key_prefix)
    store.set_members("ss-4p", [Member("b-poll", MemberKind.POLL, name="poller")])
    before = {r["bot_id"]: r for r in client.get("/api/ladders/ss-4p").get_json()["new"]}
    assert before["b-poll"]["paused"] is False
    # What the rating script writes when it benches a bot (core/arena/store/results.py).
    store.redis.hset(keys.arena_health(key_prefix, "b-poll"), mapping={
        "paused_until": time.time() + 600, "bench_reason": "benched for 600 s: forfeited 3 matches in a row"})
    rows = {r["bot_id"]: r for r in client.get("/api/ladders/ss-4p").get_json()["new"]}
    assert rows["b-poll"]["paused"] is True


def test_the_bot_page_says_whether_a_polling_bot_polls_now(make_app, redis_url, key_prefix) -> None:
    client = make_app().test_client()
    store, _ = setup_ladder(redis_url, key_prefix)
    bot = client.post("/api/bots", json={"name": "page-poller", "games": ["sore-spot"]}).get_json()
    store.set_members("ss-4p", [Member(bot["bot_id"], MemberKind.POLL, name="page-poller")])
    page = client.get(f"/ladders/ss-4p/bots/{bot['bot_id']}").get_data(as_text=True)
    assert 'id="absent"' in page and 'id="present"' not in page
    owner = {"Authorization": f"Bearer {bot['owner_token']}"}
    client.get(f"/api/bots/{bot['bot_id']}/ladder-seats", headers=owner)
    page = client.get(f"/ladders/ss-4p/bots/{bot['bot_id']}").get_data(as_text=True)
    assert 'id="present"' in page and 'id="absent"' not in page

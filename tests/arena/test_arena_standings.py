"""Honest standings through the API: forfeiters never win and place last, a match every bot forfeited is
void (recorded, not rated), call outcomes as they were, and a bot's own paged record with strike reasons.

Real Redis, the Flask app, real HTTP bots on 127.0.0.1; matches run through the arena's own job function.
"""

from __future__ import annotations

import pytest
import redis

from arena.jobs import play_match
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")
ONE_ROUND = {"rounds": 1}


@pytest.fixture
def store(redis_url: str, key_prefix: str, monkeypatch) -> ArenaStore:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bots listen on 127.0.0.1
    arena = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    arena.save_ladder(LadderConfig("ss-4p", "sore-spot", 4, ONE_ROUND, house_bots=HOUSE))
    return arena


def rate(store: ArenaStore, match_id: str, entrants: list[Member], strike_limit: int = 5,
         ladder_id: str = "ss-4p") -> dict:
    ratings = store.ratings(ladder_id)
    stats = store.stats(ladder_id, [m.bot_id for m in entrants])
    spec = match_spec(match_id, entrants, ladder_id=ladder_id, seed=len(match_id), deadline_ms=2000,
                      strike_limit=strike_limit, ratings=ratings,
                      matches={m.bot_id: stats[m.bot_id]["matches"] for m in entrants})
    store.create_match(spec)
    return play_match(store, match_id, worker="test")


def ranking_row(client, bot_id: str) -> dict:
    """The bot's row, ranked or new (a bot that forfeited every match it played is not ranked)."""
    body = client.get("/api/ladders/ss-4p").get_json()
    return next(r for r in [*body["ranking"], *body["new"]] if r["bot_id"] == bot_id)


def test_a_forfeiting_bot_places_last_never_wins_and_its_illegal_calls_are_counted_as_such(
        client, store, bot_server) -> None:
    bad = bot_server("illegal")
    entrants = [Member("bad", MemberKind.HTTP, url=bad.url, name="bad"), *(Member.house(n) for n in HOUSE)]
    assert rate(store, "mforfeit", entrants)["status"] == "rated"
    match = client.get("/api/matches/mforfeit").get_json()
    assert match["forfeited"] == ["bad"] and "bad" not in match["winners"]
    assert match["places"]["bad"] == 4 and max(match["places"].values()) == 4
    assert min(match["places"].values()) == 1 and match["winners"]
    assert match["calls"]["bad"]["outcomes"] == {"illegal_move": 5}
    assert [s["reason"] for s in match["strikes"]] == ["illegal_move"] * 5
    row = ranking_row(client, "bad")
    assert (row["matches"], row["completed"], row["wins"], row["win_share"]) == (1, 0, 0, 0.0)
    assert "rank" not in row  # it never finished a match: not ranked above the bots that did
    assert (row["forfeits"], row["strikes"]) == (1, 5)
    assert "games" not in row  # a match is not a game: the field says what it counts
    winner = ranking_row(client, match["winners"][0])
    assert winner["wins"] == 1 and winner["win_share"] == 1.0


def test_a_match_every_bot_forfeits_is_void_no_win_no_rating_but_recorded(client, store, bot_server) -> None:
    bad = bot_server("illegal")
    entrants = [Member(f"bad{i}", MemberKind.HTTP, url=bad.url, name=f"bad{i}") for i in range(4)]
    assert rate(store, "mvoid", entrants, strike_limit=2)["status"] == "void"
    match = client.get("/api/matches/mvoid").get_json()
    assert match["status"] == "void" and match["winners"] == []
    assert sorted(match["forfeited"]) == [f"bad{i}" for i in range(4)]
    assert set(match["deltas"].values()) == {0.0} and max(match["places"].values()) <= 4
    assert len(match["replays"]) == 1 and client.get(match["replays"][0]).status_code == 200
    body = client.get("/api/ladders/ss-4p").get_json()
    assert not {f"bad{i}" for i in range(4)} & {r["bot_id"] for r in body["ranking"]}  # no rated match: new
    new = {r["bot_id"]: r for r in body["new"]}
    for i in range(4):
        row = new[f"bad{i}"]
        assert "rank" not in row and row["provisional"]
        assert row["rating"] == 1500.0 and (row["matches"], row["wins"], row["win_share"]) == (0, 0, None)
        assert row["forfeits"] == 1 and row["strikes"] == 2
        assert client.get(row["history"]).get_json()["history"] == []  # no rating point for it
        record = client.get(f"/api/bots/bad{i}/matches").get_json()["matches"]
        assert [(e["match"], e["status"], e["won"], e["forfeited"]) for e in record] == [
            ("mvoid", "void", False, True)]
    assert "mvoid" in [m["match_id"] for m in client.get("/api/ladders/ss-4p/matches").get_json()["matches"]]


def test_a_bots_record_pages_newest_first_with_strike_reasons_and_never_links_to_a_gone_match(
        client, store, bot_server) -> None:
    flaky = bot_server("flaky")  # every other /move answers 500: strikes, below the limit
    entrants = [Member("flaky", MemberKind.HTTP, url=flaky.url, name="flaky"),
                *(Member.house(n) for n in HOUSE)]
    for number in range(5):
        rate(store, f"mrec{number}", entrants, strike_limit=100)
    first = client.get("/api/bots/flaky/matches", query_string={"limit": 2}).get_json()
    assert first["ladder_id"] == "ss-4p" and [e["match"] for e in first["matches"]] == ["mrec4", "mrec3"]
    # A match finishing meanwhile does not shift the pages that follow.
    rate(store, "mrec5", entrants, strike_limit=100)
    seen = [e["match"] for e in first["matches"]]
    page = first
    while page["next"] is not None:
        page = client.get(page["next"]).get_json()
        seen += [e["match"] for e in page["matches"]]
    assert seen == ["mrec4", "mrec3", "mrec2", "mrec1", "mrec0"]
    newest = client.get("/api/bots/flaky/matches").get_json()
    assert newest["matches"][0]["match"] == "mrec5" and newest["next"] is None
    entry = newest["matches"][0]
    assert entry["strikes"] and {s["reason"] for s in entry["strikes"]} == {"http_status"}
    assert all(s["detail"] and s["game_no"] == 0 for s in entry["strikes"])
    doc = store.match("mrec5")["result"]
    assert len(entry["strikes"]) == len([s for s in doc["strikes"] if s["bot_id"] == "flaky"])
    assert entry["place"] == doc["places"]["flaky"]
    assert entry["delta"] == pytest.approx(doc["deltas"]["flaky"])
    assert entry["rating"] == pytest.approx(store.ratings("ss-4p")["flaky"], abs=1e-6)
    # The ladder lists only its most recent match; the documents the record links to stay.
    assert store.trim_recent("ss-4p", keep=1) == 0
    kept = client.get("/api/bots/flaky/matches", query_string={"limit": 100}).get_json()["matches"]
    assert len(kept) == 6 and all(e["strikes"] for e in kept)
    for e in kept:
        assert client.get(f"/api/matches/{e['match']}").status_code == 200, e["match"]


def test_bot_record_errors_are_problems(client, store, redis_url, key_prefix) -> None:
    for url, status in (("/api/bots/nobody/matches", 404),
                        ("/api/bots/house:random/matches?ladder=nope", 404),
                        ("/api/bots/house:random/matches?limit=0", 422),
                        ("/api/bots/house:random/matches?cursor=-1", 422)):
        response = client.get(url)
        assert response.status_code == status and response.mimetype == "application/problem+json", url
    # A bot on two ladders must say which record it wants.
    store.save_ladder(LadderConfig("ss-5p", "sore-spot", 5, ONE_ROUND, house_bots=(*HOUSE, "eps-0.9")))
    response = client.get("/api/bots/house:random/matches")
    assert response.status_code == 400 and "ss-4p" in response.get_json()["detail"]
    assert client.get("/api/bots/house:random/matches?ladder=ss-5p").get_json()["matches"] == []


def test_openapi_documents_a_bots_record(client) -> None:
    spec = client.get("/api/openapi.json").get_json()
    operation = spec["paths"]["/api/bots/{bot_id}/matches"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"ladder", "limit", "cursor"}
    schema = spec["components"]["schemas"]["BotMatch"]
    assert {"place", "won", "forfeited", "strikes", "status"} <= set(schema["properties"])
    assert "matches" in spec["components"]["schemas"]["RankedBot"]["properties"]


def test_a_ladders_matches_page_by_match_id_without_shifting(client, store) -> None:
    house = [Member.house(n) for n in (*HOUSE, "eps-0.9")]
    store.save_ladder(LadderConfig("ss-4p", "sore-spot", 4, ONE_ROUND, house_bots=(*HOUSE, "eps-0.9")))
    for number in range(3):
        rate(store, f"mpage{number}", house)
    first = client.get("/api/ladders/ss-4p/matches", query_string={"limit": 2}).get_json()
    assert [m["match_id"] for m in first["matches"]] == ["mpage2", "mpage1"] and first["next"]
    rate(store, "mpage3", house)  # finishes while the reader pages
    second = client.get(first["next"]).get_json()
    assert [m["match_id"] for m in second["matches"]] == ["mpage0"] and second["next"] is None
    assert len(client.get("/api/ladders/ss-4p/matches").get_json()["matches"]) == 4
    gone = client.get("/api/ladders/ss-4p/matches", query_string={"after": "nope"})
    assert gone.status_code == 404 and gone.mimetype == "application/problem+json"
    assert client.get("/api/ladders/ss-4p/matches", query_string={"limit": 0}).status_code == 422

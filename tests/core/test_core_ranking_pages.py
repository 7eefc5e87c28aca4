"""The ladder's ranking is paged, and each page reads only its own bots: the ranked bots by rating, then the
new ones; ranks run on across pages; a void match that leaves a bot without rated matches makes it new again;
a ladder rated before the pages' sorted sets existed is built from its ratings on first read.

Real Redis, the Flask app; results applied by the store's own Lua step, voids by the operator's.
"""

from __future__ import annotations

import time

import pytest
import redis

from core import keys
from core.arena.model import LadderConfig, MatchResult, MatchStatus, Member, MemberKind
from core.arena.moderation import Moderation
from core.arena.ranking import read_ranking
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

LADDER = "pages-4p"


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> ArenaStore:
    arena = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    arena.save_ladder(LadderConfig(LADDER, "spot-hearts", 4, house_bots=()))
    arena.set_members(LADDER, [Member(b, MemberKind.POLL, name=f"bot-{b}") for b in "abcdefg"])
    return arena


def rate(store: ArenaStore, match_id: str, deltas: dict[str, float], forfeited: tuple[str, ...] = ()) -> None:
    table = list(deltas)
    spec = match_spec(match_id, [Member(b, MemberKind.POLL, name=f"bot-{b}") for b in table],
                      ladder_id=LADDER, game="spot-hearts", options={}, duplicate=True, created=time.time())
    order = sorted(table, key=lambda b: -deltas[b])
    result = MatchResult(match_id, {b: 0 for b in table}, {b: float(order.index(b) + 1) for b in table},
                         deltas, order[:1], list(forfeited), [], {}, [], [], 1)
    doc = {"match_id": match_id, "ladder_id": LADDER, "status": MatchStatus.RUNNING.value,
           "spec": spec.to_json(), "attempts": 1, "created": spec.created}
    assert store.apply_result(spec, result, doc)


def all_pages(client, limit: int) -> list[dict]:
    pages, url = [], f"/api/ladders/{LADDER}?limit={limit}"
    while url is not None:
        answer = client.get(url)
        assert answer.status_code == 200, answer.get_json()
        pages.append(answer.get_json())
        url = pages[-1]["next"]
    return pages


def test_pages_follow_the_whole_ranking_in_order_with_ranks_running_on(client, store) -> None:
    rate(store, "m1", {"a": 30.0, "b": 10.0, "c": -10.0, "d": -30.0})
    rate(store, "m2", {"e": 40.0, "a": 5.0, "b": -20.0, "c": -25.0})
    whole = read_ranking(store, LADDER)
    pages = all_pages(client, 3)
    assert [len(p["ranking"]) + len(p["new"]) for p in pages] == [3, 3, 1]
    assert [r["bot_id"] for p in pages for r in p["ranking"]] == [r.bot_id for r in whole.ranked]
    assert [r["rank"] for p in pages for r in p["ranking"]] == [1, 2, 3, 4, 5]
    assert [r["bot_id"] for p in pages for r in p["new"]] == ["f", "g"]  # unranked, after the ranked
    assert all((p["ranked_total"], p["new_total"], p["limit"]) == (5, 2, 3) for p in pages)
    assert pages[0]["previous"] is None and pages[1]["previous"].endswith("offset=0")
    assert [p["offset"] for p in pages] == [0, 3, 6]
    assert client.get(f"/api/ladders/{LADDER}").get_json()["limit"] == 100  # the default page
    for bad in ("limit=0", "limit=501", "offset=-1"):
        answer = client.get(f"/api/ladders/{LADDER}?{bad}")
        assert answer.status_code == 422 and answer.mimetype == "application/problem+json"


def test_a_void_match_makes_a_bot_new_again_and_moves_the_others(client, store, redis_conn,
                                                                    key_prefix) -> None:
    rate(store, "m1", {"a": 30.0, "b": 10.0, "c": -10.0, "d": -30.0})
    rate(store, "m2", {"e": 40.0, "a": 5.0, "b": -20.0, "c": -25.0})
    Moderation(redis_conn, key_prefix).void_match("m2", "test", "operator", "test")
    page = client.get(f"/api/ladders/{LADDER}").get_json()
    assert [(r["bot_id"], r["rating"]) for r in page["ranking"]] == [
        ("a", 1530.0), ("b", 1510.0), ("c", 1490.0), ("d", 1470.0)]
    assert [r["bot_id"] for r in page["new"]] == ["e", "f", "g"]
    assert [r.bot_id for r in read_ranking(store, LADDER).ranked] == ["a", "b", "c", "d"]


def test_a_bot_is_ranked_from_its_first_match_finished_without_forfeiting(client, store, redis_conn,
                                                                          key_prefix) -> None:
    rate(store, "m1", {"a": 30.0, "d": 10.0, "b": -10.0, "c": -30.0}, forfeited=("d",))
    page = client.get(f"/api/ladders/{LADDER}").get_json()
    assert [r["bot_id"] for r in page["ranking"]] == ["a", "b", "c"]  # d never answered: not ranked
    dead = next(r for r in page["new"] if r["bot_id"] == "d")
    assert (dead["matches"], dead["completed"], dead["rating"], "rank" in dead) == (1, 0, 1510.0, False)
    rate(store, "m2", {"d": 5.0, "a": 1.0, "b": -2.0, "c": -4.0})
    page = client.get(f"/api/ladders/{LADDER}").get_json()
    assert [(r["bot_id"], r["completed"]) for r in page["ranking"]][:2] == [("a", 2), ("d", 1)]
    Moderation(redis_conn, key_prefix).void_match("m2", "test", "operator", "test")
    page = client.get(f"/api/ladders/{LADDER}").get_json()
    assert "d" not in [r["bot_id"] for r in page["ranking"]] and page["ranked_total"] == 3
    assert [r.bot_id for r in read_ranking(store, LADDER).ranked] == ["a", "b", "c"]
    # Built again from the stats (a ladder rated before the pages existed): the same rule.
    redis_conn.delete(keys.arena_ranked(key_prefix, LADDER), keys.arena_unrated(key_prefix, LADDER),
                      keys.arena_ranking_built(key_prefix, LADDER))
    rebuilt = client.get(f"/api/ladders/{LADDER}").get_json()
    assert [r["bot_id"] for r in rebuilt["ranking"]] == ["a", "b", "c"]


def test_a_ladder_rated_before_the_pages_existed_is_built_on_first_read(client, store, redis_conn,
                                                                          key_prefix) -> None:
    rate(store, "m1", {"a": 30.0, "b": 10.0, "c": -10.0, "d": -30.0})
    before = client.get(f"/api/ladders/{LADDER}?limit=5").get_json()
    redis_conn.delete(keys.arena_ranked(key_prefix, LADDER), keys.arena_unrated(key_prefix, LADDER),
                      keys.arena_ranking_built(key_prefix, LADDER))
    after = client.get(f"/api/ladders/{LADDER}?limit=5").get_json()
    assert after["ranking"] == before["ranking"] and after["new"] == before["new"]
    assert after["next"] is not None and (after["ranked_total"], after["new_total"]) == (4, 3)


def test_the_ladder_page_shows_one_page_with_links_to_the_next(client, store) -> None:
    rate(store, "m1", {"a": 30.0, "b": 10.0, "c": -10.0, "d": -30.0})
    html = client.get(f"/ladders/{LADDER}").get_data(as_text=True)
    assert "4 ranked · 3 new" in html and 'id="ranking-pager"' not in html  # one page holds them all
    bot = client.get(f"/ladders/{LADDER}/bots/c").get_data(as_text=True)
    assert "bot-c" in bot
    second = client.get(f"/ladders/{LADDER}?offset=100").get_data(as_text=True)
    assert 'rel="prev"' in second and 'rel="next"' not in second

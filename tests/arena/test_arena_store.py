"""ArenaStore on a real Redis: exactly-once rating script, health pausing, aborts, member sync."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from arena.jobs import play_match
from arena.match import MatchRunner, make_drivers
from core import keys
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from core.arena.store.health import BENCH_S
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> ArenaStore:
    return ArenaStore(redis.Redis.from_url(redis_url), key_prefix)


def make_spec(store: ArenaStore, match_id: str, ladder: str = "ss", seed: int = 1) -> MatchSpec:
    entrants = [Member.house(n) for n in HOUSE]
    ratings = store.ratings(ladder)
    spec = match_spec(match_id, entrants, ladder_id=ladder, seed=seed, deadline_ms=200, ratings=ratings)
    store.create_match(spec)
    return spec


def test_rating_is_applied_once_even_when_many_threads_race(store: ArenaStore) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    spec = make_spec(store, "m1")
    result = MatchRunner(spec, make_drivers(spec, True)).run()
    doc = store.start_attempt("m1", "w", 5)
    outcomes: list[bool] = []
    threads = [threading.Thread(target=lambda: outcomes.append(store.apply_result(spec, result, doc)))
               for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(True) == 1
    ratings = store.ratings("ss")
    for bot, delta in result.deltas.items():
        assert ratings[bot] == pytest.approx(1500.0 + delta)
    stats = store.stats("ss", list(result.deltas))
    assert all(s["matches"] == 1 for s in stats.values())
    assert sum(s["wins"] for s in stats.values()) == len(result.winners)
    for bot in result.deltas:
        history = store.history("ss", bot)
        assert len(history) == 1 and history[0]["match"] == "m1"
        assert history[0]["rating"] == pytest.approx(ratings[bot])
    assert store.recent_matches("ss") == ["m1"]
    assert store.active_matches("ss") == []
    final = store.match("m1")
    assert final["status"] == MatchStatus.RATED and final["result"]["places"] == result.places
    assert len(store.match_games("m1")) == 1


def test_rerunning_a_rated_match_changes_nothing(store: ArenaStore) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    make_spec(store, "m2")
    first = play_match(store, "m2", worker="w1")
    assert first["applied"] is True
    before = store.ratings("ss")
    second = play_match(store, "m2", worker="w2")
    assert second["applied"] is False and second["status"] == MatchStatus.RATED
    assert store.ratings("ss") == before


def test_aborted_match_can_never_be_rated_later(store: ArenaStore) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    spec = make_spec(store, "m3")
    doc = store.start_attempt("m3", "zombie", 5)
    result = MatchRunner(spec, make_drivers(spec, True)).run()
    store.abort_match("ss", "m3", "test")
    assert store.apply_result(spec, result, doc) is False  # the zombie worker finishing late
    assert set(store.ratings("ss").values()) == {1500.0}
    assert store.match("m3")["status"] == MatchStatus.ABORTED


def test_three_failed_health_checks_pause_until_one_passes(store: ArenaStore) -> None:
    assert store.record_health("b", False, "timeout") is False
    assert store.record_health("b", False, "timeout") is False
    assert store.record_health("b", False, "timeout") is True
    assert store.paused_bots(["b", "c"]) == {"b"}
    assert store.record_health("b", False, "still down") is True
    assert store.health("b")["failures"] == 4 and store.health("b")["last_error"] == "still down"
    assert store.record_health("b", True, latency_ms=1.5) is False
    assert store.health("b")["latency_ms"] == 1.5
    assert store.paused_bots(["b"]) == set()
    assert store.health("b")["failures"] == 0


def test_a_url_block_pauses_with_its_reason_and_leaves_the_failure_count_alone(store: ArenaStore) -> None:
    import doctest

    import core.arena.store.health

    store.record_health("b", False, "timeout")
    store.block_urls({"b": "resolves to 127.0.0.1", "c": None})
    assert store.paused_bots(["b", "c"]) == {"b"}
    health = store.health("b")
    assert health["paused"] and health["failures"] == 1
    assert health["reason"] == "url_disallowed: resolves to 127.0.0.1"
    store.block_urls({"b": None})
    assert store.paused_bots(["b"]) == set() and store.health("b")["reason"] is None
    store.block_urls({"b": "private"})
    assert store.record_health("b", True) is False  # a passing check reached it: its URL is allowed
    assert store.paused_bots(["b"]) == set()
    result = doctest.testmod(core.arena.store.health)
    assert result.attempted >= 4 and result.failed == 0


def test_members_sync_keeps_house_bots_and_ratings(store: ArenaStore) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    newcomer = Member("abc", MemberKind.HTTP, url="http://127.0.0.1:9/", name="newcomer")
    assert store.set_members("ss", [newcomer]) == (["abc"], [])
    assert {m.bot_id for m in store.members("ss")} == {f"house:{n}" for n in HOUSE} | {"abc"}
    assert store.ratings("ss")["abc"] == 1500.0
    assert store.set_members("ss", [newcomer]) == ([], [])
    assert store.set_members("ss", []) == ([], ["abc"])
    assert {m.bot_id for m in store.members("ss")} == {f"house:{n}" for n in HOUSE}
    assert "abc" in store.ratings("ss")  # rating kept for when it comes back


def test_a_ladder_updated_with_another_house_set_matches_only_that_set(store: ArenaStore) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    registered = Member("abc", MemberKind.HTTP, url="http://127.0.0.1:9/", name="registered")
    store.set_members("ss", [registered])
    store.redis.zadd(keys.arena_ratings(store.prefix, "ss"), {"house:random": 1234.0})
    new_set = ("search-10", "heuristic")
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=new_set))
    assert {m.bot_id for m in store.members("ss")} == {"house:search-10", "house:heuristic", "abc"}
    assert store.ratings("ss")["house:random"] == 1234.0  # a retired house bot keeps its rating
    assert store.ratings("ss")["house:search-10"] == 1500.0


def test_old_match_documents_stay_while_a_record_links_to_them_and_are_never_rerated(
        redis_url: str, key_prefix: str) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix, record_limit=3)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    for i in range(5):
        make_spec(store, f"old{i}", seed=i)
        play_match(store, f"old{i}", worker="w")
    ratings = store.ratings("ss")
    # Each bot's record lists old2..old4: old0 and old1 are still in the recent list, so they stay too.
    assert all(store.match(f"old{i}") is not None for i in range(5))
    assert store.trim_recent("ss", keep=2) == 2  # old0..old2 leave the list; only old0, old1 are unlinked
    assert store.ratings("ss") == ratings
    assert store.recent_matches("ss") == ["old4", "old3"]
    assert store.match("old0") is None and store.match_games("old0") is None
    assert store.match("old2") is not None and store.match_games("old2") is not None  # records link to it
    for bot in HOUSE:
        entries, _ = store.bot_record("ss", f"house:{bot}")
        assert [e["match"] for e in entries] == ["old4", "old3", "old2"]
        assert all(store.match(e["match"]) is not None for e in entries)
    make_spec(store, "old5", seed=5)
    play_match(store, "old5", worker="w")  # the records drop old2: nothing links to it any more
    assert store.match("old2") is None and store.match_games("old2") is None
    assert store.match("old3") is not None
    assert store.is_applied("old0")  # the idempotency key outlives the document
    assert store.stats("ss", ["house:random"])["house:random"]["matches"] == 6
    assert store.trim_recent("ss", keep=3) == 0


def test_a_bot_forfeiting_three_matches_in_a_row_is_benched(store: ArenaStore, bot_server, monkeypatch):
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    garbage = Member("junk", MemberKind.HTTP, url=bot_server("garbage").url)
    entrants = [garbage, *(Member.house(n) for n in HOUSE[:3])]

    def play(match_id: str) -> None:
        spec = match_spec(match_id, entrants, deadline_ms=500)
        store.create_match(spec)
        assert play_match(store, match_id, worker="w")["applied"]

    play("f1")
    play("f2")
    assert store.paused_bots(["junk"]) == set()  # two forfeits: still matched
    play("f3")
    assert store.paused_bots(["junk"]) == {"junk"}
    assert "forfeited 3 matches in a row" in store.health("junk")["bench_reason"]
    store.record_health("junk", False, "connect_error: refused")  # a failing check keeps the bench's reason
    assert store.health("junk")["reason"].startswith("benched for 600 s: forfeited 3 matches in a row")
    store.record_health("junk", True)  # a passing health check does not lift the bench
    assert store.paused_bots(["junk"]) == {"junk"} and store.health("junk")["benched_until"] > 0
    assert store.stats("ss", ["junk"])["junk"]["forfeits"] == 3
    first = store.health("junk")["benched_until"] - time.time()
    assert BENCH_S - 30 < first <= BENCH_S
    for match_id in ("f4", "f5", "f6"):  # back from the bench, it forfeits again: a longer bench
        play(match_id)
    second = store.health("junk")["benched_until"] - time.time()
    assert 2 * BENCH_S - 30 < second <= 2 * BENCH_S
    assert f"benched for {2 * BENCH_S} s" in store.health("junk")["bench_reason"]

"""Moderation on a real Redis: voiding a rated match undoes exactly its rating changes; suspended bots leave
matchmaking (the real scheduler); hidden names; the strike board; the audit log."""

from __future__ import annotations

import doctest

import pytest
import redis
from rq import Queue

import core.arena.moderation
from arena.jobs import check_bot_health, play_match
from arena.scheduler import Scheduler
from core import keys
from core.arena.audit import AuditLog, count_refusal, top_refusals
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member
from core.arena.moderation import Moderation, hidden_name
from core.arena.registry import BotRegistry
from core.arena.store import ArenaStore
from core.errors import BotNotFound, MatchNotFound, MatchNotVoidable
from core.settings import Settings
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> ArenaStore:
    return ArenaStore(redis.Redis.from_url(redis_url), key_prefix)


@pytest.fixture
def moderation(redis_url: str, key_prefix: str) -> Moderation:
    return Moderation(redis.Redis.from_url(redis_url), key_prefix)


def test_pure_parts() -> None:
    assert doctest.testmod(core.arena.moderation).failed == 0


def play(store: ArenaStore, match_id: str, seed: int) -> dict[str, float]:
    entrants = [Member.house(n) for n in HOUSE]
    ratings = store.ratings("ss")
    spec = match_spec(match_id, entrants, seed=seed, deadline_ms=200, ratings=ratings)
    store.create_match(spec)
    assert play_match(store, match_id, worker="w")["applied"] is True
    doc = store.match(match_id)
    assert doc["status"] == MatchStatus.RATED
    return dict(doc["result"]["deltas"])


def test_voiding_the_middle_match_leaves_exactly_the_other_matches_deltas(
        store: ArenaStore, moderation: Moderation) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    bots = [f"house:{n}" for n in HOUSE]
    deltas = [play(store, "m1", 11)]
    deltas.append(play(store, "m2", 12))
    store.record_version("house:random", "v2")  # the third match is rated under another version line
    deltas.append(play(store, "m3", 13))
    assert any(deltas[1][b] != 0 for b in bots)  # the voided match moved ratings
    winners = {mid: set(store.match(mid)["result"]["winners"]) for mid in ("m1", "m2", "m3")}
    wins_before = {b: s["wins"] for b, s in store.stats("ss", bots).items()}

    void = moderation.void_match("m2", "collusion between two seats", "ops", "test")

    ratings = store.ratings("ss")
    for bot in bots:  # exactly the sum of the other two matches' deltas
        assert ratings[bot] == pytest.approx(1500.0 + deltas[0][bot] + deltas[2][bot], abs=1e-9)
    stats = store.stats("ss", bots)
    for bot in bots:
        assert stats[bot]["matches"] == 2
        assert stats[bot]["wins"] == wins_before[bot] - int(bot in winners["m2"])
        history = store.history("ss", bot)
        assert [point["match"] for point in history] == ["m3", "m1"]
        assert history[0]["rating"] == pytest.approx(ratings[bot], abs=1e-9)  # the chart ends where it is
        assert history[1]["rating"] == pytest.approx(1500.0 + deltas[0][bot], abs=1e-9)
        record, _ = store.bot_record("ss", bot)
        by_match = {entry["match"]: entry for entry in record}
        assert by_match["m2"]["status"] == MatchStatus.VOID and by_match["m2"]["voided"] is True
        assert by_match["m2"]["delta"] == 0.0
        assert by_match["m3"]["rating"] == pytest.approx(ratings[bot], abs=1e-9)
        assert by_match["m1"]["rating"] == pytest.approx(1500.0 + deltas[0][bot], abs=1e-9)
    lines = {line["version"]: line for line in store.version_lines("ss", "house:random")}
    assert lines["house"]["matches"] == 1  # m1 only (m2 voided); m3 is v2's
    assert lines["house"]["rating"] == pytest.approx(1500.0 + deltas[0]["house:random"], abs=1e-9)
    assert lines["v2"]["start"] == pytest.approx(1500.0 + deltas[0]["house:random"], abs=1e-9)
    assert lines["v2"]["rating"] == pytest.approx(ratings["house:random"], abs=1e-9)
    doc = store.match("m2")
    assert doc == void and doc["status"] == MatchStatus.VOID and doc["result"]["rated"] is False
    assert doc["voided"]["by"] == "ops" and doc["voided"]["deltas"] == deltas[1]
    assert set(doc["result"]["deltas"].values()) == {0.0}

    with pytest.raises(MatchNotVoidable, match="voided already"):  # twice: refused, nothing moves
        moderation.void_match("m2", "again", "ops", "test")
    assert store.ratings("ss") == ratings
    with pytest.raises(MatchNotFound):
        moderation.void_match("m-none", "typo", "ops", "test")
    [entry] = moderation.audit.entries()
    assert (entry["actor"], entry["action"], entry["target"]) == ("ops", "match.void", "m2")
    assert entry["via"] == "test"
    assert entry["reason"] == "collusion between two seats" and entry["detail"]["deltas"] == deltas[1]


def test_an_unfinished_match_cannot_be_voided(store: ArenaStore, moderation: Moderation) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member.house(n) for n in HOUSE]
    store.create_match(MatchSpec("mq", "ss", "sore-spot", 4, {"rounds": 1}, 5, False, entrants, 200, 5,
                                 {}, {}))
    with pytest.raises(MatchNotVoidable, match="queued"):
        moderation.void_match("mq", "no", "ops", "test")
    store.abort_match("ss", "mq", "test")
    with pytest.raises(MatchNotVoidable, match="aborted"):
        moderation.void_match("mq", "no", "ops", "test")


def test_a_suspended_bot_leaves_matchmaking_and_keeps_its_rating(
        redis_url: str, key_prefix: str, store: ArenaStore, moderation: Moderation, bot_server) -> None:
    queue = Queue(keys.arena_queue(key_prefix), connection=redis.Redis.from_url(redis_url))
    scheduler = Scheduler(store, queue, Settings(redis_url, key_prefix, True, health_every_s=3600))
    registry = BotRegistry(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix,
                           allow_private_urls=True)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE[:3], max_active=1))
    record, token = registry.register("rogue", ["sore-spot"], bot_server("good").url)
    bot_id = record["bot_id"]
    store.redis.zadd(keys.arena_ratings(key_prefix, "ss"), {bot_id: 1612.5})
    assert check_bot_health(store, bot_id, record["url"], allow_private=True)["ok"]
    assert scheduler.tick()["created"] == 1  # 3 house bots + the rogue fill the table
    [running] = store.active_matches("ss")

    assert moderation.suspend_bots([bot_id], "spam", "ops", "test") == [bot_id]
    assert scheduler.tick()["created"] == 0
    assert bot_id not in {m.bot_id for m in store.members("ss")}
    store.abort_match("ss", running, "test")  # the running match ends; no new one can seat the rogue
    assert scheduler.tick()["created"] == 0
    assert store.active_matches("ss") == []
    assert store.rating("ss", bot_id) == 1612.5  # its record and rating stay
    assert registry.suspension(bot_id) == "suspended by the operator: spam"
    registry.update(bot_id, token, {"enabled": True})  # the owner cannot lift it
    assert scheduler.tick()["created"] == 0
    assert moderation.bot(bot_id)["suspended"] is True and moderation.suspended_bots() == [bot_id]

    assert moderation.suspend_bots([bot_id], "appeal granted", "ops", "test", suspended=False) == [bot_id]
    assert scheduler.tick()["created"] == 1
    assert registry.suspension(bot_id) is None and moderation.suspended_bots() == []
    actions = [(e["action"], e["reason"]) for e in moderation.audit.entries()]
    assert actions == [("bot.unsuspend", "appeal granted"), ("bot.suspend", "spam")]


def test_suspending_several_bots_is_all_or_none(redis_url: str, key_prefix: str,
                                                moderation: Moderation) -> None:
    registry = BotRegistry(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    a = registry.register("one-of-an-account", ["sore-spot"], None)[0]["bot_id"]
    b = registry.register("two-of-an-account", ["sore-spot"], None)[0]["bot_id"]
    with pytest.raises(BotNotFound, match="gone"):
        moderation.suspend_bots([a, "gone", b], "account closed", "ops", "test")
    assert moderation.suspended_bots() == [] and moderation.audit.entries() == []
    assert sorted(moderation.suspend_bots([a, b, a], "account closed", "ops", "test")) == sorted([a, b])
    assert moderation.suspend_bots([a], "again", "ops", "test") == []  # already: nothing changes
    assert moderation.suspended_bots() == sorted([a, b])


def test_a_hidden_name_is_hidden_from_public_views_at_once(
        redis_url: str, key_prefix: str, store: ArenaStore, moderation: Moderation) -> None:
    queue = Queue(keys.arena_queue(key_prefix), connection=redis.Redis.from_url(redis_url))
    scheduler = Scheduler(store, queue, Settings(redis_url, key_prefix, True, health_every_s=3600))
    registry = BotRegistry(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE, max_active=0))
    bot_id = registry.register("slur-bot", ["sore-spot"], None)[0]["bot_id"]
    scheduler.tick()
    assert store.member_names("ss")[bot_id] == "slur-bot"
    assert moderation.set_name_hidden(bot_id, True, "offensive name", "ops", "test") is True
    assert store.member_names("ss")[bot_id] == hidden_name(bot_id)  # before any tick
    scheduler.tick()
    assert store.member_names("ss")[bot_id] == hidden_name(bot_id)
    assert registry.get(bot_id)["name"] == hidden_name(bot_id)
    assert [b["name"] for b in registry.list()] == [hidden_name(bot_id)]
    assert moderation.bot(bot_id)["name"] == "slur-bot"  # the admin sees the real one
    moderation.set_name_hidden(bot_id, False, "renamed", "ops", "test")
    assert registry.get(bot_id)["name"] == "slur-bot" and store.member_names("ss")[bot_id] == "slur-bot"
    with pytest.raises(BotNotFound):
        moderation.set_name_hidden("nope", True, "x", "ops", "test")


def test_the_strike_board_and_the_refusal_board(redis_conn: redis.Redis, key_prefix: str,
                                                store: ArenaStore, moderation: Moderation) -> None:
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    store.save_ladder(LadderConfig("sh", "spot-hearts", 4, house_bots=HOUSE))
    for ladder, bot, strikes in (("ss", "house:random", 3), ("sh", "house:random", 4),
                                 ("ss", "house:eps-0.6", 5)):
        redis_conn.hset(keys.arena_stats(key_prefix, ladder, bot),
                        mapping={"strikes": strikes, "forfeits": 1})
    top = moderation.most_strikes(limit=5)
    assert [(r["bot_id"], r["strikes"], r["forfeits"]) for r in top] == [
        ("house:random", 7, 2), ("house:eps-0.6", 5, 1)]
    assert top[0]["ladders"] == {"sh": 4, "ss": 3} and top[0]["name"] == "random"
    assert len(moderation.most_strikes(limit=1)) == 1

    for address, times in (("203.0.113.7", 3), ("2001:db8::1", 1), ("198.51.100.2", 2)):
        for _ in range(times):
            count_refusal(redis_conn, key_prefix, address)
    assert top_refusals(redis_conn, key_prefix, 2) == [
        {"address": "203.0.113.7", "refusals": 3}, {"address": "198.51.100.2", "refusals": 2}]


def test_the_audit_log_pages_newest_first(redis_conn: redis.Redis, key_prefix: str) -> None:
    log = AuditLog(redis_conn, key_prefix)
    ids = [log.record("ops", "bot.suspend", f"b{i}", "r", "cli") for i in range(5)]
    first = log.entries(limit=2)
    assert [e["target"] for e in first] == ["b4", "b3"] and first[0]["id"] == ids[4]
    assert [e["target"] for e in log.entries(limit=10, before=first[-1]["id"])] == ["b2", "b1", "b0"]

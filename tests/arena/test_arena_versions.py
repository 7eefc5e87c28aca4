"""Bot versions rated apart: the version a bot reports (an HTTP bot's GET /, a polling bot's
ladder-seats?version=) is recorded with every match; each version keeps a rating line seeded from the previous
one's."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from trickarena import Bot, BotServer

from arena.jobs import check_bot_health, play_match
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.3", "random")


class Versioned(Bot):
    name = "versioned"
    version = "1.0"
    games = ("sore-spot",)

    def choose(self, view: Any) -> Any:
        decision = view["decision"]
        return decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]


@pytest.fixture
def store(redis_url: str, key_prefix: str) -> ArenaStore:
    return ArenaStore(redis.Redis.from_url(redis_url), key_prefix)


def play(store: ArenaStore, match_id: str, member: Member) -> None:
    entrants = [member, *(Member.house(n) for n in HOUSE)]
    ratings = store.ratings("ss")
    spec = match_spec(match_id, entrants, seed=len(match_id), deadline_ms=2000, ratings=ratings)
    store.create_match(spec)
    assert play_match(store, match_id, worker="w")["applied"]


def test_a_new_version_starts_a_rating_line_where_the_previous_one_stands(store: ArenaStore, client: Any,
                                                                         monkeypatch) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    bot = Versioned()
    with BotServer(bot) as server:
        bot_id = client.post("/api/bots", json={"name": "versioned", "games": ["sore-spot"],
                                                "url": server.url}).get_json()["bot_id"]
        member = Member(bot_id, MemberKind.HTTP, url=server.url, name="versioned")
        assert store.versions([bot_id]) == {bot_id: "1"}  # nothing reported yet: the SDKs' default
        assert check_bot_health(store, bot_id, server.url, allow_private=True)["ok"]
        play(store, "m1", member)
        play(store, "m22", member)
        after_v1 = store.ratings("ss")[bot_id]
        Versioned.version = "2.0"  # the author deploys a new version; the next health check sees it
        try:
            assert check_bot_health(store, bot_id, server.url, allow_private=True)["ok"]
            play(store, "m333", member)
        finally:
            Versioned.version = "1.0"
    now = store.ratings("ss")[bot_id]
    lines = store.version_lines("ss", bot_id)
    assert [(line["version"], line["matches"]) for line in lines] == [("1.0", 2), ("2.0", 1)]
    assert lines[0]["start"] == pytest.approx(1500.0) and lines[0]["rating"] == pytest.approx(after_v1)
    assert lines[1]["start"] == pytest.approx(after_v1) and lines[1]["rating"] == pytest.approx(now)
    played = [store.match(m)["result"]["versions"][bot_id] for m in ("m1", "m22", "m333")]
    assert played == ["1.0", "1.0", "2.0"]
    assert store.match("m1")["result"]["versions"]["house:random"] == "house"
    assert [entry["version"] for entry in store.history("ss", bot_id)] == ["2.0", "1.0", "1.0"]

    # The API and the pages show it: GET /api/bots/{id}, the ladder's ranking, the bot's page.
    detail = client.get(f"/api/bots/{bot_id}").get_json()
    assert detail["version"] == "2.0"
    assert [(v["ladder_id"], v["version"], v["matches"], v["current"]) for v in detail["versions"]] == [
        ("ss", "1.0", 2, False), ("ss", "2.0", 1, True)]
    assert detail["versions"][1]["start"] == pytest.approx(detail["versions"][0]["rating"])
    ranking = client.get("/api/ladders/ss").get_json()["ranking"]
    assert {row["bot_id"]: row["version"] for row in ranking}[bot_id] == "2.0"
    page = client.get(f"/ladders/ss/bots/{bot_id}").get_data(as_text=True)
    assert 'id="bot-versions"' in page and "1.0" in page and "current" in page
    assert "v2.0" in client.get("/ladders/ss").get_data(as_text=True)


def test_a_polling_bot_declares_its_version_on_ladder_seats(store: ArenaStore, client: Any) -> None:
    created = client.post("/api/bots", json={"name": "poller", "games": ["sore-spot"]}).get_json()
    headers = {"Authorization": f"Bearer {created['owner_token']}"}
    url = f"/api/bots/{created['bot_id']}/ladder-seats"
    assert client.get(url, query_string={"version": "3.1-beta"}, headers=headers).status_code == 200
    assert store.versions([created["bot_id"]]) == {created["bot_id"]: "3.1-beta"}
    too_long = client.get(url, query_string={"version": "x" * 65}, headers=headers)
    assert too_long.status_code == 422 and too_long.content_type == "application/problem+json"
    stranger = client.get(url, query_string={"version": "9"}, headers={"Authorization": "Bearer nope"})
    assert stranger.status_code in (401, 403)
    assert store.versions([created["bot_id"]]) == {created["bot_id"]: "3.1-beta"}  # unchanged by a stranger

"""A bot's decision log: what it was sent, what it answered, how long it took and what the arena did; for
its owner only, once the match is over."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
import redis

import engine
from arena.jobs import play_match
from arena.policy import fallback_move
from core.arena.decisions import ANSWER_LIMIT
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.moderation import Moderation
from core.arena.store import ArenaStore
from tests.scenarios import ONE_ROUND, match_spec


def register(client: Any, name: str, url: str) -> tuple[str, str]:
    answer = client.post("/api/bots", json={"name": name, "url": url, "games": ["sore-spot"]})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    return body["bot_id"], body["owner_token"]


@pytest.fixture
def played(make_app: Any, redis_url: str, key_prefix: str, bot_server: Any,
           monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A finished match of a good bot, a bot that answers illegal moves and two house bots."""
    monkeypatch.setenv("ALLOW_PRIVATE_BOT_URLS", "1")  # the bots listen on 127.0.0.1
    client = make_app().test_client()
    good_bot = bot_server("good")
    good_id, good_token = register(client, "logged-good", good_bot.url)
    bad_id, bad_token = register(client, "logged-illegal", bot_server("illegal").url)
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, ONE_ROUND, house_bots=()))
    entrants = [Member(good_id, MemberKind.HTTP, url=client.get(f"/api/bots/{good_id}").get_json()["url"]),
                Member(bad_id, MemberKind.HTTP, url=client.get(f"/api/bots/{bad_id}").get_json()["url"]),
                Member.house("heuristic"), Member.house("random")]
    spec = match_spec("mlog", entrants, seed=7, duplicate=True, strike_limit=1000, deadline_ms=2000)
    store.create_match(spec)
    assert client.get(f"/api/matches/mlog/bots/{good_id}/decisions",
                      headers={"Authorization": f"Bearer {good_token}"}).status_code == 409  # not played yet
    assert play_match(store, "mlog", worker="test")["applied"]
    return {"client": client, "store": store, "good": (good_id, good_token), "bad": (bad_id, bad_token),
            "good_bot": good_bot}


def read(client: Any, bot_id: str, token: str | None, query: str = "") -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.get(f"/api/matches/mlog/bots/{bot_id}/decisions{query}", headers=headers)


def test_the_owner_reads_every_decision_with_its_request_answer_latency_and_outcome(played) -> None:
    client, (good_id, good_token), (bad_id, bad_token) = played["client"], played["good"], played["bad"]
    doc = client.get("/api/matches/mlog").get_json()
    good = read(client, good_id, good_token).get_json()
    seats = {g["game_no"]: g["seating"].index(good_id) for g in doc["games"]}
    moves_of_good = sum(1 for g, record in enumerate(played["store"].match_games("mlog"))
                        for m in record["moves"] if m["seat"] == seats[g])
    assert len(good["decisions"]) == moves_of_good > 0
    for decision in good["decisions"]:
        request = decision["request"]
        assert decision["seat"] == seats[decision["game_no"]] == request["seat"] == request["view"]["seat"]
        assert decision["outcome"] == "ok" and not decision["fallback"] and decision["latency_ms"] >= 0
        assert decision["move"] in request["legal"]
        assert decision["answer"] == f'{{"move":"{decision["move"]}"}}'
        assert request["match"] == "mlog" and request["deadline_ms"] == 2000

    bad = read(client, bad_id, bad_token).get_json()["decisions"]
    assert bad and all(d["outcome"] == "illegal_move" and d["fallback"] for d in bad)
    for decision in bad:  # the raw answer it sent, and the fallback the game took instead
        assert '"ZZ"' in decision["answer"] and len(decision["answer"].encode()) <= ANSWER_LIMIT
        assert decision["move"] == fallback_move(decision["request"]["decision"])
        assert "ZZ" in decision["detail"]
    strikes = client.get("/api/matches/mlog").get_json()["strikes"]
    assert len([s for s in strikes if s["bot_id"] == bad_id]) == len(bad)


def test_each_request_rebuilt_is_the_view_the_seat_had_at_that_move(played) -> None:
    client, (good_id, good_token) = played["client"], played["good"]
    records = played["store"].match_games("mlog")
    for decision in read(client, good_id, good_token, "?game=1").get_json()["decisions"]:
        assert decision["game_no"] == 1
        game = engine.start_from_record(records[1])
        for move in records[1]["moves"][: decision["version"]]:
            game.apply(move["seat"], move["move"])
        assert decision["request"]["view"] == game.view(decision["seat"])


def test_each_request_rebuilt_is_the_request_the_bot_was_sent(played) -> None:
    # The sore suits are chosen at once, so each bot is asked before any of them answered: the log rebuilds
    # each request at the version it was asked at, byte for byte what the bot's server received.
    client, (good_id, good_token) = played["client"], played["good"]
    rebuilt = [decision["request"] for game_no in range(4)
               for decision in read(client, good_id, good_token, f"?game={game_no}").get_json()["decisions"]]
    sent = played["good_bot"].move_bodies
    assert len(rebuilt) == len(sent) > 4
    assert rebuilt == sent


def test_nobody_but_the_owner_reads_a_log(played) -> None:
    client, (good_id, good_token), (_, bad_token) = played["client"], played["good"], played["bad"]
    assert read(client, good_id, None).status_code == 401  # anonymous
    other = read(client, good_id, bad_token)  # the owner of another bot in the same match
    assert other.status_code == 403 and other.mimetype == "application/problem+json"
    stranger = client.post("/api/accounts").get_json()["api_key"]  # another account's key
    assert read(client, good_id, stranger).status_code == 403
    assert read(client, "house:heuristic", good_token).status_code == 404  # a house bot has no owner
    public = client.get("/api/matches/mlog").get_data(as_text=True)
    assert "decisions" not in public and '"answer"' not in public
    assert read(client, good_id, good_token, "?game=9").status_code == 404


def test_a_bot_of_yours_that_did_not_play_has_no_log(played, bot_server) -> None:
    client = played["client"]
    bot_id, token = register(client, "logged-absent", bot_server("good").url)
    answer = read(client, bot_id, token)
    assert answer.status_code == 404 and answer.get_json()["type"].endswith("/decision-log-not-found")


def test_a_renamed_bot_keeps_its_log_and_a_deleted_one_takes_it_along(played, redis_url, key_prefix) -> None:
    client, (good_id, good_token) = played["client"], played["good"]
    Moderation(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix).set_name_hidden(
        good_id, True, "test", "operator", "cli")
    assert read(client, good_id, good_token).status_code == 200
    deleted = client.delete(f"/api/bots/{good_id}", headers={"Authorization": f"Bearer {good_token}"})
    assert deleted.status_code == 204
    gone = read(client, good_id, good_token)
    assert gone.status_code == 404 and gone.get_json()["type"].endswith("/bot-not-found")


def test_the_replay_shows_each_card_with_the_latency_of_the_call_that_chose_it(played) -> None:
    """The public replay marks each card a bot chose through a /move call with that call's latency and
    outcome (the match's public call log), the same figures as its owner's decision log."""
    client, (good_id, good_token), (bad_id, _) = played["client"], played["good"], played["bad"]
    doc = client.get("/api/matches/mlog").get_json()
    seating = doc["games"][1]["seating"]
    page = client.get("/matches/mlog/games/1").get_data(as_text=True)
    frames = json.loads(html.unescape(re.search(r'data-frames="([^"]*)"', page).group(1)))
    cards = [card for frame in frames if frame["kind"] == "trick" for card in frame["trick"]["cards"]]
    for card in cards:
        bot = seating[card["seat"]]
        assert ("latency_ms" in card) == (bot in (good_id, bad_id)), card
        if bot == bad_id:
            assert card["outcome"] == "illegal_move"
    sore = next(frame for frame in frames if frame["kind"] == "sore")  # the laid cards: one choice per seat
    assert {int(seat) for seat in sore["choice_latencies"]} == {seating.index(good_id), seating.index(bad_id)}
    assert sore["choice_latencies"][str(seating.index(bad_id))]["outcome"] == "illegal_move"
    logged = {d["move"]: d["latency_ms"] for d in read(client, good_id, good_token, "?game=1").get_json()[
        "decisions"] if isinstance(d["move"], str)}
    shown = {c["card"]: c["latency_ms"] for c in cards if seating[c["seat"]] == good_id}
    # The log keeps a latency to 0.1 ms: half of that apart at most (and a float's rounding on top).
    assert shown and all(abs(shown[card] - logged[card]) <= 0.05 + 1e-9 for card in shown)


def test_the_bot_page_shows_latency_percentiles_and_links_each_match_to_its_decisions(played) -> None:
    client, (bad_id, _) = played["client"], played["bad"]
    page = client.get(f"/ladders/ss/bots/{bad_id}").get_data(as_text=True)
    profile = re.search(r'id="latency-profile">([^<]*)<', page).group(1)
    assert "over its 1 match below: p50" in profile and "0 timeouts in" in profile
    link = f"/matches/mlog/bots/{bad_id}/decisions"
    assert f'href="{link}"' in page
    shell = client.get(link)  # the page asks the API with the owner's token: the HTML holds none of the log
    text = shell.get_data(as_text=True)
    assert shell.status_code == 200 and 'id="token-form"' in text
    assert f'data-api="/api/matches/mlog/bots/{bad_id}/decisions"' in text and "illegal_move" not in text
    assert client.get("/matches/no-such-match/bots/x/decisions").status_code == 404


def test_a_deleted_bot_leaves_the_standings_and_its_matches_stay(played) -> None:
    client, (good_id, good_token) = played["client"], played["good"]
    ranked = client.get("/api/ladders/ss").get_json()
    assert good_id in {row["bot_id"] for row in ranked["ranking"] + ranked["new"]}
    deleted = client.delete(f"/api/bots/{good_id}", headers={"Authorization": f"Bearer {good_token}"})
    assert deleted.status_code == 204
    after = client.get("/api/ladders/ss").get_json()
    assert good_id not in {row["bot_id"] for row in after["ranking"] + after["new"]}
    assert len(after["ranking"]) + len(after["new"]) == len(ranked["ranking"]) + len(ranked["new"]) - 1
    match = client.get("/api/matches/mlog").get_json()  # the match it played is still there, as played
    assert good_id in match["entrants"] and good_id in match["totals"]

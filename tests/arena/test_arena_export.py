"""A bot's export (`GET /api/bots/{id}/export`): every finished match of a real HTTP bot, ladder matches and
challenges played by the arena's job function, one NDJSON line each whose records replay and verify as they
are; paging that loses and repeats nothing; and the answers to a client asking too much or nonsense."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis

import engine
from arena.match import MatchRunner, make_drivers
from core import keys
from core.arena.challenges import ChallengeStore
from core.arena.export import CHALLENGES, TOURNAMENTS, decode_cursor
from core.arena.model import MatchSpec
from core.arena.store import ArenaStore
from core.settings import Settings
from engine import deals
from engine.replay import replay_summary
from engine.seeds import derive_seed
from tests.finished_matches import LADDERS, entrants, play_challenge, play_ladder_match, play_matches
from tests.scenarios import match_spec

NDJSON = "application/x-ndjson"


@dataclasses.dataclass
class Exported:
    """A registered HTTP bot with six finished matches (two on each ladder, two challenges), oldest first."""

    client: Any
    store: ArenaStore
    settings: Settings
    bot_id: str
    url: str
    played: list[str]


@pytest.fixture
def exported(make_app: Any, redis_url: str, key_prefix: str, bot_server: Any) -> Iterator[Exported]:
    client = make_app(LIMIT_EXPORT="1000/minute").test_client()
    url = bot_server().url
    bot = client.post("/api/bots", json={"name": "exported", "games": ["sore-spot"], "url": url}).get_json()
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    settings = Settings(redis_url, key_prefix, allow_private_urls=True)
    yield Exported(client, store, settings, bot["bot_id"], url,
                   play_matches(store, settings, bot["bot_id"], url))


def lines(answer: Any) -> list[dict[str, Any]]:
    assert answer.status_code == 200, answer.get_data(as_text=True)[:500]
    assert answer.mimetype == NDJSON
    text = answer.get_data(as_text=True)
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def follow(client: Any, url: str) -> tuple[list[dict[str, Any]], int]:
    """Every line of the export from `url` on, following `Link: rel="next"`; and the answers it took."""
    found, answers = [], 0
    while url:
        answer = client.get(url)
        answers += 1
        found += lines(answer)
        link = answer.headers.get("Link")
        url = link[1:link.index(">")] if link else ""
        if link:
            assert link.endswith('>; rel="next"'), link
    return found, answers


def problem(answer: Any, status: int, slug: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["type"] == f"/problems/{slug}" and body["status"] == status, body
    return body


def test_every_finished_match_is_a_line_whose_records_replay_and_verify(exported: Exported) -> None:
    client, bot_id = exported.client, exported.bot_id
    found = lines(client.get(f"/api/bots/{bot_id}/export?limit=100"))
    assert [line["match_id"] for line in found] == exported.played  # oldest first, ladders and challenges
    assert [line["finished"] for line in found] == sorted(line["finished"] for line in found)
    assert [line["ladder_id"] for line in found[:3]] == [LADDERS[0].ladder_id, "", LADDERS[1].ladder_id]
    for line in found:
        match = client.get(f"/api/matches/{line['match_id']}").get_json()
        assert line["challenge"] is match["challenge"] and line["status"] == match["status"]
        assert line["status"] == ("played" if line["challenge"] else "rated") and line["expired"] is None
        for name in ("game", "duplicate", "entrants", "seed", "totals", "places", "deltas", "winners",
                     "forfeited", "games", "finished"):
            assert line[name] == match[name], name
        assert line["players"] == len(match["entrants"])
        bot = line["bot"]
        assert bot["bot_id"] == bot_id and bot["place"] == match["places"][bot_id]
        assert bot["delta"] == match["deltas"][bot_id] and bot["won"] is (bot_id in match["winners"])
        assert (bot["rating"] is None) is line["challenge"]
        # The records are the replay endpoint's, exactly; each replays to its game's totals and is dealt
        # from the seed the match's seed derives for it.
        assert len(line["records"]) == len(line["games"]) == len(match["replays"])
        rules = engine.rules_for(line["game"])
        for game, record, replay_url in zip(line["games"], line["records"], match["replays"], strict=True):
            assert record == client.get(replay_url).get_json()
            summary = replay_summary(record)
            assert summary["ok"] and summary["over"] and summary["totals"] == game["totals"]
            assert deals.verify_record(record, rules.first_dealer_from_seed()) == []
            assert record["seed"] == derive_seed("game", line["seed"], game["game_no"])
        assert decode_cursor(line["cursor"])  # a cursor this export made


def test_paging_loses_and_repeats_nothing_and_new_matches_come_after(exported: Exported) -> None:
    client, bot_id = exported.client, exported.bot_id
    whole = lines(client.get(f"/api/bots/{bot_id}/export?limit=100"))
    for limit in (1, 2, 4):
        paged, answers = follow(client, f"/api/bots/{bot_id}/export?limit={limit}")
        assert paged == whole and answers == -(-len(whole) // limit)
    # Going on from any line's cursor gives exactly the lines after it.
    for n, line in enumerate(whole):
        going_on = f"/api/bots/{bot_id}/export?limit=3&cursor={line['cursor']}"
        assert follow(client, going_on)[0] == whole[n + 1:]
    # since: the first match that finished after that time, and on from there.
    for n in (0, 2, 5):
        since = whole[n]["finished"]
        after = follow(client, f"/api/bots/{bot_id}/export?limit=2&since={since}")[0]
        assert [line["match_id"] for line in after] == [line["match_id"] for line in whole[n + 1:]]
    assert follow(client, f"/api/bots/{bot_id}/export?since=0")[0] == whole
    # Matches that finish after an export come after its last cursor, on every list.
    last = whole[-1]["cursor"]
    newer = [play_ladder_match(exported.store, exported.settings, LADDERS[1], bot_id, exported.url),
             play_challenge(exported.store, exported.settings, bot_id, exported.url),
             play_ladder_match(exported.store, exported.settings, LADDERS[0], bot_id, exported.url)]
    later = follow(client, f"/api/bots/{bot_id}/export?cursor={last}")[0]
    assert [line["match_id"] for line in later] == newer
    assert follow(client, f"/api/bots/{bot_id}/export?cursor={later[-1]['cursor']}")[0] == []


def test_a_match_in_play_is_never_exported(exported: Exported) -> None:
    """Nothing of a match is listed before it is finished: a queued ladder match, a queued challenge."""
    client, store, bot_id = exported.client, exported.store, exported.bot_id
    ladder = LADDERS[0]
    queued = match_spec("m-queued", entrants(bot_id, exported.url, ladder.players),
                        ladder_id=ladder.ladder_id, options=ladder.options, duplicate=True)
    store.create_match(queued)
    store.start_attempt(queued.match_id, "somebody", 60)  # running, as far as the store can tell
    challenge = match_spec("c-queued", entrants(bot_id, exported.url, 3), ladder_id="", challenge=True)
    ChallengeStore(store).create(challenge, owner=f"bot:{bot_id}", challenger=bot_id)
    found = lines(client.get(f"/api/bots/{bot_id}/export?limit=100"))
    assert [line["match_id"] for line in found] == exported.played
    assert all(line["status"] in ("rated", "played") for line in found)


def test_a_challenge_is_listed_once_by_the_run_that_stored_it(exported: Exported) -> None:
    """A late second run of a played challenge (a zombie worker) stores nothing, and lists nothing again."""
    store, bot_id = exported.store, exported.bot_id
    challenge_id = exported.played[1]
    doc = store.match(challenge_id)
    spec = MatchSpec.from_json(doc["spec"])
    listed = store.redis.zrange(keys.challenges_of_bot(store.prefix, bot_id), 0, -1)
    result = MatchRunner(spec, make_drivers(spec, allow_private=True)).run()
    assert ChallengeStore(store).finish(spec, result, doc) is False
    assert store.redis.zrange(keys.challenges_of_bot(store.prefix, bot_id), 0, -1) == listed
    assert len(listed) == 2 and {json.loads(entry)["match"] for entry in listed} == {
        exported.played[1], exported.played[4]}


def test_expired_replays_and_documents_are_said(exported: Exported) -> None:
    """The retention policy deletes a match's replays first (TA_REPLAY_TTL), its document later: the line
    says which, without records, and keeps what the bot's own record knows."""
    client, store, bot_id = exported.client, exported.store, exported.bot_id
    no_replays, no_document, challenge_gone = exported.played[0], exported.played[2], exported.played[1]
    store.redis.delete(keys.arena_match_games(store.prefix, no_replays))
    store.redis.delete(keys.arena_match_games(store.prefix, no_document),
                       keys.arena_match(store.prefix, no_document))
    store.redis.delete(keys.arena_match_games(store.prefix, challenge_gone),
                       keys.arena_match(store.prefix, challenge_gone))
    found = {line["match_id"]: line for line in lines(client.get(f"/api/bots/{bot_id}/export?limit=100"))}
    assert list(found) == exported.played
    assert found[no_replays]["expired"] == "replays" and found[no_replays]["records"] is None
    assert found[no_replays]["games"] and found[no_replays]["seed"] is not None
    for gone in (no_document, challenge_gone):
        line = found[gone]
        assert line["expired"] == "match" and line["records"] is None and line["games"] is None
        assert line["bot"]["place"] in (1.0, 2.0, 3.0) and line["game"] == "sore-spot"
    assert found[no_document]["ladder_id"] == LADDERS[1].ladder_id and found[no_document]["status"] == "rated"
    assert found[challenge_gone]["challenge"] and found[challenge_gone]["ladder_id"] == CHALLENGES == ""
    assert found[challenge_gone]["bot"]["rating"] is None and found[challenge_gone]["status"] == "played"
    assert all(found[m]["records"] for m in exported.played if m not in (no_replays, no_document,
                                                                          challenge_gone))


def test_a_client_asking_too_much_or_nonsense_gets_a_problem(make_app: Any, exported: Exported) -> None:
    client, bot_id = exported.client, exported.bot_id
    export = f"/api/bots/{bot_id}/export"
    first = lines(client.get(export))[0]["cursor"]
    for query, field in (("limit=101", "limit"), ("limit=1000000000", "limit"), ("limit=0", "limit"),
                         ("limit=x", "limit"), ("since=-1", "since"), ("since=soon", "since"),
                         ("cursor=not-a-cursor", "cursor"), ("cursor=WzFd", "cursor"),
                         ("cursor=" + "A" * 5000, "cursor"), (f"since=1&cursor={first}", "cursor")):
        body = problem(client.get(f"{export}?{query}"), 422, "validation-failed")
        assert list(body["errors"]) == [field], (query, body)
    # An empty cursor (no position yet) is the oldest match's start: the whole export.
    whole = lines(client.get(f"{export}?cursor=e30&limit=100"))
    assert [line["match_id"] for line in whole] == exported.played
    for unknown in ("no-such-bot", "house:heuristic"):
        body = problem(client.get(f"/api/bots/{unknown}/export"), 404, "bot-not-found")
        assert body["detail"] == f"no bot {unknown!r}"
    # Pages per client address: the limit of LIMIT_EXPORT, answered 429 with Retry-After beyond it.
    strict = make_app(LIMIT_EXPORT="2/minute").test_client()
    assert [strict.get(export).status_code for _ in range(2)] == [200, 200]
    refused = strict.get(export)
    body = problem(refused, 429, "rate-limited")
    assert "2 per 1 minute" in body["detail"] and int(refused.headers["Retry-After"]) > 0


def test_a_tournament_table_is_exported_once_its_round_is_published(make_app: Any, redis_url: str,
                                                                    key_prefix: str, bot_server: Any) -> None:
    from arena.jobs import play_match

    client = make_app(LIMIT_EXPORT="1000/minute").test_client()
    url = bot_server().url
    key = client.post("/api/accounts").get_json()["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    bot_id = client.post("/api/bots", json={"name": "entrant", "games": ["sore-spot"], "url": url},
                         headers=auth).get_json()["bot_id"]
    event = client.post("/api/tournaments", headers=auth, json={
        "game": "sore-spot", "format": "swiss", "players": 3, "rounds": 1, "options": {"rounds": 1},
        "bots": [bot_id, "heuristic", "random", "eps-0.3", "eps-0.6", "eps-0.9"]}).get_json()
    tables = event["schedule"][0]["tables"]
    mine = next(t["match_id"] for t in tables if bot_id in t["bots"])
    other = next(t["match_id"] for t in tables if bot_id not in t["bots"])
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    settings = Settings(redis_url, key_prefix, allow_private_urls=True)
    assert play_match(store, mine, worker="export-tests", settings=settings)["status"] == "held"
    # Over, but its deals are still in play at the other table: not in the export.
    assert lines(client.get(f"/api/bots/{bot_id}/export")) == []
    assert play_match(store, other, worker="export-tests", settings=settings)["status"] == "held"
    found = lines(client.get(f"/api/bots/{bot_id}/export"))
    assert [line["match_id"] for line in found] == [mine]
    line, match = found[0], client.get(f"/api/matches/{mine}").get_json()
    assert line["tournament"] == event["tournament_id"] == match["tournament"]
    assert line["ladder_id"] == "" and line["challenge"] is False and line["status"] == "played"
    for name in ("seed", "totals", "places", "games", "entrants"):
        assert line[name] == match[name], name
    assert line["bot"]["place"] == match["places"][bot_id] and line["bot"]["delta"] == 0.0
    rules = engine.rules_for("sore-spot")
    assert len(line["records"]) == 3
    for record, replay_url in zip(line["records"], match["replays"], strict=True):
        assert record == client.get(replay_url).get_json()
        assert deals.verify_record(record, rules.first_dealer_from_seed()) == []
    cursor = decode_cursor(line["cursor"])
    assert list(cursor) == [TOURNAMENTS]
    assert lines(client.get(f"/api/bots/{bot_id}/export?cursor={line['cursor']}")) == []

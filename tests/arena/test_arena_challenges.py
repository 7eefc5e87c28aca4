"""Challenges: unrated matches between chosen bots, played by a real `python -m arena worker --challenges`
against real HTTP bots, through the real API (core.arena.challenges, api.blueprints.challenges)."""

from __future__ import annotations

import time
from typing import Any

import redis

from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from tests.api.api_helpers import assert_problem as problem
from tests.api.api_helpers import bearer
from tests.waiting import wait_until

HOUSE = ("heuristic", "random", "eps-0.5")
OPTIONS = {"rounds": 1}


def _register(client: Any, name: str, url: str | None, games: tuple[str, ...] = ("sore-spot",)) -> tuple[str,
                                                                                                            str]:
    body: dict[str, Any] = {"name": name, "games": list(games)}
    if url:
        body["url"] = url
    answer = client.post("/api/bots", json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["bot_id"], answer.get_json()["owner_token"]


def _challenge(client: Any, token: str | None, bots: list[str], **extra: Any) -> Any:
    body = {"game": "sore-spot", "bots": bots, "duplicate": False, "options": OPTIONS, **extra}
    return client.post("/api/challenges", json=body, headers=bearer(token) if token else {})


def _wait_status(client: Any, challenge_id: str, wanted: set[str], timeout: float = 60) -> dict[str, Any]:
    def reached() -> dict[str, Any] | None:
        answer = client.get(f"/api/challenges/{challenge_id}").get_json()
        return answer if answer["status"] in wanted else None

    return wait_until(reached, timeout, f"challenge {challenge_id} reaching {wanted}")


def test_a_challenge_is_played_unrated_with_replays_and_analyses_and_no_ladder_sees_it(
        client, bot_process, challenge_worker, redis_url, key_prefix) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("ss-3p", "sore-spot", 3, OPTIONS, house_bots=HOUSE))
    mine, token = _register(client, "challenger", bot_process())
    theirs, their_token = _register(client, "opponent", bot_process(house_bot="random"))
    assert client.patch(f"/api/bots/{theirs}", json={"accepts_challenges": True},
                        headers=bearer(their_token)).get_json()["accepts_challenges"] is True
    created = _challenge(client, token, [mine, theirs, "house:heuristic"], games=3)
    assert created.status_code == 201, created.get_json()
    challenge = created.get_json()
    assert created.headers["Location"] == challenge["url"]
    assert challenge["status"] == "queued" and challenge["games"] == 3
    assert challenge["bots"] == [mine, theirs, "house:heuristic"]
    assert challenge["names"] == ["challenger", "opponent", "heuristic"]
    assert challenge["match"]["seed"] is None and challenge["match"]["replays"] == []

    challenge_worker()
    done = _wait_status(client, challenge["challenge_id"], {"played", "aborted"})
    assert done["status"] == "played", done
    match = client.get(done["match_url"]).get_json()
    assert match["challenge"] is True and match["ladder_id"] == ""
    assert match["seed"] is not None and len(match["replays"]) == 3
    assert set(match["deltas"].values()) == {0.0} and match["strikes"] == []
    house = "house:heuristic"
    assert [g["seating"] for g in match["games"]] == [
        [mine, theirs, house], [theirs, house, mine], [house, mine, theirs]]
    replay = client.get(match["replays"][1])
    assert replay.status_code == 200 and replay.get_json()["game"] == "sore-spot"
    analysis = client.post(f"/api/matches/{done['challenge_id']}/games/0/analysis?seat=1")
    assert analysis.status_code == 202, analysis.get_json()
    page = client.get(done["web_url"])
    assert page.status_code == 200 and b"Challenge" in page.data and b"opponent" in page.data
    # No ladder knows of it: no rating, no stats, no record, no recent match.
    assert store.recent_matches("ss-3p") == []
    assert mine not in store.ratings("ss-3p") and theirs not in store.ratings("ss-3p")
    assert store.ratings("ss-3p")["house:heuristic"] == 1500.0
    assert store.stats("ss-3p", ["house:heuristic"])["house:heuristic"]["matches"] == 0
    problem(client.get(f"/api/bots/{mine}/matches"), 404, "bot-not-on-ladder")
    # A ladder match's id is no challenge's.
    problem(client.get("/api/challenges/mnothing"), 404, "challenge-not-found")


def test_who_may_challenge_whom(client) -> None:
    mine, token = _register(client, "alice-bot", "http://127.0.0.1:9/")
    theirs, their_token = _register(client, "bob-bot", "http://127.0.0.1:9/")
    closed = problem(_challenge(client, token, [mine, theirs, "random"]), 409, "challenge-not-accepted")
    assert closed["bot_id"] == theirs and "accepts_challenges" in closed["detail"]
    assert "trick-arena account adopt" in closed["detail"]  # how to make two bots one owner's
    # Another owner's token cannot make a challenge for bots it does not own, whoever accepts.
    client.patch(f"/api/bots/{theirs}", json={"accepts_challenges": True}, headers=bearer(their_token))
    _, stranger = _register(client, "carol-bot", None)
    problem(_challenge(client, stranger, [mine, theirs, "random"]), 403, "bad-token")
    problem(_challenge(client, stranger, ["heuristic", "random", "eps-0.5"]), 403, "bad-token")
    problem(_challenge(client, None, [mine, "heuristic", "random"]), 401, "token-required")
    # Nobody chooses a deal: no seed, no deals in a challenge.
    assert _challenge(client, token, [mine, "heuristic", "random"], seed=7).status_code == 422
    problem(_challenge(client, token, [mine, mine, "random"]), 422, "bad-challenge")
    problem(_challenge(client, token, [mine, "house:nobody", "random"]), 422, "bad-challenge")
    problem(_challenge(client, token, [mine, "heuristic", "random"], players=4), 422, "bad-challenge")
    problem(_challenge(client, token, [mine, "heuristic", "random"], duplicate=True, games=4), 422,
             "bad-challenge")
    problem(_challenge(client, token, [mine, "heuristic", "random"], options={"target": 5}), 422,
             "invalid-options")
    problem(_challenge(client, token, [mine, "0123456789abcdef", "random"]), 404, "bot-not-found")
    client.patch(f"/api/bots/{theirs}", json={"enabled": False}, headers=bearer(their_token))
    problem(_challenge(client, token, [mine, theirs, "random"]), 409, "challenge-not-accepted")
    # The owner's own bots need no consent, and house bots always take part.
    assert _challenge(client, token, [mine, "search-5", "random"]).status_code == 201


def test_a_flood_of_challenges_hits_the_quotas(make_app) -> None:
    client = make_app(MAX_PENDING_CHALLENGES_PER_OWNER=2, MAX_CHALLENGES_PER_OWNER_PER_DAY=3,
                      MAX_PENDING_CHALLENGES=3).test_client()
    mine, token = _register(client, "flooder", "http://127.0.0.1:9/")
    bots = [mine, "heuristic", "random"]
    assert [_challenge(client, token, bots).status_code for _ in range(2)] == [201, 201]
    flood = [_challenge(client, token, bots) for _ in range(20)]
    body = problem(flood[0], 429, "challenge-quota-exceeded")
    assert body["quota"] == "pending" and body["limit"] == 2 and int(flood[0].headers["Retry-After"]) > 0
    assert {answer.status_code for answer in flood} == {429}
    # Another owner (an account; bots without one count per registering address): the global cap (3
    # queued or running) stops it after one.
    other_token = client.post("/api/accounts").get_json()["api_key"]
    other = client.post("/api/bots", json={"name": "other", "games": ["sore-spot"]},
                        headers=bearer(other_token)).get_json()["bot_id"]
    assert _challenge(client, other_token, [other, "heuristic", "random"]).status_code == 201
    problem(_challenge(client, other_token, [other, "heuristic", "random"]), 503, "challenge-queue-full")


def test_a_daily_quota_per_owner(make_app, redis_url, key_prefix) -> None:
    from core.arena.challenges import ChallengeStore

    client = make_app(MAX_PENDING_CHALLENGES_PER_OWNER=5, MAX_CHALLENGES_PER_OWNER_PER_DAY=2).test_client()
    mine, token = _register(client, "daily", "http://127.0.0.1:9/")
    store = ChallengeStore(ArenaStore(redis.Redis.from_url(redis_url), key_prefix))
    for _ in range(2):
        created = _challenge(client, token, [mine, "heuristic", "random"]).get_json()
        store.abort(created["challenge_id"], "test: finished")  # no longer pending, still counted today
    body = problem(_challenge(client, token, [mine, "heuristic", "random"]), 429, "challenge-quota-exceeded")
    assert body["quota"] == "per_day" and body["limit"] == 2


def test_nothing_of_a_challenge_deal_shows_before_it_is_played(client, bot_process, challenge_worker) -> None:
    mine, token = _register(client, "slowpoke", bot_process(behaviour="sleep", delay_s=0.1))
    challenge = _challenge(client, token, [mine, "heuristic", "random"], games=2).get_json()
    cid = challenge["challenge_id"]
    challenge_worker()
    running = _wait_status(client, cid, {"running", "played"})
    assert running["status"] == "running", "the match ended before it could be probed"
    assert running["match"]["seed"] is None and running["match"]["replays"] == []
    assert str(client.get(f"/api/matches/{cid}").get_json()["seed"]) == "None"
    problem(client.get(f"/api/matches/{cid}/games/0/replay"), 409, "match-not-finished")
    problem(client.post(f"/api/matches/{cid}/games/0/analysis?seat=0"), 409, "match-not-finished")
    live = client.get(f"/api/matches/{cid}/live").get_json()
    assert "seed" not in str(live) and live["seat_names"][0] == "slowpoke"
    done = _wait_status(client, cid, {"played", "aborted"}, timeout=90)
    assert done["status"] == "played" and done["match"]["seed"] is not None
    # Fresh deals: no game of the challenge is dealt from the challenge's seed itself, nor twice.
    replays = [client.get(url).get_json() for url in done["match"]["replays"]]
    seeds = {r["seed"] for r in replays}
    assert len(seeds) == 2 and done["match"]["seed"] not in seeds


def test_the_scheduler_recovers_a_lost_challenge_and_gives_one_up(client, redis_url, key_prefix) -> None:
    from rq import Queue

    from arena.scheduler import CHALLENGE_GRACE_S, MAX_ATTEMPTS, Scheduler
    from core import keys
    from core.arena.challenges import ChallengeStore
    from core.settings import Settings

    conn = redis.Redis.from_url(redis_url)
    store = ArenaStore(conn, key_prefix)
    challenges = ChallengeStore(store)
    queue = Queue(keys.challenge_queue(key_prefix), connection=conn)
    scheduler = Scheduler(store, Queue(keys.arena_queue(key_prefix), connection=conn),
                          Settings(redis_url, key_prefix, True), challenge_queue=queue)
    mine, token = _register(client, "lost", "http://127.0.0.1:9/")
    lost, given_up = (_challenge(client, token, [mine, "heuristic", "random"]).get_json()["challenge_id"]
                      for _ in range(2))
    queue.empty()  # both jobs lost (say Redis lost them in a fail-over); the documents say queued
    counts = {"requeued": 0, "aborted": 0}
    scheduler.recover_challenges(counts)
    assert counts == {"requeued": 0, "aborted": 0}, "a challenge just created is given time to be enqueued"
    for cid in (lost, given_up):
        store.update_match(cid, created=time.time() - CHALLENGE_GRACE_S - 1)
    store.update_match(given_up, attempts=MAX_ATTEMPTS)
    scheduler.recover_challenges(counts)
    assert counts == {"requeued": 1, "aborted": 1}
    assert queue.job_ids == [lost] and store.match(lost)["requeued_because"] == "job missing"
    assert store.match(given_up)["status"] == "aborted" and given_up not in challenges.pending()
    assert client.get(f"/api/challenges/{given_up}").get_json()["status"] == "aborted"
    # Its place in the owner's quota is free again, and nobody can store it late.
    assert store.is_applied(given_up) and challenges.pending() == [lost]

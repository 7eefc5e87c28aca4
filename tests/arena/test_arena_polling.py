"""Polling bots on a ladder: their seats are real API tables, played over HTTP through the move API."""

from __future__ import annotations

import threading
import time

import requests

from arena.jobs import play_match
from arena.polling import SEAT_PICKUP_S
from core.arena.model import LadderConfig, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")


def register(base: str, name: str, game: str = "sore-spot") -> tuple[str, str]:
    """A polling bot registered over HTTP: its id and owner token."""
    response = requests.post(f"{base}/api/bots", json={"name": name, "games": [game]}, timeout=5)
    assert response.status_code == 201, response.text
    body = response.json()
    return body["bot_id"], body["owner_token"]


def start_match(redis_conn_url: str, prefix: str, bot_id: str, deadline_ms: int) -> tuple[ArenaStore, dict]:
    import redis

    store = ArenaStore(redis.Redis.from_url(redis_conn_url), prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    entrants = [Member(bot_id, MemberKind.POLL, name="poller"), *(Member.house(n) for n in HOUSE)]
    spec = match_spec("mpoll", entrants, seed=5, deadline_ms=deadline_ms)
    store.create_match(spec)
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.update(play_match(store, "mpoll", worker="test")))
    thread.start()
    outcome["thread"] = thread
    return store, outcome


def test_polling_bot_plays_its_ladder_seat_through_the_move_api(live_server, redis_url, key_prefix) -> None:
    bot_id, owner = register(live_server, "poller")
    auth = {"Authorization": f"Bearer {owner}"}
    assert requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", timeout=5).status_code == 401
    bot_url = f"{live_server}/api/bots/{bot_id}"
    assert requests.get(bot_url, timeout=5).json()["present"] is False  # not polling yet
    requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", headers=auth, timeout=5)
    assert requests.get(bot_url, timeout=5).json()["present"] is True
    store, outcome = start_match(redis_url, key_prefix, bot_id, deadline_ms=3000)
    seats: list = []
    deadline = time.monotonic() + 10
    while not seats and time.monotonic() < deadline:
        seats = requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", headers=auth, timeout=5).json()
    assert len(seats) == 1
    seat = seats[0]
    seat_auth = {"Authorization": f"Bearer {seat['token']}"}
    moves = 0
    after = -1
    while True:
        state = requests.get(f"{live_server}{seat['state_url']}", params={"after": after, "wait": 5},
                             headers=seat_auth, timeout=10).json()
        after = state["version"]
        if state["status"] == "over":
            break
        if state["your_turn"]:
            decision = state["view"]["decision"]
            legal = decision["legal"]
            move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[-1]
            posted = requests.post(f"{live_server}{seat['moves_url']}", headers=seat_auth, timeout=5,
                                   json={"move": move, "expected_version": state["version"]})
            assert posted.status_code == 200, posted.text
            moves += 1
    outcome["thread"].join(timeout=20)
    assert outcome["status"] == MatchStatus.RATED and outcome["applied"] is True
    doc = store.match("mpoll")
    assert [s for s in doc["result"]["strikes"] if s["bot_id"] == bot_id] == []
    assert moves == 13  # Sore Spot, 4 players, one round: one sore card + 12 tricks
    # Its decision log: each of its 13 decisions, at the API table, timed from the decision to its move.
    log = requests.get(f"{live_server}/api/matches/mpoll/bots/{bot_id}/decisions", headers=auth,
                       timeout=5).json()["decisions"]
    assert len(log) == 13 and {d["outcome"] for d in log} == {"ok"}
    assert all(0 <= d["latency_ms"] < 3000 for d in log)
    assert {d["request"]["table"] for d in log} == {log[0]["request"]["table"]}
    assert requests.get(f"{live_server}/api/bots/{bot_id}/ladder-seats", headers=auth, timeout=5).json() == []
    # The game was a real API table: its replay is published there too.
    table = doc["result"]["games"][0]["table"]
    assert requests.get(f"{live_server}/api/tables/{table}/replay", timeout=5).status_code == 200
    public = requests.get(f"{live_server}/api/tables/{table}", timeout=5).json()
    assert public["seed"] == MatchSpec.from_json(doc["spec"]).game_seed(0) < 2**53
    # The live feed covered this match too: its last frame is that table, over, with no hand in it.
    live = requests.get(f"{live_server}/api/matches/mpoll/live", timeout=5).json()
    assert live["status"] == "over" and live["game_over"] is True and live["table"] == table
    assert live["version"] == doc["result"]["games"][0]["moves"]
    assert "hand" not in live["view"] and bot_id in live["seating"]


def test_absent_polling_bot_times_out_forfeits_and_the_match_completes(live_server, redis_url, key_prefix):
    bot_id, _owner = register(live_server, "sleeper")
    store, outcome = start_match(redis_url, key_prefix, bot_id, deadline_ms=150)
    outcome["thread"].join(timeout=30)
    assert outcome["status"] == MatchStatus.RATED
    result = store.match("mpoll")["result"]
    strikes = [s for s in result["strikes"] if s["bot_id"] == bot_id]
    assert len(strikes) == 5 and {s["reason"] for s in strikes} == {"timeout"}
    # Its first decision at the table had the time to pick up the new seat on top; later ones the deadline.
    pickup_ms = 150 + SEAT_PICKUP_S * 1000
    assert [s["detail"] for s in strikes] == [f"no move through the move API within {pickup_ms:.0f} ms",
                                             *["no move through the move API within 150 ms"] * 4]
    assert result["forfeited"] == [bot_id]
    assert result["places"][bot_id] == max(result["places"].values())

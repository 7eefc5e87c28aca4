"""People at the table: a person opens a table against registered bots (real HTTP bot servers) and house bots,
and plays it through the move API while a real challenge worker plays the bots (api.blueprints.tables,
core.arena.guests, arena.house)."""

from __future__ import annotations

from typing import Any

from tests.api.api_helpers import assert_problem as problem
from tests.api.api_helpers import bearer

GAME = {"game": "sore-spot", "options": {"rounds": 1}}


def _register(client: Any, name: str, url: str | None, games: tuple[str, ...] = ("sore-spot",),
              headers: dict[str, str] | None = None) -> tuple[str, str]:
    body: dict[str, Any] = {"name": name, "games": list(games)}
    if url:
        body["url"] = url
    answer = client.post("/api/bots", json=body, headers=headers or {})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["bot_id"], answer.get_json().get("owner_token", "")


def _accepting(client: Any, bot_id: str, token: str) -> str:
    answer = client.patch(f"/api/bots/{bot_id}", json={"accepts_challenges": True}, headers=bearer(token))
    assert answer.get_json()["accepts_challenges"] is True
    return bot_id


def _table(client: Any, seats: list[str], headers: dict[str, str] | None = None, **extra: Any) -> Any:
    return client.post("/api/tables", json={**GAME, "seats": seats, **extra}, headers=headers or {})


def test_a_person_plays_registered_and_house_bots_to_the_end(client, bot_server, challenge_worker) -> None:
    good = bot_server("good", house_bot="heuristic")
    failing = bot_server("status500")
    good_id = _accepting(client, *_register(client, "good-guest", good.url))
    failing_id = _accepting(client, *_register(client, "failing-guest", failing.url))
    created = _table(client, ["open", f"bot:{good_id}", f"bot:{failing_id}", "heuristic"])
    assert created.status_code == 201, created.get_json()
    table = created.get_json()
    assert [(s["kind"], s["name"]) for s in table["seats"]] == [
        ("open", None), ("bot", good_id), ("bot", failing_id), ("house", "heuristic")]
    table_id = table["table_id"]
    # A person holds the open seat; a bot's seat cannot be joined, so no token ever shows a bot's hand.
    problem(client.post(f"/api/tables/{table_id}/seats/1/join"), 409, "seat-not-open")
    token = client.post(f"/api/tables/{table_id}/seats/0/join").get_json()["token"]
    problem(client.get(f"/api/tables/{table_id}/seats/1", headers=bearer(token)), 403, "bad-token")
    challenge_worker()
    version, moves = -1, 0
    while True:
        state = client.get(f"/api/tables/{table_id}/seats/0?after={version}&wait=10",
                           headers=bearer(token)).get_json()
        version = state["version"]
        if state["status"] == "over":
            break
        if state["your_turn"]:
            decision = state["view"]["decision"]
            legal = decision["legal"]
            move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]
            answer = client.post(f"/api/tables/{table_id}/seats/0/moves", headers=bearer(token),
                                 json={"move": move, "expected_version": version})
            assert answer.status_code == 200, answer.get_json()
            moves += 1
        assert moves < 200
    replay = client.get(f"/api/tables/{table_id}/replay").get_json()
    played_by = [m["seat"] for m in replay["moves"]]
    # The good bot was asked every one of its decisions, and each answer was played as it chose.
    assert len(good.move_bodies) == played_by.count(1)
    for body in good.move_bodies:
        assert body["seat"] == 1 and body["table"] == table_id and body["view"]["seat"] == 1
        # Its own hand and the public table: no other seat's cards anywhere in what it is sent.
        assert "hands" not in body["view"] and set(body["legal"]) <= set(body["view"]["hand"])
    assert set(good.move_bodies[0]["view"]["hand"]) == set(replay["deals"][0]["hands"][1])
    # The failing bot answered 500 every time: a legal fallback was played for it, and the table finished.
    assert len(failing.move_bodies) == played_by.count(2) > 0
    assert client.get(f"/api/tables/{table_id}").get_json()["status"] == "over"


def test_who_may_sit_at_a_persons_table(client) -> None:
    mine, my_token = _register(client, "mine", "http://127.0.0.1:9/")
    theirs, _ = _register(client, "theirs", "http://127.0.0.1:9/")
    poller, poller_token = _register(client, "poller", None)
    hearts, hearts_token = _register(client, "hearts-only", "http://127.0.0.1:9/", games=("spot-hearts",))
    # Another owner's bot that does not accept challenges.
    refused = problem(_table(client, ["open", f"bot:{theirs}", "random"]), 409, "challenge-not-accepted")
    assert refused["bot_id"] == theirs
    # Its owner may seat it, challenges off or not.
    assert _table(client, ["open", f"bot:{mine}", "random"], headers=bearer(my_token)).status_code == 201
    # ... but not without the token, nor with another bot's.
    problem(_table(client, ["open", f"bot:{mine}", "random"]), 409, "challenge-not-accepted")
    problem(_table(client, ["open", f"bot:{mine}", "random"], headers=bearer(hearts_token)), 409,
             "challenge-not-accepted")
    _accepting(client, poller, poller_token)
    polling = problem(_table(client, ["open", f"bot:{poller}", "random"]), 422, "bad-seats")
    assert "no URL" in polling["detail"]
    _accepting(client, hearts, hearts_token)
    assert "does not play" in problem(_table(client, ["open", f"bot:{hearts}", "random"]), 422,
                                       "bad-seats")["detail"]
    twice = _table(client, ["open", f"bot:{mine}", f"bot:{mine}"], headers=bearer(my_token))
    assert "once" in problem(twice, 422, "bad-seats")["detail"]
    no_person = _table(client, [f"bot:{mine}", "random", "random"], headers=bearer(my_token))
    assert "open" in problem(no_person, 422, "bad-seats")["detail"]
    assert "no bot" in problem(_table(client, ["open", "bot:0123456789abcdef", "random"]), 422,
                                "bad-seats")["detail"]
    problem(_table(client, ["open", "bot:", "random"]), 422, "bad-seats")


def _client_of(app: Any, address: str) -> Any:
    client = app.test_client()
    client.environ_base = {**client.environ_base, "REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": address}
    return client


def test_tables_with_registered_bots_are_limited_per_address_and_per_account(make_app) -> None:
    app = make_app(LIMIT_BOT_TABLES="2/hour", TRUSTED_PROXIES=("10.0.0.2",))
    first, second = _client_of(app, "198.51.100.7"), _client_of(app, "198.51.100.8")
    key = first.post("/api/accounts").get_json()["api_key"]
    bot_id, _ = _register(first, "account-bot", "http://127.0.0.1:9/", headers=bearer(key))
    seats = ["open", f"bot:{bot_id}", "random"]
    assert [_table(first, seats, headers=bearer(key)).status_code for _ in range(2)] == [201, 201]
    # Tables with house bots only are not counted.
    assert _table(first, ["open", "random", "random"]).status_code == 201
    # The account is at its limit from any address ...
    refused = problem(_table(second, seats, headers=bearer(key)), 429, "rate-limited")
    assert "2 per 1 hour" in refused["detail"]
    # ... and the address at its own: the account's refused table counted there too.
    other, other_token = _register(second, "other", "http://127.0.0.1:9/")
    assert _table(second, ["open", f"bot:{other}", "random"], headers=bearer(other_token)).status_code == 201
    problem(_table(second, ["open", f"bot:{other}", "random"], headers=bearer(other_token)), 429,
             "rate-limited")

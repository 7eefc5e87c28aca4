"""Every error status the API can answer is application/problem+json, without a stack trace."""

from __future__ import annotations

import json

from api_helpers import assert_problem, bearer, join, open_table


def test_404_unknown_route_and_unknown_table(client):
    assert_problem(client.get("/api/no-such-thing"), 404)
    assert_problem(client.get("/api/tables/doesnotexist"), 404, "table-not-found")
    assert_problem(client.get("/api/games/chess"), 404, "game-not-found")


def test_405_lists_allowed_methods(client):
    response = client.delete("/api/games")
    body = assert_problem(response, 405)
    assert "GET" in response.headers["Allow"]
    assert "GET" in body["detail"]


def test_415_non_json_body(client):
    response = client.post("/api/tables", data="game=spot-hearts",
                           content_type="application/x-www-form-urlencoded")
    assert_problem(response, 415)


def test_413_body_over_the_cap(make_app):
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    body = {"game": "spot-hearts", "seats": ["open"] * 4, "pad": "x" * 5000}
    response = client.post("/api/tables", json=body)
    assert_problem(response, 413)


def test_422_validation_names_the_fields(client):
    body = assert_problem(client.post("/api/tables", json={"seats": "open"}), 422, "validation-failed")
    assert set(body["errors"]) == {"game", "seats"}


def test_422_bad_options_and_unknown_seat_kind(client):
    bad_options = {"game": "spot-hearts", "seats": ["open"] * 4, "options": {"target": -5}}
    body = assert_problem(client.post("/api/tables", json=bad_options), 422, "invalid-options")
    assert "target" in body["detail"]
    bad_seat = {"game": "spot-hearts", "seats": ["open", "open", "open", "alphago"]}
    assert_problem(client.post("/api/tables", json=bad_seat), 422, "bad-seats")
    assert_problem(client.post("/api/tables", json={"game": "poker", "seats": ["open"] * 4}), 422)


def test_400_malformed_move_and_400_bad_json(client):
    table = open_table(client, ["open", "random", "random", "random"])
    token = join(client, table["table_id"], 0)
    response = client.post(f"/api/tables/{table['table_id']}/seats/0/moves", headers=bearer(token),
                           json={"move": ["ZZ", "2C", "3C"], "expected_version": 0})
    body = assert_problem(response, 400, "malformed-move")
    assert body["legal"], "a refused move lists the legal choices"
    response = client.post(f"/api/tables/{table['table_id']}/seats/0/moves", headers=bearer(token),
                           data="{not json", content_type="application/json")
    assert_problem(response, 400)


def test_401_without_token_and_403_with_a_wrong_one(client):
    table = open_table(client, ["open", "open", "random", "random"])
    token0 = join(client, table["table_id"], 0)
    join(client, table["table_id"], 1)
    response = client.get(f"/api/tables/{table['table_id']}/seats/0")
    assert_problem(response, 401, "token-required")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    seats_url = f"/api/tables/{table['table_id']}/seats"
    assert_problem(client.get(f"{seats_url}/1", headers=bearer(token0)), 403, "bad-token")
    assert_problem(client.get(f"{seats_url}/0", headers=bearer("forged")), 403)


def test_409_seat_taken_and_409_replay_before_the_end(client):
    table = open_table(client, ["open", "random", "random", "random"])
    join(client, table["table_id"], 0)
    assert_problem(client.post(f"/api/tables/{table['table_id']}/seats/0/join"), 409, "seat-taken")
    assert_problem(client.post(f"/api/tables/{table['table_id']}/seats/1/join"), 409, "seat-not-open")
    assert_problem(client.get(f"/api/tables/{table['table_id']}/replay"), 409, "game-not-over")


def test_429_with_retry_after(make_app):
    client = make_app(LIMIT_TABLE_CREATION="2/minute").test_client()
    for _ in range(2):
        open_table(client, ["random"] * 4)
    response = client.post("/api/tables", json={"game": "spot-hearts", "seats": ["random"] * 4})
    assert_problem(response, 429, "rate-limited")  # the same problem type as every other 429
    assert int(response.headers["Retry-After"]) > 0


def test_500_hides_the_exception(make_app):
    app = make_app()

    def explode():
        raise RuntimeError("secret internal detail /etc/passwd")

    app.add_url_rule("/api/explode", "explode", explode)
    response = app.test_client().get("/api/explode")
    assert_problem(response, 500)
    assert "secret internal detail" not in response.get_data(as_text=True)
    assert "RuntimeError" not in response.get_data(as_text=True)


def test_429_on_a_seat_hammered_at_one_version_with_retry_after(make_app):
    client = make_app(LIMIT_SEAT_POSTS=3).test_client()
    table = open_table(client, ["open"] * 4)
    tokens = [join(client, table["table_id"], seat) for seat in range(4)]
    url = f"/api/tables/{table['table_id']}/seats/0/moves"
    bad_move = {"move": "ZZ", "expected_version": 0}
    statuses = [client.post(url, headers=bearer(tokens[0]), json=bad_move).status_code for _ in range(3)]
    assert statuses == [400, 400, 400]  # refused moves count too: the limit is on posts
    response = client.post(url, headers=bearer(tokens[0]), json=bad_move)
    body = assert_problem(response, 429, "rate-limited")
    assert 0 < int(response.headers["Retry-After"]) <= 60
    assert "3 move posts on seat 0" in body["detail"]
    # Posts with a wrong token are refused (403) and never use up the seat holder's budget ...
    other = f"/api/tables/{table['table_id']}/seats/1/moves"
    for _ in range(3):
        assert_problem(client.post(other, headers=bearer(tokens[0]), json=bad_move), 403)
    assert client.post(other, headers=bearer(tokens[1]), json=bad_move).status_code == 400
    # ... and once the table moves on (another seat's pass here), seat 0 has a fresh budget.
    hand = client.get(f"/api/tables/{table['table_id']}/seats/1", headers=bearer(tokens[1])).get_json()
    decision = hand["view"]["decision"]
    moved = client.post(other, headers=bearer(tokens[1]),
                        json={"move": decision["legal"][: decision["count"]], "expected_version": 0})
    assert moved.status_code == 200, moved.get_json()
    assert client.post(url, headers=bearer(tokens[0]), json=bad_move).status_code == 400  # answered, not 429


def test_a_move_without_a_token_is_401_before_its_body_is_read(client):
    table = open_table(client, ["open", "random", "random", "random"])
    token = join(client, table["table_id"], 0)
    url = f"/api/tables/{table['table_id']}/seats/0/moves"
    response = client.post(url, json={"move": 7})  # no Authorization, and a body of the wrong shape
    assert_problem(response, 401, "token-required")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert_problem(client.post(url, headers=bearer(token), json={"move": 7}), 422)  # with it: the body


def test_a_move_body_is_read_whole_or_refused_with_a_problem(make_app):
    """A move's body (api/fastargs.py): read at its declared length, over the cap 413, not JSON 415,
    malformed 400, JSON with a charset parameter fine; every refusal a problem, and the table unmoved."""
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    table = open_table(client, ["open", "random", "random", "random"])
    token = join(client, table["table_id"], 0)
    url = f"/api/tables/{table['table_id']}/seats/0/moves"
    legal = client.get(f"/api/tables/{table['table_id']}/seats/0", headers=bearer(token)).get_json()
    move = {"move": legal["view"]["legal"][:3], "expected_version": 0}
    assert_problem(client.post(url, headers=bearer(token), json={**move, "pad": "x" * 2000}), 413)
    assert_problem(client.post(url, headers=bearer(token), data="move=2C", content_type="text/plain"), 415)
    cut_short = '{"move": "2C",'
    malformed = client.post(url, headers=bearer(token), data=cut_short, content_type="application/json")
    assert_problem(malformed, 400)
    assert client.get(f"/api/tables/{table['table_id']}").get_json()["version"] == 0
    moved = client.post(url, headers=bearer(token), data=json.dumps(move),
                        content_type="application/json; charset=utf-8")
    assert moved.status_code == 200 and moved.get_json()["version"] == 1

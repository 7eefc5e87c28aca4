"""Move limits never turn compliant play into refusals: a fast client playing one decision at a time, on
many seats of many tables from one address, is never answered 429."""

from __future__ import annotations

from api_helpers import assert_problem, bearer, join, open_table

from core.settings import Settings


def play_all_seats_as_fast_as_possible(client, min_moves: int) -> tuple[int, list[int]]:
    """Play every seat of 4-seat Spot Hearts tables, each decision as soon as it opens, table after table
    (a game's length depends on its deal) until `min_moves` moves are made or a post is refused."""
    moves, refusals = 0, []
    while moves < min_moves and not refusals:
        table = open_table(client, ["open"] * 4, options={"target": 100})
        table_id = table["table_id"]
        tokens = [join(client, table_id, seat) for seat in range(4)]
        to_act = table["to_act"]
        while to_act:
            seat = to_act[0]
            auth = bearer(tokens[seat])
            state = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=auth).get_json()
            decision, legal = state["view"]["decision"], state["view"]["decision"]["legal"]
            move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]
            answer = client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=auth,
                                 json={"move": move, "expected_version": state["version"]})
            if answer.status_code != 200:
                refusals.append(answer.status_code)
                break
            moves += 1
            to_act = answer.get_json()["to_act"]
    return moves, refusals


def test_a_fast_compliant_client_is_never_rate_limited_on_moves(make_app):
    """Production limits (no test overrides), except the per-seat limit cut to its floor of 1: a client that
    posts once per decision never meets even that, however many moves it makes from one address across
    tables and seats. A per-address move budget under ~650 per run would fail this test."""
    defaults = Settings.from_env().flask_config()
    limits = {key: defaults[key] for key in defaults if key.startswith(("LIMIT_", "RATELIMIT_"))}
    app = make_app(**{**limits, "LIMIT_SEAT_POSTS": 1})
    assert app.config["RATELIMIT_ENABLED"] is True
    moves, refusals = play_all_seats_as_fast_as_possible(app.test_client(), min_moves=650)
    assert refusals == []
    assert moves >= 650


def test_the_eleventh_post_at_one_version_is_refused_whatever_the_first_ten_were(make_app):
    """Production limit (10): malformed bodies, schema-invalid bodies and illegal moves all count, whether the
    store or the body check refused them, and the eleventh post is refused even though it is a legal move
    at the right version; the table does not move."""
    client = make_app(LIMIT_SEAT_POSTS=Settings.from_env().limit_seat_posts).test_client()
    table = open_table(client, ["open"] * 4)
    table_id = table["table_id"]
    token = join(client, table_id, 0)
    url = f"/api/tables/{table_id}/seats/0/moves"
    auth = bearer(token)
    legal = client.get(f"/api/tables/{table_id}/seats/0", headers=auth).get_json()["view"]["legal"][:3]
    statuses = [client.post(url, headers={**auth, "Content-Type": "application/json"},
                            data="{not json").status_code for _ in range(3)]
    statuses += [client.post(url, headers=auth, json={"move": 7}).status_code for _ in range(3)]
    statuses += [client.post(url, headers=auth, json={"move": ["ZZ"], "expected_version": 0}).status_code
                 for _ in range(4)]
    assert statuses == [400] * 3 + [422] * 3 + [400] * 4
    refused = client.post(url, headers=auth, json={"move": legal, "expected_version": 0})
    body = assert_problem(refused, 429, "rate-limited")
    assert "10 move posts on seat 0" in body["detail"]
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    state = client.get(f"/api/tables/{table_id}/seats/0", headers=auth).get_json()
    assert state["version"] == 0 and state["view"]["hand_sizes"] == [13, 13, 13, 13]


def test_the_seat_limit_follows_the_apps_config_as_it_is_now(make_app):
    from api.ratelimit import SEAT_WINDOW_S, seat_post_limit
    from core.tables.store import PostLimit

    app = make_app(LIMIT_SEAT_POSTS=4)
    with app.app_context():
        assert seat_post_limit() == PostLimit(4, SEAT_WINDOW_S)
        app.config["LIMIT_SEAT_POSTS"] = 2
        assert seat_post_limit() == PostLimit(2, SEAT_WINDOW_S)
        app.config["RATELIMIT_ENABLED"] = False
        assert seat_post_limit() is None

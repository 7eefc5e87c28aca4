"""Games, tables and seats through the Flask test client: contract, hidden information, OpenAPI."""

from __future__ import annotations

import json
import random
import re

from api_helpers import assert_problem, bearer, join, open_table

import engine


def _card_strings(value) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_card_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_card_strings(v) for v in value)) if value else set()
    return set()


def test_games_list_options_and_rules_summary(client):
    games = {game["id"]: game for game in client.get("/api/games").get_json()}
    assert set(games) == set(engine.GAMES)
    hearts = games["spot-hearts"]
    assert hearts["min_players"] == hearts["max_players"] == 4
    assert hearts["defaults"] == engine.GAMES["spot-hearts"].defaults
    assert hearts["summary"] and "target" in hearts["option_docs"]
    assert client.get("/api/games/sore-spot").get_json()["max_players"] == 6


def test_create_table_public_view_has_no_hands_and_no_seed(client):
    table = open_table(client, ["open", "heuristic", "random", "eps-0.5"])
    assert [seat["kind"] for seat in table["seats"]] == ["open", "house", "house", "house"]
    assert table["seed"] is None and table["seed_nonce"] is None
    assert "hand" not in table["view"] and "hands" not in table["view"]
    fetched = client.get(f"/api/tables/{table['table_id']}").get_json()
    assert fetched["seed_commitment"] == table["seed_commitment"]
    listed = client.get("/api/tables").get_json()
    assert table["table_id"] in [entry["table_id"] for entry in listed]


def test_players_must_match_seats(client):
    response = client.post("/api/tables", json={"game": "spot-hearts", "players": 4, "seats": ["open"] * 3})
    assert_problem(response, 422, "bad-seats")


def test_a_seat_never_sees_another_seats_cards_in_a_whole_game(client):
    """Four polling seats play a game to the end; after every move each seat's state is checked."""
    table = open_table(client, ["open"] * 4, options={"target": 1})
    table_id = table["table_id"]
    tokens = [join(client, table_id, seat) for seat in range(4)]
    rng = random.Random(7)
    while True:
        states = [client.get(f"/api/tables/{table_id}/seats/{seat}", headers=bearer(tokens[seat])).get_json()
                  for seat in range(4)]
        hands = [set(state["view"]["hand"]) for state in states]
        spectator = client.get(f"/api/tables/{table_id}").get_json()
        assert not _card_strings(spectator) & set().union(*hands), "spectators see no hand"
        for seat, state in enumerate(states):
            others = set().union(*(hands[other] for other in range(4) if other != seat))
            known = set(state["view"].get("passed", []))  # cards this seat passed on: it knows where they are
            leaked = _card_strings(state) & (others - known)
            assert not leaked, f"seat {seat} sees {leaked}"
        if states[0]["status"] == "over":
            break
        assert spectator["seed"] is None
        for seat in states[0]["to_act"]:
            view = states[seat]["view"]
            decision = view["decision"]
            move = rng.sample(view["legal"], decision["count"]) if decision["kind"] == "pass" \
                else rng.choice(view["legal"])
            response = client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=bearer(tokens[seat]),
                                   json={"move": move, "expected_version": states[seat]["version"]})
            assert response.status_code == 200, response.get_json()
    final = client.get(f"/api/tables/{table_id}").get_json()
    assert final["status"] == "over" and final["seed"] is not None
    record = client.get(f"/api/tables/{table_id}/replay").get_json()
    assert engine.replay_summary(record)["totals"] == final["view"]["scores"]
    # The schema passes the engine's record through whole (nothing dropped), plus the opened commitment.
    replayed = engine.load(record)
    opened = {"seed_commitment": final["seed_commitment"], "seed_nonce": final["seed_nonce"]}
    assert {**replayed.record(), **opened} == record


def test_illegal_move_is_422_with_legal_moves_and_changes_nothing(client):
    table = open_table(client, ["open"] * 4)
    table_id = table["table_id"]
    tokens = [join(client, table_id, seat) for seat in range(4)]
    for seat in range(4):
        state = client.get(f"/api/tables/{table_id}/seats/{seat}", headers=bearer(tokens[seat])).get_json()
        view = state["view"]
        client.post(f"/api/tables/{table_id}/seats/{seat}/moves", headers=bearer(tokens[seat]),
                    json={"move": view["legal"][:3], "expected_version": 0})
    leader = client.get(f"/api/tables/{table_id}").get_json()["to_act"][0]
    state = client.get(f"/api/tables/{table_id}/seats/{leader}", headers=bearer(tokens[leader])).get_json()
    wrong = next(card for card in state["view"]["hand"] if card not in state["view"]["legal"])
    response = client.post(f"/api/tables/{table_id}/seats/{leader}/moves", headers=bearer(tokens[leader]),
                           json={"move": wrong, "expected_version": state["version"]})
    body = assert_problem(response, 422, "illegal-move")
    assert body["legal"] == state["view"]["legal"] == ["2C"]
    after = client.get(f"/api/tables/{table_id}/seats/{leader}", headers=bearer(tokens[leader])).get_json()
    assert after == state
    # not your turn / stale version are 409
    other = (leader + 1) % 4
    response = client.post(f"/api/tables/{table_id}/seats/{other}/moves", headers=bearer(tokens[other]),
                           json={"move": "3C", "expected_version": state["version"]})
    assert_problem(response, 409, "not-your-turn")
    response = client.post(f"/api/tables/{table_id}/seats/{leader}/moves", headers=bearer(tokens[leader]),
                           json={"move": "2C", "expected_version": 0})
    assert_problem(response, 409, "stale-version")


def test_openapi_document_and_self_hosted_docs_page(client):
    spec = client.get("/api/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    paths = spec["paths"]
    for path in ("/api/games", "/api/tables", "/api/tables/{table_id}/seats/{seat}",
                 "/api/tables/{table_id}/seats/{seat}/moves", "/api/tables/{table_id}/seats/{seat}/join",
                 "/api/tables/{table_id}/replay", "/api/bots", "/api/bots/{bot_id}"):
        assert path in paths, path
    move_body = paths["/api/tables/{table_id}/seats/{seat}/moves"]["post"]["requestBody"]
    assert "MoveRequest" in json.dumps(move_body)
    assert {"Problem", "MoveRequest", "SeatState"} <= set(spec["components"]["schemas"])
    page = client.get("/api/docs").get_data(as_text=True)
    assert "/api/openapi.json" in page and "cdn" not in page.lower() and "https://" not in page
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        assert client.get(f"/api/docs/static/{asset}").status_code == 200


def test_seat_token_is_stored_only_as_its_hash(client, redis_conn, key_prefix):
    from core import keys
    from core.tokens import hash_token

    table = open_table(client, ["open", "random", "random", "random"])
    token = join(client, table["table_id"], 0)
    stored = redis_conn.hgetall(keys.table(key_prefix, table["table_id"]))
    assert stored["token:0"] == hash_token(token)
    assert all(token not in value for value in stored.values())
    assert token not in str(client.get(f"/api/tables/{table['table_id']}").get_json())


def test_seat_state_and_move_answers_are_exactly_what_their_schemas_dump(client):
    """Those two answers are built without a second pass through their schemas (api/jsonio.py): they must
    already be in the documented shape, field for field."""
    from api.schemas.seats import MoveResultSchema, SeatStateSchema

    table = open_table(client, ["open", "random", "random", "random"])
    token = join(client, table["table_id"], 0)
    state = client.get(f"/api/tables/{table['table_id']}/seats/0", headers=bearer(token))
    assert state.status_code == 200 and state.mimetype == "application/json"
    body = state.get_json()
    assert SeatStateSchema().validate(body) == {} and SeatStateSchema().dump(body) == body
    decision = body["view"]["decision"]
    moved = client.post(f"/api/tables/{table['table_id']}/seats/0/moves", headers=bearer(token),
                        json={"move": decision["legal"][: decision["count"]], "expected_version": 0})
    assert moved.status_code == 200 and moved.mimetype == "application/json"
    result = moved.get_json()
    assert MoveResultSchema().validate(result) == {} and MoveResultSchema().dump(result) == result
    assert result["version"] == 1 and result["status"] == "playing"


def test_a_read_after_a_move_sees_the_move_whichever_process_serves_it(make_app):
    """Each answer of a seat's state is read from Redis at the moment it is asked for: a move made through
    one app (process) shows in the very next read through another, and no token but the seat's own gets
    the view, even right after the seat's own token read it."""
    mover, reader = make_app().test_client(), make_app().test_client()
    table_id = open_table(mover, ["open"] * 4)["table_id"]
    tokens = [join(mover, table_id, seat) for seat in range(4)]
    path = f"/api/tables/{table_id}/seats/0"
    before = reader.get(path, headers=bearer(tokens[0])).get_json()
    passed = before["view"]["legal"][:3]
    moved = mover.post(f"{path}/moves", headers=bearer(tokens[0]),
                       json={"move": passed, "expected_version": 0})
    assert moved.status_code == 200
    after = reader.get(path, headers=bearer(tokens[0])).get_json()
    assert (before["version"], after["version"]) == (0, 1)
    assert after["view"]["chosen"] == passed and "chosen" not in before["view"]
    for wrong in (tokens[1], tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B")):
        assert_problem(reader.get(path, headers=bearer(wrong)), 403, "bad-token")
    assert_problem(reader.get(path), 401, "token-required")


def test_a_table_of_a_dealing_version_this_service_does_not_deal_is_a_clear_problem(client, redis_conn,
                                                                                    key_prefix):
    from core import keys

    table = open_table(client, ["open", "heuristic", "heuristic", "heuristic"])
    redis_conn.hset(keys.table(key_prefix, table["table_id"]), "dealing", 3)
    body = assert_problem(client.get(f"/api/tables/{table['table_id']}"), 409, "unknown-dealing")
    assert "dealing version 3" in body["detail"] and "deals version 2 only" in body["detail"]
    assert_problem(client.post(f"/api/tables/{table['table_id']}/seats/0/join"), 409, "unknown-dealing")


# Names at the edges of the house bots' families (engine.bots.names), and names just outside them.
HOUSE_NAME_CASES = ["random", "heuristic", "search", "search-1", "search-7", "search-999", "eps-0",
                    "eps-0.35", "eps-1", "eps-1.00", "search-0", "search-1000", "search-07", "eps-2",
                    "eps-0.", "eps-1.5", "Search-5", "search-5 ", "search-\u0665", "house", "nobody"]


def _ladder_takes(name: str) -> bool:
    from core.arena.model import LadderConfig

    try:
        LadderConfig("names", "spot-hearts", 4, house_bots=(name,))
    except ValueError:
        return False
    return True


def _engine_plays(name: str) -> bool:
    from engine.bots import make_bot

    try:
        make_bot(name)
    except ValueError:
        return False
    return True


def test_a_ladder_and_a_table_seat_take_exactly_the_same_house_bot_names(client):
    seat_pattern = client.get("/api/openapi.json").get_json()["components"]["schemas"]["TableCreate"][
        "properties"]["seats"]["items"]["pattern"]
    accepted = set()
    for name in HOUSE_NAME_CASES:
        response = client.post("/api/tables", json={"game": "spot-hearts", "seats": [name, *["open"] * 3]})
        table_takes = response.status_code == 201
        if not table_takes:
            assert_problem(response, 422, "bad-seats")
        assert _ladder_takes(name) == table_takes == _engine_plays(name), name
        assert (re.fullmatch(seat_pattern, name) is not None) == table_takes, name  # the document is truthful
        if table_takes:
            accepted.add(name)
    assert accepted == {"random", "heuristic", "search", "search-1", "search-7", "search-999", "eps-0",
                        "eps-0.35", "eps-1", "eps-1.00"}


def test_the_openapi_document_describes_the_seat_kinds_with_their_families(client):
    seats = client.get("/api/openapi.json").get_json()["components"]["schemas"]["TableCreate"]["properties"][
        "seats"]
    assert "enum" not in seats["items"]  # a family of names is no list of values
    for words in ("'open'", "random", "heuristic", "search-MS", "eps-X", "search-5", "eps-0.2"):
        assert words in seats["description"], words

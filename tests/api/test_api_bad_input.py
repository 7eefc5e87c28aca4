"""Every list endpoint and page, asked with huge, negative and non-numeric query values, answers the house's
error (problem+json on the API, the site's page on a page) and never a 500."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.jobs import play_match
from core.arena.model import LadderConfig, Member
from core.arena.store import ArenaStore
from tests.scenarios import match_spec

HOUSE = ("heuristic", "random", "eps-0.5", "eps-0.9")
PAGES = ("/ladders/ss", "/ladders/ss/bots/house:heuristic")
# What a client may send where a number is wanted: huge, negative, fractional, not a number at all.
EDGES = ["9223372036854775807", "9223372036854775808", "-1", "1e3", "0x10", "", " ", "NaN", "inf", "1.5", "٣"]
VALUES = st.one_of(st.integers(min_value=-(10**30), max_value=10**30).map(str), st.sampled_from(EDGES),
                   st.text(max_size=12))


@pytest.fixture(scope="module")
def world(redis_url: str, session_prefix: str) -> Iterator[dict[str, Any]]:
    """A ladder with a rated match, a table and a registered bot: every id a route names exists."""
    from api import create_app

    prefix = f"{session_prefix}bad-input:"
    app = create_app({"TESTING": True, "REDIS_URL": redis_url, "KEY_PREFIX": prefix,
                      "RATELIMIT_ENABLED": False})
    client = app.test_client()
    store = ArenaStore(redis.Redis.from_url(redis_url), prefix)
    store.save_ladder(LadderConfig("ss", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE))
    store.create_match(match_spec("m1", [Member.house(n) for n in HOUSE], seed=3))
    play_match(store, "m1", worker="bad-input")
    bot = client.post("/api/bots", json={"name": "bad-input", "games": ["sore-spot"]}).get_json()
    table = client.post("/api/tables", json={"game": "sore-spot", "seats": ["open"] * 4}).get_json()
    ids = {"ladder_id": "ss", "bot_id": bot["bot_id"], "match_id": "m1", "game_no": "0", "seat": "0",
           "table_id": table["table_id"], "game_id": "sore-spot", "challenge_id": "m1"}
    paths = client.get("/api/openapi.json").get_json()["paths"]
    queries = sorted({(re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path), parameter["name"])
                      for path, operations in paths.items() if "get" in operations
                      for parameter in operations["get"].get("parameters", []) if parameter["in"] == "query"})
    queries += [(page, name) for page in PAGES for name in ("offset", "cursor")]
    yield {"client": client, "queries": queries, "token": bot["owner_token"], "bot_id": bot["bot_id"]}


def test_every_query_parameter_of_every_list_is_covered(world) -> None:
    names = {name for _, name in world["queries"]}
    assert {"offset", "limit", "cursor", "after", "wait"} <= names and len(world["queries"]) >= 25


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(min_value=0), value=VALUES)
def test_a_bad_query_value_gets_the_house_error_never_a_500(world, index: int, value: str) -> None:
    path, name = world["queries"][index % len(world["queries"])]
    response = world["client"].get(path, query_string={name: value},
                                   headers={"Authorization": f"Bearer {world['token']}"})
    assert response.status_code < 500, (path, name, value, response.get_data(as_text=True)[:300])
    if response.status_code >= 400:
        wanted = "application/problem+json" if path.startswith("/api/") else "text/html"
        assert response.mimetype == wanted, (path, name, value, response.mimetype)


@pytest.mark.parametrize("path", ["/matches/m1/games/-1", "/matches/m1/games/abc", "/no-such-page",
                                  "/ladders/ss/bots/nobody", "/ladders/ss?offset=-1",
                                  "/ladders/ss?offset=99999999999999999999999"])
def test_a_page_that_cannot_be_shown_is_the_sites_own_error_page(world, path: str) -> None:
    response = world["client"].get(path)
    assert 400 <= response.status_code < 500 and response.mimetype == "text/html"
    assert "Back to the ladders" in response.get_data(as_text=True)


def test_a_malformed_json_body_is_the_same_400_everywhere_saying_where_it_broke(world) -> None:
    client = world["client"]
    table = client.post("/api/tables", json={"game": "sore-spot", "seats": ["open"] * 4}).get_json()
    token = client.post(f"/api/tables/{table['table_id']}/seats/0/join").get_json()["token"]
    paths = (f"/api/tables/{table['table_id']}/seats/0/moves", "/api/bots", "/api/tables", "/api/challenges",
             f"/api/bots/{world['bot_id']}")
    # Cut short, and bytes that are not UTF-8 at all (once taken for an empty body: a PATCH of no change).
    for path, data in [(p, d) for p in paths for d in (b'{"move": "QS", ', b"\xff=\xfe\x9cMq")]:
        method = "PATCH" if path.startswith("/api/bots/") else "POST"
        answer = client.open(path, method=method, data=data,
                             headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
        body = answer.get_json()
        assert answer.status_code == 400 and answer.mimetype == "application/problem+json", (path, data, body)
        assert body["detail"].startswith("the request body is not valid JSON: "), (path, body)
        assert "column" in body["detail"]


def test_one_slug_for_one_kind_of_error(world) -> None:
    client = world["client"]
    table = client.post("/api/tables", json={"game": "chess", "seats": ["open"] * 4})
    bot = client.post("/api/bots", json={"name": "chess-bot", "games": ["chess"]})
    assert table.status_code == bot.status_code == 422
    assert table.get_json()["type"] == bot.get_json()["type"] == "/problems/unknown-game"
    opened = client.post("/api/tables", json={"game": "sore-spot", "seats": ["open"] * 4}).get_json()
    token = client.post(f"/api/tables/{opened['table_id']}/seats/0/join").get_json()["token"]
    ahead = client.post(f"/api/tables/{opened['table_id']}/seats/0/moves",
                        json={"move": "QS", "expected_version": 999},
                        headers={"Authorization": f"Bearer {token}"}).get_json()
    assert ahead["type"] == "/problems/stale-version" and "999 is ahead of the table" in ahead["detail"]

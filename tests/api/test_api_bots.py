"""Bot registry: records, owner tokens (hashed, constant-time), URL safety."""

from __future__ import annotations

from api_helpers import assert_problem, bearer

from core import keys
from core.tokens import hash_token


def _register(client, name="deep-trick", games=("spot-hearts",), url="http://127.0.0.1:9001/bot"):
    response = client.post("/api/bots", json={"name": name, "games": list(games), "url": url})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_register_list_detail(client, redis_conn, key_prefix):
    bot = _register(client)
    assert bot["enabled"] and bot["games"] == ["spot-hearts"] and bot["owner_token"]
    stored = redis_conn.hgetall(keys.bot(key_prefix, bot["bot_id"]))
    assert stored["owner_hash"] == hash_token(bot["owner_token"])
    assert bot["owner_token"] not in stored.values(), "the token itself is never stored"
    detail = client.get(f"/api/bots/{bot['bot_id']}").get_json()
    assert "owner_token" not in detail and detail["name"] == "deep-trick"
    _register(client, name="commons-only", games=["card-commons"], url=None)
    assert [b["name"] for b in client.get("/api/bots").get_json()] == ["deep-trick", "commons-only"]
    assert [b["name"] for b in client.get("/api/bots?game=card-commons").get_json()] == ["commons-only"]


def test_update_disable_and_delete_need_the_owner_token(client):
    bot = _register(client)
    url = f"/api/bots/{bot['bot_id']}"
    assert_problem(client.patch(url, json={"enabled": False}), 401, "token-required")
    assert_problem(client.patch(url, json={"enabled": False}, headers=bearer("nope")), 403, "bad-token")
    other = _register(client, name="other")
    assert_problem(client.delete(url, headers=bearer(other["owner_token"])), 403)
    response = client.patch(url, json={"enabled": False, "games": ["spot-hearts", "sore-spot"]},
                            headers=bearer(bot["owner_token"]))
    assert response.status_code == 200
    assert response.get_json()["enabled"] is False
    assert response.get_json()["games"] == ["sore-spot", "spot-hearts"]
    assert client.delete(url, headers=bearer(bot["owner_token"])).status_code == 204
    assert_problem(client.get(url), 404, "bot-not-found")
    _register(client)  # the name is free again


def test_duplicate_name_and_unknown_game_and_bad_name(client):
    _register(client, name="Twin")
    twin = {"name": "twin", "games": ["spot-hearts"]}
    assert_problem(client.post("/api/bots", json=twin), 409, "bot-name-taken")
    assert_problem(client.post("/api/bots", json={"name": "x2", "games": ["chess"]}), 422, "unknown-game")
    assert_problem(client.post("/api/bots", json={"name": "no spaces", "games": ["spot-hearts"]}), 422)


def test_house_names_and_look_alikes_are_refused_and_create_nothing(client, redis_conn, key_prefix):
    for name, house in (("heuristic", "heuristic"), ("HeuristiC", "heuristic"), ("heur1stic", "heuristic"),
                        ("SEARCH-5", "search-5"), ("search-77", "search-<n>"), ("Search_5", "search-5"),
                        ("eps-0.2", "eps-0.2"), ("random", "random"), ("house-bot", "house:")):
        body = assert_problem(client.post("/api/bots", json={"name": name, "games": ["spot-hearts"]}), 409,
                              "bot-name-reserved")
        assert body["resembles"] == house and repr(house) in body["detail"]
    # Names outside ASCII (the Cyrillic look-alikes core.arena.names folds too) never get past the schema.
    assert_problem(client.post("/api/bots", json={"name": "\u0455earch-5", "games": ["spot-hearts"]}), 422,
                   "validation-failed")
    assert client.get("/api/bots").get_json() == []
    assert redis_conn.zcard(keys.bots_index(key_prefix)) == 0
    assert not redis_conn.keys(keys.bot_name(key_prefix, "*")), "no name was claimed"
    _register(client, name="heuristic-killer")  # a house name inside a longer one is an ordinary name


def test_the_registry_refuses_look_alikes_the_schema_would_not_let_through(redis_conn, key_prefix):
    import pytest

    from core.arena.registry import BotRegistry
    from core.errors import NameReserved

    registry = BotRegistry(redis_conn, key_prefix)
    with pytest.raises(NameReserved) as refused:
        registry.register("\u0455earch-5", ["spot-hearts"], None)  # Cyrillic ѕ
    assert refused.value.resembles == "search-5"
    assert registry.list() == []


def test_private_urls_refused_unless_the_operator_allows_them(make_app):
    client = make_app(ALLOW_PRIVATE_BOT_URLS=False).test_client()
    for url in ("http://127.0.0.1:8000/", "http://10.1.2.3/", "http://169.254.169.254/latest",
                "http://100.64.0.1/", "http://[::ffff:192.168.0.1]/", "http://224.0.0.1/", "ftp://example.com/"):
        body = assert_problem(client.post("/api/bots", json={"name": "sneaky", "games": ["spot-hearts"],
                                                             "url": url}), 422, "unsafe-bot-url")
        assert "url" in body["errors"]
    allowed = make_app(ALLOW_PRIVATE_BOT_URLS=True).test_client()
    assert allowed.post("/api/bots", json={"name": "local", "games": ["spot-hearts"],
                                           "url": "http://127.0.0.1:8000/"}).status_code == 201


def test_registration_is_rate_limited(make_app):
    client = make_app(LIMIT_REGISTRATION="3/minute").test_client()
    for index in range(3):
        _register(client, name=f"bot{index}")
    response = client.post("/api/bots", json={"name": "bot9", "games": ["spot-hearts"]})
    assert_problem(response, 429, "rate-limited")  # the same problem type as every other 429
    assert "Retry-After" in response.headers


def test_bots_per_address_are_capped_and_deleting_one_frees_a_place(make_app):
    client = make_app(MAX_BOTS_PER_ADDRESS=3).test_client()
    bots = [_register(client, name=f"b{i}", games=[game], url=None)
            for i, game in enumerate(("spot-hearts", "card-commons", "sore-spot"))]
    response = client.post("/api/bots", json={"name": "b3", "games": ["sloppy-seconds"]})
    body = assert_problem(response, 409, "bot-quota-exceeded")
    assert body["quota"] == "per_address" and body["limit"] == 3
    assert "3 bots registered without an account" in body["detail"] and "POST /api/accounts" in body["detail"]
    assert len(client.get("/api/bots").get_json()) == 3  # nothing was created
    gone = client.delete(f"/api/bots/{bots[0]['bot_id']}", headers=bearer(bots[0]["owner_token"]))
    assert gone.status_code == 204
    _register(client, name="b3", games=["sloppy-seconds"], url=None)


def test_bots_per_owner_per_ladder_are_capped_at_registration_and_on_update(make_app):
    client = make_app(MAX_BOTS_PER_OWNER_PER_LADDER=2).test_client()
    both = ["spot-hearts", "sore-spot"]
    h1, _h2 = (_register(client, name=name, games=both, url=None) for name in ("h1", "h2"))
    third = client.post("/api/bots", json={"name": "h3", "games": ["sore-spot", "spot-hearts"]})
    body = assert_problem(third, 409, "bot-quota-exceeded")
    assert body["quota"] == "per_owner_per_ladder" and body["game"] in {"sore-spot", "spot-hearts"}
    other = _register(client, name="c1", games=["card-commons"], url=None)  # another ladder: room
    url = f"/api/bots/{other['bot_id']}"
    wider = {"games": ["card-commons", "sore-spot"]}
    refused = client.patch(url, headers=bearer(other["owner_token"]), json=wider)
    assert assert_problem(refused, 409, "bot-quota-exceeded")["game"] == "sore-spot"
    assert client.get(url).get_json()["games"] == ["card-commons"]  # unchanged
    # Leaving a game frees its place: h1 drops sore-spot, and c1 may take it up.
    dropped = client.patch(f"/api/bots/{h1['bot_id']}", headers=bearer(h1["owner_token"]),
                           json={"games": ["spot-hearts"]})
    assert dropped.status_code == 200
    moved = client.patch(url, headers=bearer(other["owner_token"]), json=wider)
    assert moved.status_code == 200 and moved.get_json()["games"] == ["card-commons", "sore-spot"]


def test_concurrent_registrations_never_overshoot_the_cap(make_app):
    """Twenty registrations at once over real HTTP from one address: exactly the cap succeeds."""
    import concurrent.futures

    import requests

    from tests.conftest import serving

    with serving(make_app(MAX_BOTS_PER_ADDRESS=5)) as base:
        def register(index: int) -> int:
            return requests.post(f"{base}/api/bots", json={"name": f"rush{index}", "games": ["sore-spot"]},
                                 timeout=10).status_code

        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            statuses = sorted(pool.map(register, range(20)))
        assert statuses == [201] * 5 + [409] * 15
        assert len(requests.get(f"{base}/api/bots", timeout=5).json()) == 5

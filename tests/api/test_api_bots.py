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
    assert_problem(response, 429)
    assert "Retry-After" in response.headers

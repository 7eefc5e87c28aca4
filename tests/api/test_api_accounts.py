"""Accounts: one API key manages every bot of its account; keys shown once, stored hashed, rotated and
revoked at once; quotas per account claimed atomically; one account's key never touches another's bots."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import pytest
import requests
from api_helpers import assert_problem, bearer

from core import keys
from core.arena.accounts import AccountStore
from core.tokens import hash_token
from tests.conftest import serving


def open_account(client: Any) -> tuple[str, str]:
    response = client.post("/api/accounts")
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith("/api/account")
    return body["account_id"], body["api_key"]


def register(client: Any, key: str | None, name: str, games: tuple[str, ...] = ("spot-hearts",)) -> Any:
    return client.post("/api/bots", json={"name": name, "games": list(games)},
                       headers=bearer(key) if key else {})


def patch(client: Any, bot_id: str, token: str, **changes: Any) -> int:
    return client.patch(f"/api/bots/{bot_id}", headers=bearer(token), json=changes).status_code


def every_value(redis_conn: Any, key_prefix: str) -> str:
    """Everything stored under this test's prefix, keys and values, as one string."""
    parts = []
    for name in redis_conn.scan_iter(match=f"{key_prefix}*"):
        kind = redis_conn.type(name)
        parts.append(name)
        if kind == "string":
            parts.append(redis_conn.get(name))
        elif kind == "hash":
            parts.extend(f"{k}={v}" for k, v in redis_conn.hgetall(name).items())
        elif kind == "set":
            parts.extend(redis_conn.smembers(name))
        elif kind == "zset":
            parts.extend(redis_conn.zrange(name, 0, -1))
    return "\n".join(parts)


def test_an_account_key_registers_lists_changes_and_deletes_its_bots(make_app):
    client = make_app(MAX_BOTS_PER_ACCOUNT=7, MAX_BOTS_PER_OWNER_PER_LADDER=4).test_client()
    account_id, key = open_account(client)
    shown = client.get("/api/account", headers=bearer(key)).get_json()
    assert shown["account_id"] == account_id and shown["bots"] == 0 and not shown["disabled"]
    assert shown["quotas"] == {"bots": 7, "bots_per_ladder": 4} and shown["has_key"]
    assert "api_key" not in shown
    created = register(client, key, "acct-one")
    assert created.status_code == 201
    assert "owner_token" not in created.get_json(), "the account's key manages it: no owner token"
    bot_id = created.get_json()["bot_id"]
    assert register(client, key, "acct-two", ("sore-spot",)).status_code == 201
    listed = client.get("/api/account/bots", headers=bearer(key)).get_json()
    assert [bot["name"] for bot in listed] == ["acct-one", "acct-two"]
    assert client.get("/api/account", headers=bearer(key)).get_json()["bots"] == 2
    changed = client.patch(f"/api/bots/{bot_id}", headers=bearer(key), json={"enabled": False,
                                                                             "games": ["card-commons"]})
    assert changed.status_code == 200 and changed.get_json()["games"] == ["card-commons"]
    assert changed.get_json()["enabled"] is False
    assert client.delete(f"/api/bots/{bot_id}", headers=bearer(key)).status_code == 204
    assert [bot["name"] for bot in client.get("/api/account/bots", headers=bearer(key)).get_json()] == [
        "acct-two"]


def test_the_key_of_one_account_cannot_touch_another_accounts_bots(client, redis_conn, key_prefix):
    _a, key_a = open_account(client)
    _b, key_b = open_account(client)
    bot_id = register(client, key_b, "bees-bot").get_json()["bot_id"]
    before = redis_conn.hgetall(keys.bot(key_prefix, bot_id))
    url = f"/api/bots/{bot_id}"
    assert_problem(client.patch(url, headers=bearer(key_a), json={"enabled": False}), 403, "bad-token")
    assert_problem(client.delete(url, headers=bearer(key_a)), 403, "bad-token")
    assert_problem(client.get(f"{url}/ladder-seats", headers=bearer(key_a)), 403, "bad-token")
    adopt = f"/api/account/bots/{bot_id}/adopt"  # nor take it over: a bot in an account has no owner token
    for token in (key_b, key_a, hash_token(key_b)):
        taken = client.post(adopt, headers=bearer(key_a), json={"owner_token": token})
        assert_problem(taken, 403, "bad-token")
    assert_problem(client.post(adopt, headers=bearer(key_a), json={"owner_token": ""}), 422)
    assert redis_conn.hgetall(keys.bot(key_prefix, bot_id)) == before, "nothing changed"
    assert client.get("/api/account/bots", headers=bearer(key_a)).get_json() == []
    # Its own key can poll its ladder seats (a polling bot in an account needs no owner token).
    assert client.get(f"{url}/ladder-seats", headers=bearer(key_b)).status_code == 200


def test_missing_and_unknown_keys_are_refused(client):
    assert_problem(client.get("/api/account"), 401, "token-required")
    assert_problem(client.get("/api/account", headers=bearer("not-a-key")), 403, "bad-token")
    assert_problem(register(client, "not-a-key", "nobody"), 403, "bad-token")
    basic = client.post("/api/bots", json={"name": "basic", "games": ["spot-hearts"]},
                        headers={"Authorization": "Basic eDp5"})
    assert_problem(basic, 403, "bad-token")
    assert client.get("/api/bots").get_json() == [], "nothing was registered"


def test_a_rotated_key_stops_working_at_once_and_the_new_one_manages_the_bots(client):
    account_id, old = open_account(client)
    bot_id = register(client, old, "rotor").get_json()["bot_id"]
    rotated = client.post("/api/account/keys/rotate", headers=bearer(old))
    assert rotated.status_code == 200
    new = rotated.get_json()["api_key"]
    assert new != old and rotated.get_json()["account_id"] == account_id
    for response in (client.get("/api/account", headers=bearer(old)),
                     client.patch(f"/api/bots/{bot_id}", headers=bearer(old), json={"enabled": False}),
                     register(client, old, "rotor-two"),
                     client.post("/api/account/keys/rotate", headers=bearer(old))):
        assert_problem(response, 403, "bad-token")
    assert patch(client, bot_id, new, enabled=False) == 200
    assert client.get("/api/account", headers=bearer(new)).get_json()["bots"] == 1


def test_a_revoked_key_works_nowhere_until_the_operator_issues_one(make_app, redis_url, key_prefix):
    import redis

    client = make_app().test_client()
    account_id, key = open_account(client)
    bot_id = register(client, key, "revoked-bot").get_json()["bot_id"]
    assert client.delete("/api/account/key", headers=bearer(key)).status_code == 204
    assert_problem(client.get("/api/account", headers=bearer(key)), 403, "bad-token")
    assert_problem(client.delete(f"/api/bots/{bot_id}", headers=bearer(key)), 403, "bad-token")
    assert_problem(client.delete("/api/account/key", headers=bearer(key)), 403, "bad-token")
    assert client.get(f"/api/bots/{bot_id}").status_code == 200, "the bot stays"
    store = AccountStore(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    assert store.get(account_id)["has_key"] is False
    issued = store.issue_key(account_id)
    assert client.get("/api/account", headers=bearer(issued)).get_json()["bots"] == 1
    again = store.issue_key(account_id)  # a second issue replaces the first
    assert_problem(client.get("/api/account", headers=bearer(issued)), 403, "bad-token")
    assert client.get("/api/account/bots", headers=bearer(again)).get_json()[0]["bot_id"] == bot_id


def test_a_disabled_accounts_key_gets_a_clear_403(make_app, redis_url, key_prefix):
    import redis

    client = make_app().test_client()
    account_id, key = open_account(client)
    bot_id = register(client, key, "grounded").get_json()["bot_id"]
    store = AccountStore(redis.Redis.from_url(redis_url, decode_responses=True), key_prefix)
    assert store.bot_ids(account_id) == [bot_id]
    assert store.set_disabled(account_id, True)["disabled"] is True
    for response in (client.get("/api/account", headers=bearer(key)),
                     register(client, key, "grounded-two"),
                     client.patch(f"/api/bots/{bot_id}", headers=bearer(key), json={"enabled": False}),
                     client.post("/api/account/keys/rotate", headers=bearer(key))):
        body = assert_problem(response, 403, "account-disabled")
        assert account_id in body["detail"]
    assert client.get(f"/api/bots/{bot_id}").get_json()["enabled"] is True, "nothing changed"
    store.set_disabled(account_id, False)
    assert client.get("/api/account", headers=bearer(key)).status_code == 200


def test_the_key_is_shown_once_and_never_stored_or_answered_again(client, redis_conn, key_prefix):
    account_id, key = open_account(client)
    bot = register(client, key, "secretive")
    answers = [bot, client.get("/api/account", headers=bearer(key)),
               client.get("/api/account/bots", headers=bearer(key)),
               client.get(f"/api/bots/{bot.get_json()['bot_id']}"), client.get("/api/bots")]
    for answer in answers:
        assert key not in answer.get_data(as_text=True)
    stored = every_value(redis_conn, key_prefix)
    assert key not in stored and hash_token(key) in stored, "only the key's hash is in Redis"
    new = client.post("/api/account/keys/rotate", headers=bearer(key)).get_json()["api_key"]
    later = client.get("/api/account", headers=bearer(new)).get_data(as_text=True)
    assert new not in later and key not in later
    stored = every_value(redis_conn, key_prefix)
    assert new not in stored and hash_token(key) not in stored, "the old key's hash is gone"
    assert account_id in stored


def test_an_account_adopts_an_old_bot_by_its_owner_token_which_then_stops_working(make_app):
    client = make_app(MAX_BOTS_PER_ADDRESS=2).test_client()
    _account_id, key = open_account(client)
    old = register(client, None, "old-timer", ("sore-spot",)).get_json()
    bot_id, token = old["bot_id"], old["owner_token"]
    assert patch(client, bot_id, token, enabled=True) == 200
    adopt = f"/api/account/bots/{bot_id}/adopt"
    assert_problem(client.post(adopt, headers=bearer(key), json={"owner_token": "wrong"}), 403, "bad-token")
    assert_problem(client.post(adopt, json={"owner_token": token}), 401, "token-required")
    adopted = client.post(adopt, headers=bearer(key), json={"owner_token": token})
    assert adopted.status_code == 200 and adopted.get_json()["bot_id"] == bot_id
    assert_problem(client.patch(f"/api/bots/{bot_id}", headers=bearer(token), json={"enabled": False}), 403,
                   "bad-token")
    assert_problem(client.post(adopt, headers=bearer(key), json={"owner_token": token}), 403, "bad-token")
    listed = client.get("/api/account/bots", headers=bearer(key)).get_json()
    assert [bot["bot_id"] for bot in listed] == [bot_id]
    assert patch(client, bot_id, key, enabled=False) == 200
    # The address's places were freed: two more bots without an account fit under its cap of 2.
    assert [register(client, None, f"anon{i}").status_code for i in range(3)] == [201, 201, 409]


def test_adoption_respects_the_accounts_quotas(make_app):
    client = make_app(MAX_BOTS_PER_ACCOUNT=1).test_client()
    _account_id, key = open_account(client)
    assert register(client, key, "first").status_code == 201
    old = register(client, None, "second").get_json()
    refused = client.post(f"/api/account/bots/{old['bot_id']}/adopt", headers=bearer(key),
                          json={"owner_token": old["owner_token"]})
    assert assert_problem(refused, 409, "bot-quota-exceeded")["quota"] == "per_account"
    assert client.patch(f"/api/bots/{old['bot_id']}", headers=bearer(old["owner_token"]),
                        json={"enabled": False}).status_code == 200, "the owner token still works"


def test_account_quotas_count_per_account_not_per_address(make_app):
    app = make_app(MAX_BOTS_PER_ACCOUNT=3, MAX_BOTS_PER_OWNER_PER_LADDER=2, MAX_BOTS_PER_ADDRESS=1)
    client = app.test_client()
    _a, key_a = open_account(client)
    _b, key_b = open_account(client)
    assert [register(client, key_a, f"a{i}").status_code for i in range(2)] == [201, 201]
    ladder = assert_problem(register(client, key_a, "a2"), 409, "bot-quota-exceeded")
    assert ladder["quota"] == "per_owner_per_ladder" and ladder["game"] == "spot-hearts"
    assert register(client, key_a, "a3", ("sore-spot",)).status_code == 201
    total = assert_problem(register(client, key_a, "a4", ("card-commons",)), 409, "bot-quota-exceeded")
    assert total["quota"] == "per_account" and total["limit"] == 3
    # The same address: another account has its own places, and so do bots without an account.
    assert register(client, key_b, "b0").status_code == 201
    assert register(client, None, "anon").status_code == 201


def test_concurrent_registrations_with_one_key_never_overshoot_the_account_cap(make_app):
    app = make_app(MAX_BOTS_PER_ACCOUNT=4)
    _account_id, key = open_account(app.test_client())
    with serving(app) as base:
        def register_one(index: int) -> int:
            return requests.post(f"{base}/api/bots", json={"name": f"rush{index}", "games": ["sore-spot"]},
                                 headers=bearer(key), timeout=10).status_code

        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
            statuses = sorted(pool.map(register_one, range(16)))
        assert statuses == [201] * 4 + [409] * 12
        listed = requests.get(f"{base}/api/account/bots", headers=bearer(key), timeout=5).json()
        assert len(listed) == 4


def test_concurrent_rotations_leave_exactly_one_working_key(make_app):
    app = make_app()
    _account_id, key = open_account(app.test_client())
    with serving(app) as base:
        def rotate(_index: int) -> requests.Response:
            return requests.post(f"{base}/api/account/keys/rotate", headers=bearer(key), timeout=10)

        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(rotate, range(8)))
        winners = [answer.json()["api_key"] for answer in answers if answer.status_code == 200]
        assert len(winners) == 1 and sorted(a.status_code for a in answers) == [200] + [403] * 7
        assert requests.get(f"{base}/api/account", headers=bearer(winners[0]), timeout=5).status_code == 200


def test_account_creation_is_limited_per_client_address(make_app):
    app = make_app(LIMIT_ACCOUNT_CREATION="2/day")
    first = app.test_client()
    first.environ_base = {**first.environ_base, "REMOTE_ADDR": "198.51.100.7"}
    second = app.test_client()
    second.environ_base = {**second.environ_base, "REMOTE_ADDR": "203.0.113.9"}
    assert [first.post("/api/accounts").status_code for _ in range(2)] == [201, 201]
    refused = first.post("/api/accounts")
    body = assert_problem(refused, 429, "rate-limited")
    assert "api_key" not in body and int(refused.headers["Retry-After"]) >= 1
    assert second.post("/api/accounts").status_code == 201, "another address has its own bucket"


@pytest.mark.parametrize("path", ["/api/account", "/api/account/bots"])
def test_account_reads_need_the_key_in_the_authorization_header(client, path):
    _account_id, key = open_account(client)
    assert_problem(client.get(f"{path}?key={key}"), 401, "token-required")


def test_the_operator_issues_a_new_key_from_the_command_line(client, redis_url, key_prefix, monkeypatch):
    from click.testing import CliRunner

    from arena.__main__ import main

    account_id, key = open_account(client)
    assert client.delete("/api/account/key", headers=bearer(key)).status_code == 204
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("TA_KEY_PREFIX", key_prefix)
    result = CliRunner().invoke(main, ["issue-account-key", account_id])
    assert result.exit_code == 0, result.output
    issued = result.output.strip()
    assert client.get("/api/account", headers=bearer(issued)).get_json()["account_id"] == account_id
    unknown = CliRunner().invoke(main, ["issue-account-key", "no-such-account"])
    assert unknown.exit_code == 1 and "no account 'no-such-account'" in unknown.output
    assert "Traceback" not in unknown.output


def test_the_pure_parts_say_what_their_docstrings_say():
    import doctest

    import clients.cli.keyfile
    import core.arena.accounts

    for module in (core.arena.accounts, clients.cli.keyfile):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted >= 1, module.__name__


def test_concurrent_adoptions_never_overshoot_the_account_cap(make_app):
    app = make_app(MAX_BOTS_PER_ACCOUNT=3)
    client = app.test_client()
    _account_id, key = open_account(client)
    old = [register(client, None, f"stray{i}").get_json() for i in range(8)]
    with serving(app) as base:
        def adopt(bot: dict[str, Any]) -> int:
            return requests.post(f"{base}/api/account/bots/{bot['bot_id']}/adopt", headers=bearer(key),
                                 json={"owner_token": bot["owner_token"]}, timeout=10).status_code

        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            statuses = sorted(pool.map(adopt, old))
    assert statuses == [200] * 3 + [409] * 5
    assert client.get("/api/account", headers=bearer(key)).get_json()["bots"] == 3
    kept = [bot for bot in old if patch(client, bot["bot_id"], bot["owner_token"], enabled=True) == 200]
    assert len(kept) == 5, "the bots left out keep their owner tokens"

"""The per-client-address limits (registration, table creation, analysis requests) count only the limited
views, each client address in a bucket of its own, and are answered as every other 429."""

from __future__ import annotations

from typing import Any

from api_helpers import assert_problem, bearer, join, open_table

from core import keys

TABLE = {"game": "spot-hearts", "seats": ["open", "random", "random", "random"]}


def rate_limit_counts(redis_conn: Any, key_prefix: str) -> dict[str, str | None]:
    """Every key under the app's rate-limit prefix (the limits library's and the seat limit's), with its value
    where it is a counter."""
    prefix = keys.rate_limit_prefix(key_prefix)
    found = [*redis_conn.scan_iter(match=f"LIMITS:LIMITER/{prefix}*"),  # the library puts LIMITS: first
             *redis_conn.scan_iter(match=f"{prefix}*")]
    return {key: redis_conn.get(key) if redis_conn.type(key) == "string" else None for key in found}


def test_requests_to_unlimited_routes_touch_no_rate_limit_key(make_app, redis_conn, key_prefix):
    client = make_app(LIMIT_TABLE_CREATION="5/minute").test_client()
    table_id = open_table(client, TABLE["seats"])["table_id"]
    token = join(client, table_id, 0)
    before = rate_limit_counts(redis_conn, key_prefix)
    assert [value for value in before.values() if value == "1"], "the table creation was counted"
    for url, headers in [("/api/games", {}), (f"/api/tables/{table_id}", {}),
                         (f"/api/tables/{table_id}/seats/0", bearer(token)), ("/api/bots", {})]:
        for _ in range(3):
            assert client.get(url, headers=headers).status_code == 200, url
    assert rate_limit_counts(redis_conn, key_prefix) == before


def test_each_client_address_has_a_bucket_of_its_own(make_app):
    app = make_app(LIMIT_TABLE_CREATION="2/minute")
    first = app.test_client()
    first.environ_base = {**first.environ_base, "REMOTE_ADDR": "198.51.100.7"}
    second = app.test_client()
    second.environ_base = {**second.environ_base, "REMOTE_ADDR": "203.0.113.9"}
    assert [first.post("/api/tables", json=TABLE).status_code for _ in range(2)] == [201, 201]
    refused = first.post("/api/tables", json=TABLE)
    body = assert_problem(refused, 429, "rate-limited")
    assert body["title"] == "Too Many Requests"
    assert body["detail"] == "rate limit exceeded (2 per 1 minute); retry after the Retry-After delay"
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert [second.post("/api/tables", json=TABLE).status_code for _ in range(2)] == [201, 201]
    assert_problem(second.post("/api/tables", json=TABLE), 429, "rate-limited")


def test_the_limits_switched_off_count_nothing(make_app, redis_conn, key_prefix):
    client = make_app(LIMIT_TABLE_CREATION="1/minute", RATELIMIT_ENABLED=False).test_client()
    assert [client.post("/api/tables", json=TABLE).status_code for _ in range(3)] == [201] * 3
    assert rate_limit_counts(redis_conn, key_prefix) == {}

"""The benchmark's yardstick route is in the benchmark's app (tools/bench_app.py), not in the public API."""

from __future__ import annotations

from typing import Any

from tools import bench_app


def test_the_public_app_has_no_hello_route_nor_documents_one(client: Any) -> None:
    assert client.get("/api/hello").status_code == 404
    assert "/api/hello" not in client.get("/api/openapi.json").get_json()["paths"]


def test_the_benchmark_app_answers_hello_without_documenting_it(redis_url: str, key_prefix: str) -> None:
    app = bench_app.create_app({"TESTING": True, "REDIS_URL": redis_url, "KEY_PREFIX": key_prefix})
    client = app.test_client()
    answer = client.get("/api/hello")
    assert (answer.status_code, answer.get_json()) == (200, {"hello": "world"})
    assert "/api/hello" not in client.get("/api/openapi.json").get_json()["paths"]
    assert client.get("/api/health").status_code == 200  # the rest of the public app is there as it is

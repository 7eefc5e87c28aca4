"""problem+json at the API's edges, with a real gunicorn (api/gunicorn_conf.py) and a real nginx in front
(deploy/nginx/trick-arena.conf): a body nested too deep, a request line or a header too long. Each is refused
before any view runs, and still answered as every API error is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.api.test_api_nginx import client_from, find_nginx, nginx_in_front_of
from tests.conftest import gunicorn_serving

PROBLEM = "application/problem+json"
DEEP = "[" * 5000 + "]" * 5000  # 10 KB: within the body cap, nested far deeper than any parser should go
LONG_QUERY = "x=" + "a" * 20_000
LONG_HEADER = "b" * 10_000


@pytest.fixture(scope="module")
def gunicorn(redis_url: str, session_prefix: str) -> Iterator[str]:
    with gunicorn_serving(redis_url, f"{session_prefix}edges:", "gevent", 1) as base:
        yield base


def problem(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"] == PROBLEM
    body = answer.json()
    assert body["status"] == status and body["type"] == "about:blank" and body["detail"]
    return body


def test_a_body_nested_too_deep_is_a_bad_request(gunicorn) -> None:
    with httpx.Client(timeout=30) as client:
        for path in ("/api/bots", "/api/tables"):
            answer = client.post(f"{gunicorn}{path}", content=DEEP,
                                 headers={"Content-Type": "application/json"})
            assert "not valid JSON" in problem(answer, 400)["detail"]
        # The same parser for the hot endpoints: malformed there too is a 400 problem, never a 500.
        answer = client.post(f"{gunicorn}/api/tables/t/seats/0/moves", content=DEEP,
                             headers={"Content-Type": "application/json", "Authorization": "Bearer x"})
        assert answer.status_code in (400, 403, 404) and answer.headers["Content-Type"] == PROBLEM


def test_gunicorn_answers_a_long_request_line_or_header_in_problem_json(gunicorn) -> None:
    with httpx.Client(timeout=30) as client:
        assert "request line" in problem(client.get(f"{gunicorn}/api/games?{LONG_QUERY}"), 414)["detail"]
        assert "header" in problem(client.get(f"{gunicorn}/api/games", headers={"X-Big": LONG_HEADER}),
                                   431)["detail"]
        # Below the limits (over gunicorn's defaults of 4094 bytes for the line), the API answers as usual.
        assert client.get(f"{gunicorn}/api/games?{'x=' + 'a' * 6000}").status_code == 200
        assert client.get(f"{gunicorn}/api/games", headers={"X-Big": "b" * 7000}).status_code == 200
        assert client.get(f"{gunicorn}/api/games").status_code == 200  # the worker lives on


@pytest.mark.timeout(90)
def test_nginx_in_front_refuses_the_same_in_problem_json(gunicorn, tmp_path) -> None:
    find_nginx()
    with nginx_in_front_of(gunicorn.removeprefix("http://"), tmp_path) as proxy, \
            client_from("127.0.0.6", proxy["trust"]) as client:
        base = proxy["https"]
        assert "8 KiB" in problem(client.get(f"{base}/api/games?{LONG_QUERY}"), 414)["detail"]
        assert "8 KiB" in problem(client.get(f"{base}/api/games", headers={"X-Big": LONG_HEADER}),
                                  431)["detail"]
        answer = client.post(f"{base}/api/bots", content=DEEP, headers={"Content-Type": "application/json"})
        assert "not valid JSON" in problem(answer, 400)["detail"]
        assert client.get(f"{base}/api/games?{'x=' + 'a' * 6000}").status_code == 200


def test_every_resource_parses_bodies_with_the_apps_json_provider(app) -> None:
    """A blueprint made from flask-smorest's own class would parse bodies with `json.loads` again
    (RecursionError)."""
    import flask_smorest

    from api.arguments import Blueprint

    resources = [bp for bp in app.blueprints.values() if isinstance(bp, flask_smorest.Blueprint)]
    assert len(resources) >= 9
    assert all(isinstance(bp, Blueprint) for bp in resources), [bp.name for bp in resources]

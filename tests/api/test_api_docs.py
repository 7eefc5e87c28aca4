"""docs/api.md is the API as served: every route has a request and answer example that a live app answers
in the same shape, every problem type the code can raise is in the error table, and the OpenAPI document
labels each bearer endpoint with the token it takes."""

from __future__ import annotations

import re

from docexamples import (
    EXAMPLE_DOCS,
    OPERATOR_TOKEN,
    ROOT,
    Placeholders,
    World,
    examples,
    served_json,
    shape_differences,
)

from api import create_app
from api.problems import PROBLEMS, RATE_LIMITED_SLUG, VALIDATION_SLUG
from arena.botserver import BotServerConfig, serve_bot

ALL_EXAMPLES = [example for doc in EXAMPLE_DOCS for example in examples(doc)]


def openapi() -> dict:
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "TESTING": True})
    return app.test_client().get("/api/openapi.json").get_json()


def routes() -> set[tuple[str, str]]:
    return {(method.upper(), path) for path, operations in openapi()["paths"].items()
            for method in operations if method in {"get", "post", "put", "patch", "delete"}}


def route_of(method: str, path: str, known: set[tuple[str, str]]) -> tuple[str, str] | None:
    for route in known:
        pattern = "^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(route[1])) + "$"
        if route[0] == method and re.match(pattern, path):
            return route
    return None


def test_every_route_has_an_example_and_every_example_a_route() -> None:
    known = routes()
    covered = {route_of(e.method, e.route, known) for e in ALL_EXAMPLES}
    strays = [str(e) for e in ALL_EXAMPLES if route_of(e.method, e.route, known) is None]
    missing = sorted(f"{m} {p}" for m, p in known - covered)
    assert not missing and not strays, f"routes without an example: {missing}; examples of no route: {strays}"


def test_every_example_is_answered_in_its_documented_shape(make_app, redis_url: str, key_prefix: str) -> None:
    app = make_app(ADMIN_TOKEN=OPERATOR_TOKEN)
    bot = serve_bot(BotServerConfig(behaviour="good"))
    striker = serve_bot(BotServerConfig(behaviour="illegal"))
    try:
        world = World(app, redis_url, key_prefix, f"http://127.0.0.1:{bot.port}/",
                      f"http://127.0.0.1:{striker.port}/")
        failures = []
        for example in ALL_EXAMPLES:
            values = Placeholders(world)
            response = world.client.open(values.fill(example.target), method=example.method,
                                         headers={k: values.fill(v) for k, v in example.headers.items()},
                                         data=values.fill(example.body) if example.body else None)
            served = served_json(response)
            problems = []
            if response.status_code != example.status:
                problems.append(f"status {response.status_code}, documented {example.status}: {served}")
            documented_type, served_type = example.response_headers.get("Content-Type"), response.content_type
            if documented_type and served_type != documented_type:
                problems.append(f"Content-Type {served_type}, documented {documented_type}")
            if (example.response_body is None) != (served is None):
                problems.append(f"body {served!r}, documented {example.response_body!r}")
            else:
                problems += shape_differences(example.response_body, served)
            failures += [f"{example}: {problem}" for problem in problems]
        assert not failures, "\n".join(failures)
    finally:
        bot.stop()
        striker.stop()


def raisable_problem_types() -> set[str]:
    """Every problem type the code can answer: the one table's, and any slug a view raises by name."""
    slugs = {slug for _, _, slug, _ in PROBLEMS} | {VALIDATION_SLUG, RATE_LIMITED_SLUG}
    for path in (ROOT / "api").rglob("*.py"):
        slugs |= set(re.findall(r"ApiProblem\(\s*\d{3},\s*\"([a-z-]+)\"", path.read_text()))
    return slugs


def test_the_error_table_names_every_problem_type() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text[text.index("## Errors"):text.index("\n## ", text.index("## Errors") + 1)]
    rows = [line.split("|")[2] for line in table.splitlines()
            if line.startswith("| ") and "problems/" in line]
    documented = {slug for row in rows for slug in re.findall(r"`(?:/problems/)?([a-z][a-z-]+)`", row)}
    missing = sorted(raisable_problem_types() - documented)
    assert not missing, f"problem types missing from docs/api.md's error table: {missing}"
    assert {"ladder-required", "bot-not-on-ladder", "rejected-by-engine"} <= raisable_problem_types()


def test_each_bearer_endpoint_names_the_token_it_takes() -> None:
    spec = openapi()
    schemes = spec["components"]["securitySchemes"]
    assert {"seatToken", "ownerToken", "apiKey", "operatorToken"} <= schemes.keys()
    security = {(m.upper(), p): [next(iter(s), None) for s in op.get("security", [])]
                for p, ops in spec["paths"].items() for m, op in ops.items() if isinstance(op, dict)}
    assert security[("GET", "/api/tables/{table_id}/seats/{seat}")] == ["seatToken"]
    for route in [("PATCH", "/api/bots/{bot_id}"), ("DELETE", "/api/bots/{bot_id}"),
                  ("GET", "/api/bots/{bot_id}/ladder-seats")]:
        assert security[route] == ["ownerToken", "apiKey"], route
    seat_token_users = sorted(f"{m} {p}" for (m, p), names in security.items() if "seatToken" in names)
    assert all("/seats/" in route for route in seat_token_users), seat_token_users


def test_the_seat_docs_name_every_kind_of_house_bot() -> None:
    """A seat takes every house bot `engine/bots/names.py` makes: the docs that say what a seat takes list
    them all."""
    from engine.bots.names import FIXED_HOUSE_BOT_NAMES, HOUSE_BOT_FAMILIES

    for doc in ("docs/api.md", "docs/curl-walkthrough.md"):
        text = (ROOT / doc).read_text()
        families = [family.describe().split()[0] for family in HOUSE_BOT_FAMILIES]
        for name in [*FIXED_HOUSE_BOT_NAMES, *families]:
            assert f"`{name}`" in text, (doc, name)

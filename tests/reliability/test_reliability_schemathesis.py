"""Schemathesis against /api/openapi.json: every documented operation, every check, with real ids and every
kind of token (tests/reliability/fuzzing.py), so that each request reaches the logic behind its front door.

The fast tier runs a few examples per operation in-process and fails if any operation answered only
401/403/404/429 (a new route the fuzzer cannot reach fails it). The drills run the same over HTTP against
gunicorn at a few hundred examples per operation, and the stateful phase along the document's OpenAPI links.
The long run and its figures: docs/reliability.md ("Fuzzing").

    TA_SCHEMATHESIS_EXAMPLES=100 .venv/bin/python -m pytest -q -s -m drill \\
        tests/reliability/test_reliability_schemathesis.py
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import FlakyStrategyDefinition

from api.links import LINKS
from arena.botserver import BotServerConfig, serve_bot
from devstack import devserve
from devstack.devredis import free_port
from tests.api.docexamples import OPERATOR_TOKEN, World
from tests.conftest import REPO_ROOT
from tests.reliability.fuzzing import EXCEPTIONS, fuzz, in_order, load_schema, targets

FAST_EXAMPLES = 4
ROUND = 5  # stateful sequences per round
LONG_EXAMPLES = int(os.environ.get("TA_SCHEMATHESIS_EXAMPLES", 100))
# Limits high enough that the fuzzer's requests reach the logic (the limits have tests of their own); the
# long-poll ceiling short, so that a generated `wait=30` does not hold a case for 30 s. Each key is also its
# environment variable, with TA_ before it.
LIFTED: dict[str, Any] = {
    "ADMIN_TOKEN": OPERATOR_TOKEN, "LIMIT_ANALYSIS": "100000/minute", "MAX_PENDING_ANALYSES": 100000,
    "MAX_PENDING_ANALYSES_PER_CLIENT": 100000, "MAX_PENDING_CHALLENGES": 100000,
    "MAX_PENDING_CHALLENGES_PER_OWNER": 100000, "MAX_CHALLENGES_PER_OWNER_PER_DAY": 100000,
    "LIMIT_EXPORT": "100000/minute", "LIMIT_REGISTRATION": "100000/minute",
    "LIMIT_TABLE_CREATION": "100000/minute", "LIMIT_ACCOUNT_CREATION": "100000/minute",
    "LIMIT_SEAT_POSTS": 100000, "MAX_BOTS_PER_ADDRESS": 100000, "MAX_BOTS_PER_OWNER_PER_LADDER": 100000,
    "MAX_BOTS_PER_ACCOUNT": 100000}
FUZZ_CONFIG = {**LIFTED, "LONG_POLL_MAX_SECONDS": 0.05}
FUZZ_ENV = {**{f"TA_{key}": str(value) for key, value in LIFTED.items()}, "TA_LONG_POLL_MAX_S": "0.05",
            "ALLOW_PRIVATE_BOT_URLS": "true"}


@pytest.fixture
def fuzz_app(make_app: Any) -> Any:
    return make_app(**FUZZ_CONFIG)


@pytest.fixture
def world(fuzz_app: Any, redis_url: str, key_prefix: str) -> Iterator[World]:
    """The documented examples' world on this test's Redis and prefix, with an HTTP bot that answers well
    and one that answers illegal moves."""
    good = serve_bot(BotServerConfig(behaviour="good"))
    striker = serve_bot(BotServerConfig(behaviour="illegal"))
    try:
        yield World(fuzz_app, redis_url, key_prefix, f"http://127.0.0.1:{good.port}/",
                    f"http://127.0.0.1:{striker.port}/")
    finally:
        good.stop()
        striker.stop()


def test_every_operation_is_reached_past_its_front_door_and_passes_every_check(fuzz_app, world) -> None:
    schema = load_schema(fuzz_app)
    report = fuzz(schema, targets(world), lambda case: case.call(app=fuzz_app), FAST_EXAMPLES)
    assert not report.failures, "\n\n".join(f"{op}: {why}" for op, why in report.failures.items())
    assert report.server_errors() == 0
    assert report.summary()["not_reached"] == [], report.statuses  # each answered past 401/403/404/429
    assert report.summary()["operations"] >= 50


@pytest.fixture
def gunicorn(redis_url: str, key_prefix: str, tmp_path) -> Iterator[str]:
    """The API as deployed (gunicorn, gevent) on this test's Redis and prefix, with the fuzzing limits."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": redis_url, "TA_KEY_PREFIX": key_prefix,
           "TA_BIND": f"127.0.0.1:{port}", "TA_WORKERS": "2", **FUZZ_ENV}
    with (tmp_path / "gunicorn.log").open("w") as log:
        process = subprocess.Popen(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
        try:
            devserve.wait_healthy(f"http://127.0.0.1:{port}", process)
            yield f"http://127.0.0.1:{port}"
        finally:
            devserve.stop(process)


@pytest.mark.drill
@pytest.mark.timeout(1800)
def test_a_long_run_over_http_reaches_every_operation_with_no_server_error(fuzz_app, world, gunicorn) -> None:
    schema = load_schema(fuzz_app)
    reached = fuzz(schema, targets(world), lambda case: case.call(base_url=gunicorn), LONG_EXAMPLES)
    bare = fuzz(schema, None, lambda case: case.call(base_url=gunicorn), LONG_EXAMPLES)
    print(json.dumps({"examples_per_mode": LONG_EXAMPLES, "with_ids_and_tokens": reached.summary(),
                      "without": {**bare.summary(), "not_reached": len(bare.summary()["not_reached"])}}))
    assert not reached.failures, "\n\n".join(f"{op}: {why}" for op, why in reached.failures.items())
    assert reached.server_errors() == 0 and bare.server_errors() == 0
    assert reached.summary()["not_reached"] == [], reached.statuses


def stateful_run(schema: Any, app: Any, examples: int) -> dict[str, Any]:
    """The stateful phase along the document's links: how many sequences ran, how many steps, and how often
    each documented link was followed (a step whose parameters a link filled)."""
    followed: Counter[str] = Counter()
    counts = {"sequences": 0, "steps": 0, "rounds_cut_short": 0}

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            counts["sequences"] += 1

        def step(self, input: Any) -> Any:
            counts["steps"] += 1
            if input.transition is not None and input.applied_parameters and not input.transition.is_inferred:
                followed[input.transition.id.split(" -> ")[1].split("] ")[-1]] += 1  # the link's name
            return super().step(input)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"app": app}

    # In rounds of a few sequences, generation only. A sequence replayed to shrink it meets a store its first
    # run changed (a seat joined, a key rotated), and a link's precondition that held then may not now:
    # Hypothesis takes that for a flaky strategy and ends the round; the next round goes on. A failed check
    # still fails.
    for _ in range(max(1, examples // ROUND)):
        try:
            Machine.run(settings=settings(max_examples=ROUND, stateful_step_count=8, deadline=None,
                                          suppress_health_check=list(HealthCheck), database=None,
                                          phases=[Phase.generate]))
        except FlakyStrategyDefinition:
            counts["rounds_cut_short"] += 1
    return {**counts, "links_followed": sum(followed.values()), "links": dict(followed)}


def test_the_stateful_phase_follows_the_documented_links(fuzz_app: Any) -> None:
    run = stateful_run(load_schema(fuzz_app), fuzz_app, 2 * ROUND)
    assert run["links_followed"] > 0, run


@pytest.mark.drill
def test_a_long_stateful_run_follows_the_links_and_passes_every_check(fuzz_app: Any) -> None:
    run = stateful_run(load_schema(fuzz_app), fuzz_app, max(3, LONG_EXAMPLES // 2))
    print(json.dumps(run))
    documented = {link.name for link in LINKS}
    assert set(run["links"]) & documented, run


def test_each_allowed_refusal_is_a_documented_operation_that_declares_it(fuzz_app: Any) -> None:
    operations = {op.label: op for op in in_order(load_schema(fuzz_app))}
    assert set(EXCEPTIONS) <= set(operations), set(EXCEPTIONS) - set(operations)
    declared = {"POST /api/tables/{table_id}/seats/{seat}/moves": {"400", "409", "422"},
                "GET /api/bots/{bot_id}/matches": {"400"}, "POST /api/challenges": {"409", "422"},
                "POST /api/tables": {"422"}}
    for label, statuses in declared.items():
        responses = operations[label].definition.raw["responses"]
        assert statuses <= set(responses), (label, sorted(responses))
        assert all("/problems/" in responses[s].get("description", "") for s in statuses), label

"""Schemathesis against /api/openapi.json: every documented operation, every check.

Bounded for `make test` (a few examples per operation, in-process WSGI); the long run is documented in
docs/reliability.md:

    TA_SCHEMATHESIS_EXAMPLES=500 .venv/bin/python -m pytest -q -p no:logging \
        tests/reliability/test_reliability_schemathesis.py

Every built-in check runs (schemathesis 4 enables all of them when none are named): no 5xx, status codes,
content types and headers as documented, responses matching their schemas, negative data rejected, positive
data accepted, missing auth refused, no use after free. The stateful test chains operations through the
links schemathesis infers (e.g. the Location header of POST /api/tables).

The schema is read once at import from an app whose Redis is never contacted (the OpenAPI document needs
none); every request then goes to the test's own app on the session Redis (`app=` below).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from api import create_app

EXAMPLES = int(os.environ.get("TA_SCHEMATHESIS_EXAMPLES", 12))
HYPOTHESIS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                      derandomize=True)

# Documented exceptions: POST /api/tables and POST /api/challenges have cross-field rules no JSON schema
# can state (players equal to the number of seats or bots and within the game's range, options valid for that
# game, a challenge's games a multiple of its players when duplicate, each bot named once); a schema-valid
# body that breaks them is a 422 problem (bad-seats, bad-challenge, invalid-options), which
# positive_data_acceptance must allow. So does GET /api/bots/{bot_id}/export: its `cursor` is a token the
# export handed out (any other string is a 422 validation-failed), and `since` and `cursor` exclude each
# other.
CROSS_FIELD = {"positive_data_acceptance": {"expected-statuses": ["2xx", "401", "403", "404", "409", "422",
                                                                  "429"]}}
CONFIG = SchemathesisConfig.from_dict({"operations": [
    {"include-name": "POST /api/tables", "checks": CROSS_FIELD},
    {"include-name": "POST /api/challenges", "checks": CROSS_FIELD},
    {"include-name": "GET /api/bots/{bot_id}/export", "checks": CROSS_FIELD},
]})
schema = schemathesis.openapi.from_wsgi(
    "/api/openapi.json", create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "TESTING": True}), config=CONFIG)


@pytest.fixture
def target_app(make_app: Any) -> Any:
    return make_app()


@pytest.mark.drill
@schema.parametrize()
@HYPOTHESIS
def test_every_operation_passes_every_check(case: Any, target_app: Any) -> None:
    case.call_and_validate(app=target_app)


@pytest.mark.drill
def test_stateful_links_pass_every_check(target_app: Any) -> None:
    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"app": target_app}

    Machine.run(settings=settings(max_examples=max(3, EXAMPLES // 2), stateful_step_count=8, deadline=None,
                                  suppress_health_check=list(HealthCheck), derandomize=True))

"""The API's side of the metrics (core/metrics.py names them): a request counter and latency histogram fed by
two request hooks, the long-poll gauge, and ``GET /metrics`` for the operator's token.

Design: docs/metrics.md#access
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, Response, current_app, request

from api.services import services
from core import metrics
from core.arena.model import default_ladders
from core.errors import AdminForbidden, MetricsClosed, TokenRequired
from core.keys import arena_queue
from core.tokens import bearer_token, operator_token_matches

START_KEY = "trickarena.started"
_REQUESTS: dict[tuple[str, str, int], Any] = {}
_DURATIONS: dict[tuple[str, str], Any] = {}


def install(app: Flask) -> None:
    """Count every request of `app` and serve ``GET /metrics``. Installed before the app's other request
    hooks, so that a request they refuse is timed too."""
    app.before_request(_started)
    app.after_request(_answered)
    app.add_url_rule("/metrics", "metrics", _metrics, methods=["GET"])
    metrics.initialise(ladder.ladder_id for ladder in default_ladders())  # every family from the first scrape


def _started() -> None:
    request.environ[START_KEY] = time.perf_counter()


def _answered(response: Response) -> Response:
    started = request.environ.get(START_KEY)
    rule = request.url_rule
    route, method = metrics.http_route_method(rule.rule if rule is not None else None, request.method)
    status = response.status_code
    counter = _REQUESTS.get((route, method, status))
    if counter is None:
        counter = _REQUESTS[route, method, status] = metrics.HTTP_REQUESTS.labels(route, method, str(status))
    counter.inc()
    if started is not None:
        histogram = _DURATIONS.get((route, method))
        if histogram is None:
            histogram = _DURATIONS[route, method] = metrics.HTTP_DURATION.labels(route, method)
        histogram.observe(time.perf_counter() - started)
    return response


@contextmanager
def long_poll_held(view: str) -> Iterator[None]:
    """Count a long-poll as held while it waits (`view`: one of core.metrics.LONG_POLL_VIEWS)."""
    gauge = metrics.LONG_POLLS_HELD.labels(view)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def _metrics() -> Response:
    config = current_app.config
    expected = config.get("ADMIN_TOKEN")
    if config.get("METRICS_BIND"):
        raise MetricsClosed("metrics are not served on this address")
    if not expected:
        raise MetricsClosed("metrics are closed: no operator token is set")
    given = bearer_token(request.headers.get("Authorization"))
    if given is None:
        raise TokenRequired("operator", "metrics")
    if not operator_token_matches(given, expected):
        raise AdminForbidden()
    return Response(metrics.scrape([_queue_collector()]), mimetype=None,
                    content_type=metrics.CONTENT_TYPE)


def _queue_collector() -> metrics.QueueCollector:
    """One per app (its Redis connection and the three queues' keys), made at the first scrape."""
    extensions = current_app.extensions
    collector = extensions.get("trickarena.queues")
    if collector is None:
        config = current_app.config
        queues = {"arena": arena_queue(config["KEY_PREFIX"]), "house": config["RQ_QUEUE"],
                  "analysis": config["ANALYSIS_QUEUE"]}
        collector = extensions["trickarena.queues"] = metrics.QueueCollector(services().redis, queues)
    return collector

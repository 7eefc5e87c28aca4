"""The one error handler: everything a client can get wrong (or we can) becomes application/problem+json.

RFC 9457 body: {type, title, status, detail} plus `legal` for a refused move and `errors` for field
validation. Unexpected exceptions are logged server-side and answered with a generic 500: no stack trace,
no exception text ever reaches a client.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import redis
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from api.jsonio import not_json
from core.errors import (
    AccountDisabled,
    AccountNotFound,
    AdminClosed,
    AdminForbidden,
    AnalysisNotFound,
    AnalysisQueueFull,
    AnalysisShareExhausted,
    BadChallenge,
    BadSeats,
    BadToken,
    BadTournament,
    BotNotFound,
    BotNotOnLadder,
    ChallengeNotAccepted,
    ChallengeNotFound,
    ChallengeQueueFull,
    ChallengeQuotaExceeded,
    DecisionLogNotFound,
    DomainError,
    GameNotOver,
    LadderNotFound,
    LadderRequired,
    MatchExpired,
    MatchGameNotFound,
    MatchNotFound,
    MatchNotPublished,
    MatchNotVoidable,
    MetricsClosed,
    NameReserved,
    NameTaken,
    NotYourTurn,
    QuotaExceeded,
    RateLimited,
    ReplayExpired,
    RetryLater,
    SeatNotFound,
    SeatNotOpen,
    SeatTaken,
    StaleVersion,
    TableBusy,
    TableNotFound,
    TableOver,
    TokenRequired,
    TooManyMovePosts,
    TournamentClosed,
    TournamentNotFound,
    TournamentQuotaExceeded,
    UnknownDealing,
    UnknownGame,
    UnsafeURL,
)
from core.metrics import count_redis_error
from core.redis.failures import StoreFull, StoreUnavailable, store_error
from engine.errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    MalformedMoveError,
    NotYourTurnError,
    OptionsError,
)

PROBLEM_MEDIA_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "/problems/"

log = logging.getLogger(__name__)
# Every rate limit's 429 (moves, registration, table creation, analysis requests) has this one type: clients
# branch on one value. (A client's share of the analysis queue used up is analysis-share-exhausted.)
RATE_LIMITED_SLUG = "rate-limited"


class ApiProblem(Exception):
    """Raised by views for a client-facing error with its own problem type (the stores raise core.errors)."""

    def __init__(self, status: int, slug: str, detail: str, title: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.slug = slug
        self.detail = detail
        self.title = title or slug.replace("-", " ").capitalize()
        self.headers = headers or {}
        self.extra = extra


# The one table from errors to problem types, one row per type: error class (or classes) -> (status, problem
# slug, title or None for the slug capitalised). The engine's rule errors and the stores' domain errors; the
# most specific class comes first. A move out of turn or after the end is refused by the engine and by the
# table store, each with its own class (the store's is a MoveConflict with the table's version): one row.
PROBLEMS: list[tuple[type[Exception] | tuple[type[Exception], ...], int, str, str | None]] = [
    (MalformedMoveError, 400, "malformed-move", "Malformed move"),
    (IllegalMoveError, 422, "illegal-move", "Illegal move"),
    ((NotYourTurnError, NotYourTurn), 409, "not-your-turn", None),
    ((GameOverError, TableOver), 409, "game-over", None),
    (OptionsError, 422, "invalid-options", "Invalid game options"),
    (EngineError, 422, "rejected-by-engine", "Rejected by the rules engine"),
    (TableNotFound, 404, "table-not-found", None),
    (SeatNotFound, 404, "seat-not-found", None),
    (BotNotFound, 404, "bot-not-found", None),
    (AccountNotFound, 404, "account-not-found", None),
    (AnalysisNotFound, 404, "analysis-not-found", None),
    (LadderNotFound, 404, "ladder-not-found", None),
    (MatchNotFound, 404, "match-not-found", None),
    (MatchExpired, 410, "match-expired", None),
    (ReplayExpired, 410, "replay-expired", None),
    (MatchGameNotFound, 404, "game-not-found", None),
    (DecisionLogNotFound, 404, "decision-log-not-found", None),
    (ChallengeNotFound, 404, "challenge-not-found", None),
    (TournamentNotFound, 404, "tournament-not-found", None),
    (BotNotOnLadder, 404, "bot-not-on-ladder", None),
    (LadderRequired, 400, "ladder-required", None),
    (TokenRequired, 401, "token-required", None),
    (AccountDisabled, 403, "account-disabled", None),
    (BadToken, 403, "bad-token", None),
    (AdminClosed, 403, "admin-closed", "Admin API closed"),
    (AdminForbidden, 403, "not-operator", "Not the operator"),
    (MetricsClosed, 404, "metrics-closed", None),
    (BadSeats, 422, "bad-seats", None),
    (UnknownGame, 422, "unknown-game", None),
    (UnsafeURL, 422, "unsafe-bot-url", None),
    (BadChallenge, 422, "bad-challenge", None),
    (BadTournament, 422, "bad-tournament", None),
    (NameTaken, 409, "bot-name-taken", None),
    (NameReserved, 409, "bot-name-reserved", None),
    (QuotaExceeded, 409, "bot-quota-exceeded", "Bot quota exceeded"),
    (ChallengeNotAccepted, 409, "challenge-not-accepted", None),
    (TournamentClosed, 409, "tournament-closed", None),
    (SeatNotOpen, 409, "seat-not-open", None),
    (SeatTaken, 409, "seat-taken", None),
    (GameNotOver, 409, "game-not-over", None),
    (UnknownDealing, 409, "unknown-dealing", "Unknown dealing version"),
    (MatchNotPublished, 409, "match-not-finished", None),
    (MatchNotVoidable, 409, "match-not-voidable", None),
    (StaleVersion, 409, "stale-version", None),
    (TableBusy, 409, "busy", None),
    (AnalysisQueueFull, 503, "analysis-queue-full", "Service unavailable"),
    # Not a rate limit (requests over time) but a share of the queue: its own type, with the counts.
    (AnalysisShareExhausted, 429, "analysis-share-exhausted", "Too Many Requests"),
    (ChallengeQueueFull, 503, "challenge-queue-full", "Service unavailable"),
    (ChallengeQuotaExceeded, 429, "challenge-quota-exceeded", "Too Many Requests"),
    (TournamentQuotaExceeded, 429, "tournament-quota-exceeded", "Too Many Requests"),
    (StoreFull, 507, "store-full", "Insufficient storage"),
    (StoreUnavailable, 503, "store-unavailable", "Service unavailable"),
    # the per-seat move limit, and the per-address limits
    ((TooManyMovePosts, RateLimited), 429, RATE_LIMITED_SLUG, "Too Many Requests"),
]


def _problem_headers(error: Exception) -> dict[str, str]:
    if isinstance(error, TokenRequired):
        return {"WWW-Authenticate": f'Bearer realm="{error.realm}"'}
    if isinstance(error, RetryLater):
        return {"Retry-After": str(error.retry_after)}
    return {}


def problem_for(error: Exception) -> ApiProblem | None:
    """The problem an engine, domain or Redis error answers with; None for anything else."""
    if isinstance(error, redis.RedisError):
        count_redis_error("api", error)
        # Redis restarting, unreachable, out of memory or disk: temporary, say so (one log line, not a
        # traceback per request). Any other Redis error is a bug and stays a logged 500.
        refused = store_error(error)
        if refused is not None:
            log.warning("Redis refused or unavailable: %s", error)
            error = refused
    for cls, status, slug, title in PROBLEMS:
        if isinstance(error, cls):
            extra: dict[str, Any] = {}
            if isinstance(error, DomainError):
                extra = error.fields()
            elif isinstance(error, EngineError) and cls is not OptionsError:
                extra = {"legal": error.legal}
            return ApiProblem(status, slug, str(error), title, _problem_headers(error), **extra)
    return None

VALIDATION_SLUG = "validation-failed"
VALIDATION_DETAIL = "the request body or query string does not match the schema; see errors"


def validation_problem(errors: Any, detail: str = VALIDATION_DETAIL,
                       headers: dict[str, str] | None = None) -> ApiProblem:
    """The 422 of a request its schema refused: `errors` maps each field to its messages (messages about the
    whole body or query string, a list, go under ``_schema``)."""
    if not isinstance(errors, dict):
        errors = {"_schema": errors}
    return ApiProblem(422, VALIDATION_SLUG, detail, title="Validation failed", headers=headers, errors=errors)


def problem_response(status: int, slug: str | None, title: str, detail: str,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body: dict[str, Any] = {
        "type": f"{PROBLEM_TYPE_BASE}{slug}" if slug else "about:blank",
        "title": title,
        "status": status,
        "detail": detail,
    }
    body.update(extra)
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_MEDIA_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _flatten_messages(messages: Any) -> dict[str, Any]:
    # webargs nests messages by location ({"json": {"field": [...]}}); clients care about the fields.
    if isinstance(messages, dict) and len(messages) == 1:
        (location, inner), = messages.items()
        if location in {"json", "query", "querystring", "headers", "path", "view_args", "form"}:
            return inner if isinstance(inner, dict) else {"_schema": inner}
    return messages if isinstance(messages, dict) else {"_schema": messages}


def _http_problem(error: HTTPException) -> ApiProblem:
    status = error.code or 500
    headers = {name: value for name, value in error.get_headers() if name.lower() != "content-type"}
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") if isinstance(data, dict) else None
    if status == 422 and messages is not None:
        # Werkzeug's 422 from webargs/marshmallow carries the field messages in `.data["messages"]`.
        return validation_problem(_flatten_messages(messages), headers=headers)
    detail = error.description or HTTPStatus(status).description
    refused_json = getattr(error, "exc", None)
    if status == 400 and messages is not None and isinstance(refused_json, ValueError):
        # webargs' answer to a body its JSON parser refused: say what the parser said (e.g. nested too deep).
        detail = not_json(refused_json)
    allowed = getattr(error, "valid_methods", None)
    if status == 405 and allowed:
        detail = f"{detail} Allowed: {', '.join(sorted(allowed))}."
    return ApiProblem(status, "", detail, title=HTTPStatus(status).phrase, headers=headers)  # about:blank


def _answer(problem: ApiProblem) -> Response:
    return problem_response(problem.status, problem.slug, problem.title, problem.detail, problem.headers,
                            **problem.extra)


def problem_of(error: Exception) -> ApiProblem:
    """The problem an error is answered with (an unexpected one is logged and answered with a plain 500)."""
    problem = error if isinstance(error, ApiProblem) else problem_for(error)
    if problem is not None:
        return problem
    if isinstance(error, HTTPException):
        return _http_problem(error)
    log.exception("unhandled error", exc_info=error)
    return ApiProblem(500, "", "the server failed to handle this request; it has been logged",
                      title="Internal Server Error")


# Renders an error as the site's page: (status, title, detail) -> HTML.
PageRenderer = Callable[[int, str, str], str]


def is_page_path(path: str) -> bool:
    """Paths of the web pages, which answer errors as pages; the JSON API and /metrics answer problem+json.

    >>> is_page_path("/ladders/x"), is_page_path("/matches/m/games/-1"), is_page_path("/api/ladders")
    (True, True, False)
    """
    return not (path == "/api" or path.startswith("/api/") or path == "/metrics")


def register_error_handlers(app: Flask, page: PageRenderer | None = None) -> None:
    """The one error handler; with `page`, a web page's error (a route that does not exist, a bad query
    string, a failure) is answered as the site's page with the same status, title and detail."""

    def answer(error: Exception) -> Response:
        problem = problem_of(error)
        if page is None or not is_page_path(request.path):
            return _answer(problem)
        html = page(problem.status, problem.title, problem.detail)
        return Response(html, status=problem.status, headers=problem.headers, mimetype="text/html")

    # Registered after flask-smorest's Api so that ours replaces its HTTPException handler.
    app.register_error_handler(HTTPException, answer)
    app.register_error_handler(Exception, answer)


def refusals(blp: Any, **why: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare an operation's refusals of a schema-valid request, by problem slug (underscores for hyphens):
    each becomes a documented response of its status, naming its problem type and why it happens, so the
    contract says what the service enforces beyond the JSON schema.

    >>> status_of("ladder-required"), status_of("illegal-move")
    (400, 422)
    """
    by_status: dict[int, list[str]] = {}
    for key, reason in why.items():
        slug = key.replace("_", "-")
        by_status.setdefault(status_of(slug), []).append(f"`/problems/{slug}`: {reason}")

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        for status, lines in sorted(by_status.items()):
            view = blp.alt_response(status, description="; ".join(lines))(view)
        return view

    return decorate


def status_of(slug: str) -> int:
    """The HTTP status of a problem type."""
    for _errors, status, known, _title in PROBLEMS:
        if known == slug:
            return status
    raise KeyError(f"no problem type {slug!r}")

"""Game analysis: every decision one seat made in a finished game, valued from that seat's information.

``POST .../analysis?seat=N`` queues the analysis once (repeated requests join it); ``GET`` on the same URL
tells how it stands. State and results live in core.analysis; the job is arena.analysis.analyse_game.
Design: docs/api.md#analysis-of-a-finished-game
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import redis
from flask import current_app, url_for

from api.arguments import Blueprint
from api.ratelimit import client_address
from api.schemas.analysis import AnalysisQuerySchema, AnalysisStateSchema
from api.services import services
from core.analysis import AnalysisStatus, AnalysisSubject, RequestOutcome
from core.arena.lookup import published_games
from core.errors import AnalysisNotFound, AnalysisQueueFull, AnalysisShareExhausted, GameNotOver, SeatNotFound
from core.queues import enqueue_analysis

blp = Blueprint("analysis", __name__, url_prefix="/api",
                description="Analysis of a finished game: every legal move valued at each decision of a seat")

QUEUE_FULL_RETRY_AFTER_S = 30  # a seat's analysis takes well under a minute at the default budget
SHARE_RETRY_AFTER_S = 30  # the same wait: by then the owner's oldest analysis is usually done


def _budget(query: dict[str, Any]) -> int:
    return int(query.get("budget_ms") or current_app.config["ANALYSIS_BUDGET_MS"])


def _match_subject(match_id: str, game_no: int, query: dict[str, Any]) -> AnalysisSubject:
    return AnalysisSubject.for_match(match_id, game_no, query["seat"], _budget(query))


def _table_subject(table_id: str, query: dict[str, Any]) -> AnalysisSubject:
    return AnalysisSubject.for_table(table_id, query["seat"], _budget(query))


def _check_match(subject: AnalysisSubject) -> None:
    """Problems for a match game that cannot be analysed: 404 (match, game, seat) or 409 (not finished)."""
    match_id, game_no = subject.source_id, int(subject.game_no or 0)
    doc, _records = published_games(services().arena, match_id, game_no)
    players = int(doc["spec"]["players"])
    if subject.seat >= players:
        raise SeatNotFound(f"{match_id} game {game_no}", subject.seat, players, what="match")


def _check_table(subject: AnalysisSubject) -> None:
    """Problems for a table that cannot be analysed: 404 (table, seat) or 409 (still in play)."""
    table_id = subject.source_id
    record = services().tables.load_table(table_id)
    if subject.seat >= record.players:
        raise SeatNotFound(table_id, subject.seat, record.players)
    if not record.over:
        raise GameNotOver(f"table {table_id} is still in play: a seat's analysis lists its legal moves, i.e. "
                          "its hand, so it is available once the game is over")


def _url(subject: AnalysisSubject) -> str:
    if subject.source == "match":
        return url_for("analysis.get_match_analysis", match_id=subject.source_id, game_no=subject.game_no,
                       seat=subject.seat, budget_ms=subject.budget_ms)
    return url_for("analysis.get_table_analysis", table_id=subject.source_id, seat=subject.seat,
                   budget_ms=subject.budget_ms)


def _state(subject: AnalysisSubject, state: dict[str, Any]) -> dict[str, Any]:
    return {**state, "seat": subject.seat, "budget_ms": subject.budget_ms, "url": _url(subject)}


def _request(subject: AnalysisSubject, check: Callable[[AnalysisSubject], None]
             ) -> tuple[dict[str, Any], int, dict[str, str]]:
    check(subject)
    svc = services()
    # The owner is the address LIMIT_ANALYSIS counts (api/ratelimit.py): one identity for both limits.
    owner = client_address()
    outcome, _status = svc.analyses.request(subject, owner)
    if outcome is RequestOutcome.SHARE_EXHAUSTED:
        raise AnalysisShareExhausted(svc.analyses.pending_for(owner), svc.analyses.max_pending_per_owner,
                                     SHARE_RETRY_AFTER_S)
    if outcome is RequestOutcome.FULL:
        raise AnalysisQueueFull(svc.analyses.pending(), QUEUE_FULL_RETRY_AFTER_S)
    if outcome is RequestOutcome.NEW:
        try:
            enqueue_analysis(svc.analysis_queue, subject.key, current_app.config["KEY_PREFIX"])
        except Exception:
            with contextlib.suppress(redis.RedisError):  # else it waits out its queued TTL
                svc.analyses.fail(subject, "could not be queued (the data store refused); ask again")
            raise
    queued = {"status": AnalysisStatus.QUEUED.value, "progress": {"done": 0, "total": 0}}
    # NEW was just queued by the request itself: only an analysis that existed has a state worth reading.
    state = queued if outcome is RequestOutcome.NEW else svc.analyses.get(subject) or queued
    if state["status"] == AnalysisStatus.DONE.value:
        return _state(subject, state), 200, {}
    return _state(subject, state), 202, {"Location": _url(subject)}


def _get(subject: AnalysisSubject, check: Callable[[AnalysisSubject], None]) -> dict[str, Any]:
    # A stored state exists only for a subject its POST checked: a poll reads that one hash, and loads the
    # match's replays or the table only to say why there is nothing.
    state = services().analyses.get(subject)
    if state is None:
        check(subject)
        raise AnalysisNotFound()
    return _state(subject, state)


@blp.post("/matches/<match_id>/games/<int:game_no>/analysis")
@blp.arguments(AnalysisQuerySchema(), location="query")
@blp.response(202, AnalysisStateSchema, description="Queued (or running): poll the Location.")
@blp.alt_response(200, schema=AnalysisStateSchema, description="Done already: the result is in the body.")
def request_match_analysis(query: dict[str, Any], match_id: str, game_no: int) -> Any:
    """Analyse one seat of one game of a finished ladder match (queued once; limited per address)."""
    return _request(_match_subject(match_id, game_no, query), _check_match)


@blp.get("/matches/<match_id>/games/<int:game_no>/analysis")
@blp.arguments(AnalysisQuerySchema(), location="query")
@blp.response(200, AnalysisStateSchema)
def get_match_analysis(query: dict[str, Any], match_id: str, game_no: int) -> dict[str, Any]:
    """Status, progress and (once done) the result of a seat's analysis of a match game."""
    return _get(_match_subject(match_id, game_no, query), _check_match)


@blp.post("/tables/<table_id>/analysis")
@blp.arguments(AnalysisQuerySchema(), location="query")
@blp.response(202, AnalysisStateSchema, description="Queued (or running): poll the Location.")
@blp.alt_response(200, schema=AnalysisStateSchema, description="Done already: the result is in the body.")
def request_table_analysis(query: dict[str, Any], table_id: str) -> Any:
    """Analyse one seat of a finished API table (409 game-not-over while it is played)."""
    return _request(_table_subject(table_id, query), _check_table)


@blp.get("/tables/<table_id>/analysis")
@blp.arguments(AnalysisQuerySchema(), location="query")
@blp.response(200, AnalysisStateSchema)
def get_table_analysis(query: dict[str, Any], table_id: str) -> dict[str, Any]:
    """Status, progress and (once done) the result of a seat's analysis of a finished API table."""
    return _get(_table_subject(table_id, query), _check_table)

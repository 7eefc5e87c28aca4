"""RQ job: one seat's analysis of one finished game (``analyse_game(subject_key, prefix)``), a thin function
over ids. Any failure is recorded as ``failed`` with its reason: the worker never crashes.

Design: docs/arena.md#processes
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NotRequired, TypedDict

import redis
from rq import get_current_job

from arena import runtime
from arena.runtime import STOPPING
from core.analysis import AnalysisSubject

log = logging.getLogger(__name__)


class AnalysisOutcome(TypedDict):
    """What ``analyse_game`` returns (RQ keeps it a minute; the store keeps the analysis itself)."""

    analysis: str
    status: str  # "done" or "failed"
    reason: NotRequired[str]
    total_regret: NotRequired[float]


def analyse_game(subject_key: str, prefix: str) -> AnalysisOutcome:
    """RQ entry point (on the analysis queue, see core.queues.enqueue_analysis)."""
    job = get_current_job()
    if job is None:
        raise RuntimeError("analyse_game runs inside an RQ job (or call run_analysis with a connection)")
    return run_analysis(job.connection, prefix, AnalysisSubject.parse(subject_key))


class WorkerStopping(Exception):
    """The worker was told to stop (Ctrl-C, SIGTERM): the analysis ends after the current decision."""


def run_analysis(conn: redis.Redis, prefix: str, subject: AnalysisSubject,
                 stop_requested: Callable[[], bool] = STOPPING.is_set) -> AnalysisOutcome:
    """Analyse ``subject`` and store the outcome; returns a short summary (the job's RQ result)."""
    store = runtime.stores(conn, prefix).analyses

    def progress(done: int, total: int) -> None:
        store.progress(subject, done, total)
        if stop_requested():
            raise WorkerStopping("the analysis worker stopped before the end; ask for the analysis again")

    try:
        from engine.analysis import analyse

        record = load_record(conn, prefix, subject)
        result = analyse(record, subject.seat, subject.budget_ms, progress=progress)
    except Exception as exc:  # noqa: BLE001 - every failure is the analysis's, never the worker's
        reason = f"{type(exc).__name__}: {exc}"
        log.warning("analysis %s failed: %s", subject.key, reason)
        store.fail(subject, reason)
        return {"analysis": subject.key, "status": "failed", "reason": reason}
    store.finish(subject, result)
    return {"analysis": subject.key, "status": "done", "total_regret": result["total_regret"]}


def load_record(conn: redis.Redis, prefix: str, subject: AnalysisSubject) -> dict[str, Any]:
    """The finished game's replay record (the API checked it was published; it may have expired since)."""
    stores = runtime.stores(conn, prefix)
    if subject.source == "table":
        return stores.tables.replay_record(subject.source_id)
    records = stores.arena.match_games(subject.source_id) or []
    if subject.game_no is None or not 0 <= subject.game_no < len(records):
        raise LookupError(f"match {subject.source_id} has no published game {subject.game_no}")
    return records[subject.game_no]

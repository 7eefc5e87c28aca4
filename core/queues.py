"""Jobs the API hands to the arena's RQ workers, enqueued by dotted name (the API never imports the arena)."""

from __future__ import annotations

from rq import Queue, Retry

DRIVE_TABLE = "arena.house.drive_table"


def enqueue_drive(queue: Queue, table_id: str, prefix: str) -> None:
    """Have the table's house bots play until a polling seat must act (``arena.house.drive_table``)."""
    # Retried at once if it fails (say Redis blinked): a table whose house bots stop would wait forever.
    queue.enqueue(DRIVE_TABLE, table_id, prefix, job_timeout=300, result_ttl=60, failure_ttl=3600,
                  retry=Retry(max=3))


ANALYSE_GAME = "arena.analysis.analyse_game"
ANALYSIS_JOB_TIMEOUT_S = 1800  # a long game at the highest budget per decision; the job records the timeout


def enqueue_analysis(queue: Queue, subject_key: str, prefix: str) -> None:
    """Analyse one seat of one finished game (``arena.analysis.analyse_game``); the store keeps its state,
    so RQ keeps the job itself only briefly and never retries it (a new request does)."""
    queue.enqueue(ANALYSE_GAME, subject_key, prefix, job_timeout=ANALYSIS_JOB_TIMEOUT_S, result_ttl=60,
                  failure_ttl=3600, description=f"analysis {subject_key}")


RUN_MATCH = "arena.jobs.run_match"


def enqueue_challenge(queue: Queue, match_id: str, prefix: str, timeout_s: int) -> None:
    """Play a challenge's match (``arena.jobs.run_match``, which stores it unrated) on the challenges' queue;
    the job id is the match id, as for ladder matches, and exceptions re-run it at once."""
    queue.enqueue_call(RUN_MATCH, args=(match_id, prefix), job_id=match_id, timeout=timeout_s,
                       retry=Retry(max=2), result_ttl=3600, failure_ttl=7 * 24 * 3600,
                       description=f"challenge {match_id}")

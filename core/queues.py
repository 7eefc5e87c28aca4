"""The RQ job catalogue: every entry point the arena's workers run, by dotted name, with its timeouts.

The API and the scheduler enqueue by name only (neither imports the arena's code); tests check that each
name resolves to a function of ``arena``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rq import Queue, Retry
from rq.job import Job
from rq.results import Result

from core.arena.model import LadderConfig, MatchSpec


@dataclass(frozen=True)
class Entry:
    """One RQ entry point: its dotted name, how long RQ keeps its result and failure, how often it retries."""

    function: str
    timeout_s: int | None  # None: the caller gives it (a match's comes from its ladder or challenge)
    result_ttl_s: int
    failure_ttl_s: int
    retries: int = 0  # re-run at once on an exception (interval 0: no RQ scheduler needed)

    def enqueue(self, queue: Queue, *args: Any, timeout_s: int | None = None, **options: Any) -> Job:
        return queue.enqueue_call(self.function, args=args, timeout=timeout_s or self.timeout_s,
                           result_ttl=self.result_ttl_s, failure_ttl=self.failure_ttl_s,
                           retry=Retry(max=self.retries) if self.retries else None, **options)


# House bots (and registered bots at a table a person opened) play a practice table until a polling seat must
# act; retried, since a table whose bots stop would wait forever.
DRIVE_TABLE = Entry("arena.house.drive_table", 300, 60, 3600, retries=3)
# One seat of one finished game; a long game at the highest budget per decision. Never retried: the store
# keeps the analysis's state, and a new request starts it again.
ANALYSE_GAME = Entry("arena.analysis.analyse_game", 1800, 60, 3600)
# A ladder match, a challenge or a tournament's table (job id = match id); a re-run plays it from scratch
# and the rating script applies at most one result per match.
RUN_MATCH = Entry("arena.jobs.run_match", None, 3600, 7 * 24 * 3600, retries=2)
# GET / of an HTTP bot; ahead of the matches in its queue.
HEALTH_CHECK = Entry("arena.jobs.health_check", 30, 60, 3600)

CATALOGUE = (DRIVE_TABLE, ANALYSE_GAME, RUN_MATCH, HEALTH_CHECK)


def enqueue_drive(queue: Queue, table_id: str, prefix: str, at_front: bool = False) -> None:
    """Have the table's bots play until a polling seat must act (`at_front`: ahead of the queue's jobs)."""
    DRIVE_TABLE.enqueue(queue, table_id, prefix, at_front=at_front)


def enqueue_analysis(queue: Queue, subject_key: str, prefix: str) -> None:
    """Analyse one seat of one finished game."""
    ANALYSE_GAME.enqueue(queue, subject_key, prefix, description=f"analysis {subject_key}")


def enqueue_match(queue: Queue, spec: MatchSpec, ladder: LadderConfig, prefix: str) -> None:
    """Play a ladder match within its ladder's job timeout."""
    RUN_MATCH.enqueue(queue, spec.match_id, prefix, timeout_s=ladder.job_timeout_s, job_id=spec.match_id,
                      description=f"match {spec.match_id} on {ladder.ladder_id}")


def enqueue_challenge(queue: Queue, match_id: str, prefix: str, timeout_s: int) -> None:
    """Play a challenge's match on the challenges' queue (stored unrated)."""
    RUN_MATCH.enqueue(queue, match_id, prefix, timeout_s=timeout_s, job_id=match_id,
                      description=f"challenge {match_id}")


def enqueue_tournament_table(queue: Queue, match_id: str, prefix: str, timeout_s: int) -> None:
    """Play a tournament's table on the tournaments' queue (held, then published with its round)."""
    RUN_MATCH.enqueue(queue, match_id, prefix, timeout_s=timeout_s, job_id=match_id,
                      description=f"tournament table {match_id}")


def enqueue_health_check(queue: Queue, bot_id: str, url: str, prefix: str) -> Job:
    """Check an HTTP bot's GET / now, before the matches already queued."""
    return HEALTH_CHECK.enqueue(queue, bot_id, url, prefix, at_front=True,
                                description=f"health check of {bot_id}")


def job_return(job: Job, wait_s: float) -> Any | None:
    """What `job` returned, waiting up to `wait_s` for a worker to finish it; None if none has by then (or
    it failed). Blocks on RQ's result stream (XREAD), not by polling."""
    wait_ms = int(wait_s * 1000)
    if wait_ms <= 0:
        return None
    response = job.connection.xread({Result.get_key(job.id): "0-0"}, block=wait_ms)  # type: ignore[no-untyped-call]
    if not response:
        return None
    result = job.latest_result()
    return result.return_value if result is not None and result.type == Result.Type.SUCCESSFUL else None

"""Jobs the API hands to the arena's RQ workers, enqueued by dotted name (the API never imports the arena)."""

from __future__ import annotations

from rq import Queue, Retry

DRIVE_TABLE = "arena.house.drive_table"


def enqueue_drive(queue: Queue, table_id: str, prefix: str) -> None:
    """Have the table's house bots play until a polling seat must act (``arena.house.drive_table``)."""
    # Retried at once if it fails (say Redis blinked): a table whose house bots stop would wait forever.
    queue.enqueue(DRIVE_TABLE, table_id, prefix, job_timeout=300, result_ttl=60, failure_ttl=3600,
                  retry=Retry(max=3))

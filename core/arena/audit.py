"""The operator's records: the audit log of every admin action (a capped stream, the newest `AUDIT_KEEP`), and
the client addresses refused most (a sorted set of the `REFUSALS_KEEP` refused most).

Design: docs/admin.md#what-each-action-does
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis

from core import keys
from core.redis.connections import StrRedis, decoding_client

AUDIT_KEEP = 10_000  # actions kept (approximately: the stream is trimmed with MAXLEN ~)
REFUSALS_KEEP = 10_000  # client addresses kept on the refusal board (those refused most)
MAX_REASON_CHARS = 500


class AuditLog:
    """Append and read operator actions. ``actor`` is who says they acted (the CLI's default: the login
    name on the operator's machine; the API's: what the request names, else "operator"), ``via`` how."""

    def __init__(self, conn: redis.Redis, prefix: str) -> None:
        self.redis: StrRedis = decoding_client(conn)
        self.prefix = prefix

    def record(self, actor: str, action: str, target: str, reason: str, via: str,
               detail: dict[str, Any] | None = None) -> str:
        """Append one action; returns its entry id (the stream id: time-ordered, unique)."""
        fields = {"at": repr(time.time()), "actor": actor[:100], "action": action, "target": target,
                  "reason": reason[:MAX_REASON_CHARS], "via": via, "detail": json.dumps(detail or {})}
        entry_id: str = self.redis.xadd(keys.admin_audit(self.prefix), fields,
                                        maxlen=AUDIT_KEEP, approximate=True)
        return entry_id

    def entries(self, limit: int = 50, before: str | None = None) -> list[dict[str, Any]]:
        """The newest `limit` actions (before entry id `before` when given), newest first."""
        if before is not None and not before.strip("0-"):
            return []  # nothing is older than the stream's first possible id (and Redis refuses "(0-0")
        top = "+" if before is None else f"({before}"
        raw = self.redis.xrevrange(keys.admin_audit(self.prefix), top, "-", count=limit)
        return [{"id": entry_id, "at": float(fields["at"]), "actor": fields["actor"],
                 "action": fields["action"], "target": fields["target"], "reason": fields["reason"],
                 "via": fields["via"],
                 "detail": json.loads(fields.get("detail") or "{}")} for entry_id, fields in raw]


def count_refusal(conn: redis.Redis, prefix: str, address: str) -> None:
    """One more request of client `address` refused by a per-address limit or the bot quota.

    Bounded: beyond `REFUSALS_KEEP` addresses, those refused least are dropped (a newcomer with one refusal
    among them may be the one dropped; the board is about the worst).
    """
    board = keys.admin_refusals(prefix)
    pipe = conn.pipeline(transaction=False)
    pipe.zincrby(board, 1, address)
    pipe.zremrangebyrank(board, 0, -(REFUSALS_KEEP + 1))
    pipe.execute()


def top_refusals(conn: redis.Redis, prefix: str, limit: int = 20) -> list[dict[str, Any]]:
    """The client addresses refused most, most first: address and refusal count."""
    rows = decoding_client(conn).zrevrange(keys.admin_refusals(prefix), 0, limit - 1, withscores=True)
    return [{"address": address, "refusals": int(score)} for address, score in rows]

"""Is the store usable: does Redis answer, and does it take writes? A full Redis still answers ``PING`` at
``maxmemory``, so the check says what it is (``StoreFull``'s ``resource``), not just "down".

Design: docs/reliability.md#redis-out-of-memory-or-disk
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from core.redis.failures import StoreFull, store_error


@dataclass(frozen=True)
class StoreHealth:
    reachable: bool
    refusing_writes: str | None  # "memory" or "disk" (as StoreFull.resource), None when writes work

    @property
    def ok(self) -> bool:
        return self.reachable and self.refusing_writes is None


def memory_refuses_writes(memory: dict[str, Any]) -> bool:
    """Whether Redis refuses writes for memory, from its ``INFO memory`` section: over ``maxmemory`` with
    nothing it may evict.

    >>> memory_refuses_writes({"maxmemory": 0, "used_memory": 5})
    False
    >>> memory_refuses_writes({"maxmemory": 100, "used_memory": 150, "maxmemory_policy": "noeviction"})
    True
    >>> memory_refuses_writes({"maxmemory": 100, "used_memory": 150, "maxmemory_policy": "allkeys-lru"})
    False
    """
    limit = int(memory.get("maxmemory") or 0)
    return bool(limit) and int(memory.get("used_memory") or 0) > limit \
        and memory.get("maxmemory_policy") == "noeviction"


def store_health(client: redis.Redis) -> StoreHealth:
    """Ask Redis (one pipelined round trip) whether it answers and takes writes."""
    try:
        pipe = client.pipeline(transaction=False)
        pipe.ping()  # refused with MISCONF while the append-only file cannot be written
        pipe.info("memory")
        _, memory = pipe.execute()
    except redis.RedisError as exc:
        error = store_error(exc)
        if isinstance(error, StoreFull):  # it answered with a refusal (MISCONF reaches PING too)
            return StoreHealth(True, error.resource)
        return StoreHealth(False, None)
    return StoreHealth(True, "memory" if memory_refuses_writes(memory) else None)

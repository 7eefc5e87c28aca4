"""Optimistic read-modify-write of one key: WATCH it, read it, write under MULTI, again if it changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import redis

T = TypeVar("T")


def read_modify_write(conn: Any, key: str, step: Callable[[Any, str | None], T]) -> T:
    """``step(pipe, raw)`` with `key` watched and its value `raw` (None when absent), until it commits.

    `step` queues its writes after ``pipe.multi()``; one that returns without calling it writes nothing.
    A write of `key` by anyone else between the read and the commit runs `step` again on the new value.
    """
    with conn.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(key)
                result = step(pipe, pipe.get(key))
                if pipe.explicit_transaction:
                    pipe.execute()
                return result
            except redis.WatchError:
                continue

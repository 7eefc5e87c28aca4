"""Waiting for an event, never for a fixed time: a condition polled until it holds, within a deadline
generous enough for a loaded machine."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], timeout: float = 30.0, what: str = "",
               interval: float = 0.02) -> T:
    """Call `condition` until it returns a truthy value and return that value; an AssertionError naming `what`
    and the last value seen if none came within `timeout` seconds (the last call is made past the deadline).
    An exception the condition raises goes through at once.

    >>> answers = iter([0, [], "ready"])
    >>> wait_until(lambda: next(answers), what="the service is ready")
    'ready'
    >>> wait_until(lambda: 0, timeout=0.05, what="a miracle")
    Traceback (most recent call last):
    ...
    AssertionError: not within 0.05 s: a miracle (last seen: 0)
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what} (last seen: {value!r})")
        time.sleep(interval)

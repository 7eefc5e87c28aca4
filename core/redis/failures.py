"""What a Redis failure means for a caller: the store unreachable for a moment (``StoreUnavailable``) or
refusing writes for want of room (``StoreFull``). Both are domain errors the API answers with a problem
(``api.problems.PROBLEMS``) and the arena waits out; ``store_error`` tells them from redis-py's exceptions.
"""

from __future__ import annotations

import redis

from core.errors import RetryLater


class StoreUnavailable(RetryLater):
    """Redis is unreachable for a moment (restarting, failing over): retry shortly."""

    retry_after = 1  # a Redis restart (AOF load) takes about a second

    def __init__(self, reason: str = "the data store is unreachable for a moment; retry shortly") -> None:
        super().__init__(reason)


class StoreFull(StoreUnavailable):
    """Redis refuses writes because it has no room: ``resource`` is "memory" (``maxmemory`` reached under the
    ``noeviction`` policy) or "disk" (its append-only file cannot be written). Reads still work, nothing
    written before is lost, and writes work again by themselves once an operator has made room."""

    extras = ("resource",)
    retry_after = 5  # room comes back when an operator makes it: retrying every second helps nobody

    def __init__(self, resource: str) -> None:
        why = "it has reached its memory limit" if resource == "memory" else "it cannot write to its disk"
        super().__init__(f"the data store refuses writes for now: {why}; nothing was changed, retry later")
        self.resource = resource


# Redis's own error replies that mean "no write now", by the code they start with. Inside a Lua script
# Redis 6.2 wraps them ("Error running script ... -OOM command not allowed ..."), so they are searched for.
# redis-py strips the code of the replies it has a class for (OutOfMemoryError, ReadOnlyError).
_STORE_REFUSALS = (("OOM command not allowed", "memory"), ("MISCONF", "disk"))


def store_error(error: Exception) -> StoreUnavailable | None:
    """The domain error a Redis failure means for a caller, or None when it is not one the store can have.

    >>> store_error(redis.ResponseError("MISCONF Errors writing to the AOF file: No space left")).resource
    'disk'
    >>> type(store_error(redis.exceptions.OutOfMemoryError("used memory > 'maxmemory'"))).__name__
    'StoreFull'
    >>> store_error(redis.ReadOnlyError("You can't write against a read only replica."))
    StoreUnavailable('the data store is read-only for a moment (fail-over); retry shortly')
    >>> store_error(ValueError("x")) is None
    True
    """
    if isinstance(error, redis.ConnectionError | redis.TimeoutError):
        return StoreUnavailable()
    if not isinstance(error, redis.ResponseError):
        return None
    if isinstance(error, redis.OutOfMemoryError):
        return StoreFull("memory")
    text = str(error)
    for marker, resource in _STORE_REFUSALS:
        if marker in text:
            return StoreFull(resource)
    if isinstance(error, redis.ReadOnlyError) or "READONLY" in text:
        return StoreUnavailable("the data store is read-only for a moment (fail-over); retry shortly")
    return None

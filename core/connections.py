"""Redis connections: the stores read strings, RQ pickles bytes; one place turns one kind into the other."""

from __future__ import annotations

from typing import Any

import redis

# A client whose replies are decoded to str. redis-py types every reply as `bytes | str` (and leaves a few
# commands untyped), which is true only of clients in general; the stores use decoding clients alone, so
# their replies pass as this alias (Any) rather than a cast at each of a hundred call sites.
StrRedis = Any


def decoding_client(conn: redis.Redis) -> StrRedis:
    """The store reads strings; RQ hands jobs a bytes connection, so build a decoding twin when needed."""
    kwargs = conn.connection_pool.connection_kwargs
    if kwargs.get("decode_responses"):
        return conn
    return _decoding_twin(conn)


_twins: dict[int, StrRedis] = {}


def _decoding_twin(conn: redis.Redis) -> StrRedis:
    pool = conn.connection_pool
    twin = _twins.get(id(pool))
    if twin is None:
        twin = redis.Redis(connection_pool=pool.__class__(connection_class=pool.connection_class,
                                                           **{**pool.connection_kwargs,
                                                              "decode_responses": True}))
        _twins[id(pool)] = twin
    return twin

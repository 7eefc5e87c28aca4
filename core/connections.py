"""Redis connections: the stores read strings, RQ pickles bytes; one place turns one kind into the other."""

from __future__ import annotations

import redis


def decoding_client(conn: redis.Redis) -> redis.Redis:
    """The store reads strings; RQ hands jobs a bytes connection, so build a decoding twin when needed."""
    kwargs = conn.connection_pool.connection_kwargs
    if kwargs.get("decode_responses"):
        return conn
    return _decoding_twin(conn)


_twins: dict[int, redis.Redis] = {}


def _decoding_twin(conn: redis.Redis) -> redis.Redis:
    pool = conn.connection_pool
    twin = _twins.get(id(pool))
    if twin is None:
        twin = redis.Redis(connection_pool=pool.__class__(connection_class=pool.connection_class,
                                                           **{**pool.connection_kwargs,
                                                              "decode_responses": True}))
        _twins[id(pool)] = twin
    return twin

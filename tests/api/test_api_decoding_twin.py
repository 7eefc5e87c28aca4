"""A bytes client's decoding twin talks to the same Redis as the client, however many pools come and go."""

import gc

import redis

from core.redis.connections import decoding_client


def test_each_pool_gets_a_twin_of_its_own_server_and_database(redis_url: str, key_prefix: str) -> None:
    """Pools are made and dropped in turn on databases 0 and 1, as a store built per job does: a twin found
    by a collected pool's address (reused at once) would point at the other database, and read the other
    value."""
    base = redis_url.rsplit("/", 1)[0]
    for db in (0, 1):
        redis.Redis.from_url(f"{base}/{db}").set(f"{key_prefix}which", str(db))
    try:
        for turn in range(12):
            db = turn % 2
            conn = redis.Redis.from_url(f"{base}/{db}")
            twin = decoding_client(conn)
            assert twin.connection_pool.connection_kwargs["db"] == db, turn
            assert twin.get(f"{key_prefix}which") == str(db), turn
            twin.connection_pool.disconnect()
            del conn, twin
            gc.collect()
    finally:
        redis.Redis.from_url(f"{base}/1").delete(f"{key_prefix}which")


def test_a_decoding_client_is_its_own_twin(redis_url: str) -> None:
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    assert decoding_client(conn) is conn
    raw = redis.Redis.from_url(redis_url)
    assert decoding_client(raw) is decoding_client(raw)  # one twin per pool, not one per call

"""Redis connections: the stores read strings, RQ pickles bytes; one place turns one kind into the other."""

from __future__ import annotations

import os
import sys
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import redis
from hiredis import pack_command
from redis.connection import parse_url
from redis.sentinel import Sentinel, SentinelConnectionPool

from core.redis.scripts import evalsha, replicated, run_and_wait

if TYPE_CHECKING:
    from core.redis.pipelined import PipelinedLane

# A client whose replies are decoded to str. redis-py types every reply as `bytes | str` (and leaves a few
# commands untyped), which is true only of clients in general; the stores use decoding clients alone, so
# their replies pass as this alias (Any) rather than a cast at each of a hundred call sites.
StrRedis = Any


SENTINEL_TIMEOUT_S = 1.0  # a sentinel that does not answer within this is skipped for the next one
CONNECT_TIMEOUT_S = 2.0  # a primary that does not accept a connection within this counts as down


def redis_client(url: str, sentinels: Sequence[str] = (), service: str = "trick-arena", *,
                 decode_responses: bool = False, max_connections: int | None = None,
                 blocking_timeout: float | None = None, **options: Any) -> redis.Redis:
    """The one constructor of the project's Redis clients: the server at ``url``, or, when ``sentinels``
    ("host:port" each) are named, the current primary of ``service`` as those sentinels report it.

    With sentinels, ``url`` still gives the database number, the password and the query options (its host
    and port are not used), and the client is redis-py's ``Sentinel(...).master_for(service)``: each new
    connection asks the sentinels for the primary; a connection to a primary that was demoted (a
    ``READONLY`` reply) is dropped and the call fails with ``redis.ConnectionError``, which the client's
    retry and the script lanes answer by connecting again, to the new primary. ``blocking_timeout``: a pool
    of at most ``max_connections`` where a caller beyond the cap waits that long for a free connection
    (else a plain pool).

    >>> redis_client("redis://127.0.0.1:6390/2").connection_pool.connection_kwargs["db"]
    2
    >>> client = redis_client("redis://:secret@ignored:1/3", ["127.0.0.1:26379"], "arena")
    >>> pool = client.connection_pool
    >>> type(pool).__name__, pool.service_name, pool.connection_kwargs["db"]
    ('SentinelConnectionPool', 'arena', 3)
    >>> pool.connection_kwargs["password"]
    'secret'
    """
    pool_options: dict[str, Any] = {"decode_responses": decode_responses, **options}
    if max_connections is not None:
        pool_options["max_connections"] = max_connections
    if not sentinels:
        if blocking_timeout is not None:
            pool = redis.BlockingConnectionPool.from_url(url, timeout=blocking_timeout, **pool_options)
            return redis.Redis(connection_pool=pool)
        return redis.Redis.from_url(url, **pool_options)
    target = {k: v for k, v in parse_url(url).items()  # type: ignore[no-untyped-call]
              if k not in ("host", "port", "path", "connection_class")}
    target.setdefault("socket_connect_timeout", CONNECT_TIMEOUT_S)
    manager = Sentinel([sentinel_address(s) for s in sentinels],
                       sentinel_kwargs={"socket_timeout": SENTINEL_TIMEOUT_S,
                                        "socket_connect_timeout": SENTINEL_TIMEOUT_S})
    pool_class = SentinelConnectionPool
    if blocking_timeout is not None:
        pool_class, pool_options["timeout"] = BlockingSentinelConnectionPool, blocking_timeout
    client: redis.Redis = manager.master_for(service, connection_pool_class=pool_class,
                                             **{**target, **pool_options})
    return client


class RedisAddress(Protocol):
    """Where Redis is: the three fields of `core.settings.Settings` that say so."""

    @property
    def redis_url(self) -> str: ...

    @property
    def redis_sentinels(self) -> Sequence[str]: ...

    @property
    def redis_sentinel_service(self) -> str: ...


def settings_client(settings: RedisAddress, **options: Any) -> redis.Redis:
    """`redis_client` for a `core.settings.Settings` (or anything with its three Redis fields)."""
    return redis_client(settings.redis_url, settings.redis_sentinels, settings.redis_sentinel_service,
                        **options)


def sentinel_address(text: str) -> tuple[str, int]:
    """A sentinel's "host:port" (an IPv6 host in brackets); the port defaults to Sentinel's 26379.

    >>> sentinel_address("10.0.0.5:26380"), sentinel_address("[fd00::5]:26379"), sentinel_address("s1")
    (('10.0.0.5', 26380), ('fd00::5', 26379), ('s1', 26379))
    """
    host, _, port = text.strip().rpartition(":") if "]" in text or text.count(":") == 1 else (text, "", "")
    return host.strip("[]") or text.strip(), int(port or 26379)


def is_sentinel_pool(pool: Any) -> bool:
    return isinstance(pool, SentinelConnectionPool)


class BlockingSentinelConnectionPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """A Sentinel pool that, like ``redis.BlockingConnectionPool``, makes a caller beyond its cap wait for a
    free connection instead of failing: the API's pool, on Sentinel. (``master_for`` takes the pool class;
    the blocking pool already gives a connection the pool disowns, one to a former primary, a fresh slot.)"""


def decoding_client(conn: redis.Redis) -> StrRedis:
    """The store reads strings; RQ hands jobs a bytes connection, so build a decoding twin when needed."""
    kwargs = conn.connection_pool.connection_kwargs
    if kwargs.get("decode_responses"):
        return conn
    return _decoding_twin(conn)


# Keyed by the pool itself, weakly: an entry goes with its pool. Keyed by id(pool), a new pool that reused a
# collected one's address was handed the old pool's twin, connected to another (perhaps stopped) Redis.
_twins: weakref.WeakKeyDictionary[Any, StrRedis] = weakref.WeakKeyDictionary()


def _decoding_twin(conn: redis.Redis) -> StrRedis:
    pool: Any = conn.connection_pool
    twin = _twins.get(pool)
    if twin is None:
        kwargs = {**pool.connection_kwargs, "decode_responses": True}
        if is_sentinel_pool(pool):  # the same service through the same sentinels
            kwargs.pop("connection_pool")  # the pool's own handle, which the twin's pool makes anew
            twin = redis.Redis(connection_pool=pool.__class__(
                pool.service_name, pool.sentinel_manager, connection_class=pool.connection_class,
                is_master=pool.is_master, check_connection=pool.check_connection, **kwargs))
        else:
            twin = redis.Redis(connection_pool=pool.__class__(connection_class=pool.connection_class,
                                                               **kwargs))
        _twins[pool] = twin
    return twin


def script_lane(client: redis.Redis, pipelining: bool = True) -> ScriptLane | PipelinedLane:
    """The lane for a store's hot calls in this process: under gevent (the API's gunicorn workers, which
    monkey-patch the socket module before they build the app) one shared connection that pipelines the
    commands of all greenlets (`core.redis.pipelined.PipelinedLane`); elsewhere, or with `pipelining` off,
    a stack of connections (`ScriptLane`)."""
    if pipelining and gevent_patched():
        from core.redis.pipelined import (
            PipelinedLane,  # gevent's own modules: only where gevent runs the process
        )

        if PipelinedLane.suits(client):
            return PipelinedLane(client)
    return ScriptLane(client)


def gevent_patched() -> bool:
    """Whether gevent has patched the socket module (checked without importing gevent where nothing did)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("socket"))


class ScriptLane:
    """Lua scripts run straight on connections of their own, without the client's per-command layers.

    A call through ``redis.Redis`` takes a connection from its pool, records pool metrics and wraps the
    command in its retry policy: about three times the CPU of sending the command and reading its reply,
    on API requests that each make one Redis call (docs/api.md). The lane keeps a stack of idle connections
    built like the client's own (same address, options, decoding), sends EVALSHA on one and reads the reply
    (the connection's own ``send_packed_command`` and ``read_response``).
    The client's semantics stay: a script Redis does not know (restarted, flushed) is loaded and run again;
    a connection that breaks after it sat idle is replaced and the call made once more, as the client's
    retry would; the same redis-py errors come out. Beyond `limit` calls at once, calls go through the
    client (its pool caps the connections).

    >>> lane = ScriptLane(redis.Redis(decode_responses=True))
    >>> lane.idle
    0
    """

    def __init__(self, client: redis.Redis, limit: int = 64) -> None:
        self._client = client
        self._pool = client.connection_pool
        self._idle: list[Any] = []
        self._open = 0
        self._limit = limit
        self._pid = os.getpid()
        # A Sentinel connection finds the primary in its connect(), which a send on a closed socket skips
        # (redis-py reopens it at the last address): on Sentinel, open each socket with connect() first.
        self._sentinel = is_sentinel_pool(self._pool)

    @property
    def idle(self) -> int:
        return len(self._idle)

    def run(self, script: Any, keys: list[str], args: list[Any], wait_ms: int = 0) -> Any:
        """``script(keys=keys, args=args)`` for a registered ``redis.commands.core.Script``; with `wait_ms`,
        then ``WAIT 1 wait_ms`` on the same connection (`replicated`)."""
        if wait_ms:
            return self._on_a_connection(
                lambda conn: replicated(self._evalsha(conn, script, keys, args),
                                        lambda c: self._send(conn, c), wait_ms),
                lambda: run_and_wait(self._client, script, keys, args, wait_ms, "move"))
        return self._on_a_connection(lambda conn: self._evalsha(conn, script, keys, args),
                                     lambda: script(keys=keys, args=args))

    def execute(self, *command: Any) -> Any:
        """One plain command of str and number arguments (e.g. ``"HMGET", key, field, …``) on a lane
        connection (beyond the limit, through the client)."""
        return self._on_a_connection(lambda conn: self._send(conn, command),
                                     lambda: self._client.execute_command(*command))  # type: ignore[no-untyped-call]

    def _on_a_connection(self, call: Any, overflow: Any) -> Any:
        if self._pid != os.getpid():  # forked: the parent's sockets are not ours
            self._idle, self._open, self._pid = [], 0, os.getpid()
        try:
            conn, reused = self._idle.pop(), True  # one step: threads (gthread workers) share the stack
        except IndexError:
            if self._open >= self._limit:
                return overflow()
            conn, reused = self._pool.connection_class(**self._pool.connection_kwargs), False
            self._open += 1
        try:
            try:
                if self._sentinel:
                    conn.connect()  # no-op on an open socket
                return call(conn)
            except redis.ConnectionError:
                if not reused:
                    raise
                conn.disconnect()  # went stale while idle (Redis restarted): once more on a new socket
                if self._sentinel:
                    conn.connect()  # the primary now (after a failover, a new one)
                return call(conn)
        except redis.ResponseError:
            raise  # Redis answered: the connection is in order
        except BaseException:
            conn.disconnect()  # a reply may be left unread: start afresh next time
            raise
        finally:
            self._idle.append(conn)

    @staticmethod
    def _send(conn: Any, command: Any) -> Any:
        return round_trip(conn, pack_command(command))

    @staticmethod
    def _evalsha(conn: Any, script: Any, keys: list[str], args: list[Any]) -> Any:
        return evalsha(lambda packed: round_trip(conn, packed), script, keys, args)


def round_trip(conn: Any, packed: bytes) -> Any:
    """Send one packed command on ``conn`` and read its reply: redis-py's ``send_packed_command`` (which opens
    the socket, or PINGs one idle beyond the health-check interval) and ``read_response`` (a Redis error
    reply raises its ``ResponseError``, e.g. ``NoScriptError``; a broken socket ``redis.ConnectionError``, a
    timeout ``redis.TimeoutError``, both after dropping the socket)."""
    conn.send_packed_command([packed])
    return conn.read_response()

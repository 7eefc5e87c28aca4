"""Redis connections: the stores read strings, RQ pickles bytes; one place turns one kind into the other."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import redis
from hiredis import pack_command

if TYPE_CHECKING:
    from core.redis.pipelined import PipelinedLane

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

    @property
    def idle(self) -> int:
        return len(self._idle)

    def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """``script(keys=keys, args=args)`` for a registered ``redis.commands.core.Script``."""
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
                return call(conn)
            except redis.ConnectionError:
                if not reused:
                    raise
                conn.disconnect()  # went stale while idle (Redis restarted): once more on a new socket
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


def evalsha(send: Callable[[bytes], Any], script: Any, keys: list[str], args: list[Any]) -> Any:
    """Run a registered ``redis.commands.core.Script`` with ``send`` (one packed command in, its reply out,
    a Redis error raised): EVALSHA, and a script Redis does not know (restarted, flushed) loaded and run
    again.

    Packed by hiredis straight: the connection's packer first checks every argument for bytearray and
    memoryview, which our str and numbers never are.
    """
    command: Any = ("EVALSHA", script.sha, len(keys), *keys, *args)  # hiredis types it as 1-tuples
    packed = pack_command(command)
    try:
        return send(packed)
    except redis.exceptions.NoScriptError:
        load: Any = ("SCRIPT", "LOAD", script.script)
        send(pack_command(load))
        return send(packed)


def round_trip(conn: Any, packed: bytes) -> Any:
    """Send one packed command on ``conn`` and read its reply: redis-py's ``send_packed_command`` (which opens
    the socket, or PINGs one idle beyond the health-check interval) and ``read_response`` (a Redis error
    reply raises its ``ResponseError``, e.g. ``NoScriptError``; a broken socket ``redis.ConnectionError``, a
    timeout ``redis.TimeoutError``, both after dropping the socket)."""
    conn.send_packed_command([packed])
    return conn.read_response()

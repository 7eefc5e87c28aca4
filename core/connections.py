"""Redis connections: the stores read strings, RQ pickles bytes; one place turns one kind into the other."""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from typing import Any

import redis
from hiredis import PushNotification, pack_command
from redis._parsers.hiredis import NOT_ENOUGH_DATA

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
    commands of all greenlets (`PipelinedLane`); elsewhere, or with `pipelining` off, a stack of
    connections (`ScriptLane`)."""
    if pipelining and gevent_patched() and PipelinedLane.suits(client):
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
    built like the client's own (same address, options, decoding), sends EVALSHA on one and reads the reply.
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
        # Packed by hiredis straight: the connection's packer first checks every argument for bytearray and
        # memoryview, which our str and numbers never are.
        command: Any = ("EVALSHA", script.sha, len(keys), *keys, *args)  # hiredis types it as 1-tuples
        try:
            return round_trip(conn, pack_command(command))
        except redis.exceptions.NoScriptError:
            load: Any = ("SCRIPT", "LOAD", script.script)
            conn.send_packed_command([pack_command(load)])
            conn.read_response()
            conn.send_packed_command([pack_command(command)])
            return conn.read_response()


def round_trip(conn: Any, packed: bytes) -> Any:
    """Send one packed command on ``conn`` and read its reply, as ``send_packed_command`` + ``read_response``
    do, straight on the connection's socket and hiredis reader.

    redis-py's read goes through three layers (connection, parser, socket read), each with its own checks:
    a measurable share of the CPU of a seat read (docs/api.md). The replies and errors are the same: a Redis
    error reply raises its ``ResponseError`` (e.g. ``NoScriptError``), a broken socket
    ``redis.ConnectionError``, a timeout ``redis.TimeoutError`` (both drop the socket); a push message before
    the reply goes to the parser's push handler. A connection not yet open, due a health check, or without a
    hiredis reader takes redis-py's own calls.
    """
    sock = conn._sock
    parser = getattr(conn, "_parser", None)
    reader = getattr(parser, "_reader", None)
    interval = conn.health_check_interval
    if sock is None or reader is None or (interval and time.monotonic() > conn.next_health_check):
        conn.send_packed_command([packed])  # opens the socket, or PINGs one idle beyond the interval
        return conn.read_response()
    buffer = parser._buffer  # type: ignore[union-attr]
    try:
        sock.sendall(packed)
        reply = reader.gets()
        while reply is NOT_ENOUGH_DATA or isinstance(reply, PushNotification):
            if reply is not NOT_ENOUGH_DATA:  # RESP3 pushes before the reply: redis-py's handling
                parser.handle_push_response(reply)  # type: ignore[union-attr]
            elif not (read := sock.recv_into(buffer)):
                raise redis.ConnectionError("Connection closed by server.")
            else:
                reader.feed(buffer, 0, read)
            reply = reader.gets()
    except TimeoutError:
        conn.disconnect()  # a half-read reply would be taken as the next command's: drop the socket
        raise redis.TimeoutError("Timeout talking to Redis") from None
    except OSError as error:
        conn.disconnect()
        raise redis.ConnectionError(f"Error talking to Redis: {error}") from None
    if interval:
        conn.next_health_check = time.monotonic() + interval
    if isinstance(reply, redis.ResponseError):
        raise reply
    return reply


class PipelinedLane:
    """Under gevent: the commands of every greenlet on one shared connection, those issued in the same turn
    of the event loop written to Redis together (auto-pipelining), their replies read in order by one
    reader greenlet.

    A gevent worker serves many connections; under load several of its requests reach their one Redis call
    in the same turn of the loop. Each on a connection of its own pays a write that wakes Redis, a read that
    finds nothing yet and a wait in the hub, and Redis pays a read and a write for each. Here the first
    command of a turn yields once, so that the other greenlets ready in that turn add theirs, then writes
    them all in one `sendall`; Redis answers them in one read and one write, and the reader hands each
    caller its own reply (Redis answers in order). Scripts are atomic, so commands of different requests
    being pipelined changes nothing they do.

    The semantics are `ScriptLane`'s: a script Redis does not know is loaded and run again; the same
    redis-py errors come out (`ResponseError` for the caller whose command Redis refused, and only for it);
    a call that fails because its connection broke is made once more on a new connection when the
    connection had served before (as the client's retry would after a Redis restart). A broken connection
    fails every call in flight on it with `redis.ConnectionError`; the next call opens a new one. The
    connection is read all the time, so a Redis that closes it (restarted, `CLIENT KILL`) is noticed at
    once, not at the next call.
    """

    def __init__(self, client: redis.Redis) -> None:
        from gevent.lock import Semaphore  # type: ignore[import-untyped]

        self._client = client
        self._pool = client.connection_pool
        self._link: _Link | None = None
        self._opening = Semaphore()
        self._pid = os.getpid()
        self._timeout = self._pool.connection_kwargs.get("socket_timeout")
        self.links_opened = 0

    @staticmethod
    def suits(client: redis.Redis) -> bool:
        """RESP2 and the hiredis parser: the reader relies on both (one reply per command, no pushes)."""
        kwargs = client.connection_pool.connection_kwargs
        parser = kwargs.get("parser_class")
        return str(kwargs.get("protocol") or 2) == "2" and (parser is None or "Hiredis" in parser.__name__)

    @property
    def counts(self) -> tuple[int, int]:
        """(commands, writes) on the current connection: how much the pipelining saved."""
        link = self._link
        return (0, 0) if link is None else (link.commands, link.writes)

    def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """``script(keys=keys, args=args)`` for a registered ``redis.commands.core.Script``."""
        command: Any = ("EVALSHA", script.sha, len(keys), *keys, *args)
        packed = pack_command(command)
        try:
            return self._call(packed)
        except redis.exceptions.NoScriptError:
            load: Any = ("SCRIPT", "LOAD", script.script)
            self._call(pack_command(load))
            return self._call(packed)

    def execute(self, *command: Any) -> Any:
        """One plain command of str and number arguments (e.g. ``"HMGET", key, field, …``)."""
        return self._call(pack_command(command))

    def _call(self, packed: bytes) -> Any:
        link = self._current_link()
        try:
            reply = link.call(packed, self._timeout)
        except redis.ConnectionError:
            if not link.replies:
                raise  # a new connection failed: Redis is not there, nothing to retry
            reply = self._current_link().call(packed, self._timeout)
        if isinstance(reply, redis.ResponseError):
            raise reply
        return reply

    def _current_link(self) -> _Link:
        link = self._link
        if link is not None and link.failure is None and self._pid == os.getpid():
            return link
        with self._opening:  # one greenlet opens it; the others waiting here then share it
            link = self._link
            if link is None or link.failure is not None or self._pid != os.getpid():
                self._pid = os.getpid()  # forked: the parent's socket and reader are not ours
                conn = self._pool.connection_class(**self._pool.connection_kwargs)
                conn.connect()
                link = self._link = _Link(conn)
                self.links_opened += 1
            return link


class _Link:
    """One connection of a `PipelinedLane`: commands waiting to be written, callers waiting for replies
    (oldest first), and the greenlet that reads the replies."""

    def __init__(self, conn: Any) -> None:
        import gevent  # type: ignore[import-untyped]

        self.conn = conn
        self.sock = conn._sock
        self.reader = conn._parser._reader
        self.outbox: list[bytes] = []
        self.waiting: deque[Any] = deque()
        self.writing = False
        self.failure: Exception | None = None
        self.commands = self.writes = self.replies = 0
        self.reading = gevent.spawn(self._read)

    def call(self, packed: bytes, timeout: float | None) -> Any:
        """Queue one packed command, write it (with whatever else this turn queued), and wait for its reply.
        A refused command's `ResponseError` is returned, not raised."""
        from gevent import Timeout
        from gevent.event import AsyncResult  # type: ignore[import-untyped]

        if self.failure is not None:
            raise self.failure
        result = AsyncResult()
        self.waiting.append(result)
        self.outbox.append(packed)
        self.commands += 1
        if not self.writing:
            self._write()
        if timeout is None:
            return result.get()
        # The client's socket_timeout. A caller given up on by a timeout of its own (around a request, say)
        # leaves its reply to be read in its turn: the others' replies stay in order.
        own = Timeout.start_new(timeout)
        try:
            return result.get()
        except Timeout as expired:
            if expired is not own:
                raise
            self.fail(redis.TimeoutError("Timeout talking to Redis"))  # nothing is waiting for this one now
            raise redis.TimeoutError("Timeout talking to Redis") from None
        finally:
            own.close()

    def _write(self) -> None:
        import gevent

        self.writing = True
        try:
            gevent.sleep(0)  # the other greenlets ready in this turn of the loop queue theirs
        except BaseException:
            # Interrupted before writing (a timeout around the request, the worker stopping): another
            # greenlet writes what is queued, so the other callers' commands are not left unwritten.
            gevent.spawn(self._send_outbox)
            raise
        self._send_outbox()

    def _send_outbox(self) -> None:
        try:
            while self.outbox and self.failure is None:  # and what was queued while a write was under way
                data = b"".join(self.outbox)
                self.outbox.clear()
                self.sock.sendall(data)
                self.writes += 1
        except OSError as error:
            self.fail(redis.ConnectionError(f"Error talking to Redis: {error}"))
        except BaseException:
            # Interrupted inside a write: part of a command may have gone out, so nothing more can follow
            # it on this connection.
            self.fail(redis.ConnectionError("a write to Redis was interrupted"))
            raise
        finally:
            self.writing = False

    def _read(self) -> None:
        buffer = bytearray(65536)
        try:
            while self.failure is None:
                read = self.sock.recv_into(buffer)
                if not read:
                    raise redis.ConnectionError("Connection closed by server.")
                self.reader.feed(buffer, 0, read)
                while (reply := self.reader.gets()) is not NOT_ENOUGH_DATA:
                    self.replies += 1
                    self.waiting.popleft().set(reply)
        except IndexError:
            self.fail(redis.ConnectionError("Redis sent a reply no command was waiting for"))
        except redis.ConnectionError as error:
            self.fail(error)
        except OSError as error:
            self.fail(redis.ConnectionError(f"Error talking to Redis: {error}"))
        except BaseException as error:
            # Anything else (a reply hiredis cannot parse, the reader killed): no caller may wait for ever.
            self.fail(redis.ConnectionError(f"Error reading from Redis: {error!r}"))
            if not isinstance(error, Exception):
                raise

    def fail(self, error: Exception) -> None:
        """Close the connection and fail every call still waiting on it (once)."""
        if self.failure is not None:
            return
        self.failure = error
        self.outbox.clear()
        while self.waiting:
            self.waiting.popleft().set_exception(error)
        self.conn.disconnect()

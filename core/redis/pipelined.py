"""Under gevent, the table store's hot Redis calls of every greenlet on one pipelined connection.

Imported only in a process gevent has patched (`core.redis.connections.script_lane` decides): these are
gevent's
own primitives, which a threaded process has no use for.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Any

import gevent  # type: ignore[import-untyped]
import redis
from gevent import Timeout
from gevent.event import AsyncResult  # type: ignore[import-untyped]
from gevent.lock import Semaphore  # type: ignore[import-untyped]
from hiredis import pack_command

from core.redis.scripts import evalsha, replicated


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
        self._pool = client.connection_pool
        self._link: _Link | None = None
        self._opening = Semaphore()
        self._pid = os.getpid()
        self._timeout = self._pool.connection_kwargs.get("socket_timeout")
        self.links_opened = 0

    @staticmethod
    def suits(client: redis.Redis) -> bool:
        """RESP2 (one reply per command, no pushes between them) and the hiredis parser: what the lane is
        tested on."""
        kwargs = client.connection_pool.connection_kwargs
        parser = kwargs.get("parser_class")
        return str(kwargs.get("protocol") or 2) == "2" and (parser is None or "Hiredis" in parser.__name__)

    @property
    def counts(self) -> tuple[int, int]:
        """(commands, writes) on the current connection: how much the pipelining saved."""
        link = self._link
        return (0, 0) if link is None else (link.commands, link.writes)

    def run(self, script: Any, keys: list[str], args: list[Any], wait_ms: int = 0) -> Any:
        """``script(keys=keys, args=args)`` for a registered ``redis.commands.core.Script``; with `wait_ms`,
        then ``WAIT 1 wait_ms`` on the same connection (`core.redis.scripts.replicated`). A connection
        that breaks between the two fails the call: the write may not be on a replica."""
        if not wait_ms:
            return evalsha(self._call, script, keys, args)
        used: list[_Link] = []  # the connection the script ran on (the last, after a retry)
        reply = evalsha(lambda packed: self._call(packed, used), script, keys, args)
        return replicated(reply, lambda command: self._on(used[-1], pack_command(command)), wait_ms)

    def _on(self, link: _Link, packed: bytes) -> Any:
        """One command on `link` itself, no retry on another connection."""
        reply = link.call(packed, self._timeout)
        if isinstance(reply, redis.ResponseError):
            raise reply
        return reply

    def execute(self, *command: Any) -> Any:
        """One plain command of str and number arguments (e.g. ``"HMGET", key, field, …``)."""
        return self._call(pack_command(command))

    def _call(self, packed: bytes, used: list[_Link] | None = None) -> Any:
        link = self._current_link()
        try:
            if used is not None:
                used.append(link)
            reply = link.call(packed, self._timeout)
        except redis.ConnectionError:
            if not link.replies:
                raise  # a new connection failed: Redis is not there, nothing to retry
            link = self._current_link()
            if used is not None:
                used.append(link)
            reply = link.call(packed, self._timeout)
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
        self.conn = conn
        self.outbox: list[bytes] = []
        self.waiting: deque[Any] = deque()
        self.writing = False
        self.failure: Exception | None = None
        self.commands = self.writes = self.replies = 0
        gevent.spawn(self._read)

    def call(self, packed: bytes, timeout: float | None) -> Any:
        """Queue one packed command, write it (with whatever else this turn queued), and wait for its reply.
        A refused command's `ResponseError` is returned, not raised."""
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
                data = b"".join(self.outbox)  # one write (send_packed_command writes each item on its own)
                self.outbox.clear()
                # No health check: its PING's reply would be read here while the reader greenlet reads too.
                self.conn.send_packed_command([data], check_health=False)
                self.writes += 1
        except redis.RedisError as error:  # the connection dropped its socket
            self.fail(error if isinstance(error, redis.ConnectionError)
                      else redis.ConnectionError(f"Error talking to Redis: {error}"))
        except BaseException:
            # Interrupted inside a write: part of a command may have gone out, so nothing more can follow
            # it on this connection.
            self.fail(redis.ConnectionError("a write to Redis was interrupted"))
            raise
        finally:
            self.writing = False

    def _read(self) -> None:
        conn = self.conn
        try:
            while self.failure is None:
                # A reply already read from the socket comes back at once; else this waits for the next read.
                try:
                    reply: Any = conn.read_response()
                except redis.ResponseError as refused:
                    reply = refused  # the caller's own error, raised by it; the connection is in order
                self.replies += 1
                self.waiting.popleft().set(reply)
        except IndexError:
            self.fail(redis.ConnectionError("Redis sent a reply no command was waiting for"))
        except redis.ConnectionError as error:
            self.fail(error)
        except redis.RedisError as error:  # a timeout, a reply that does not parse: the socket is dropped
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

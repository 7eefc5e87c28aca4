"""Calling a bot over HTTP: one kept-alive connection per bot, a hard wall-clock deadline per call. Every call
returns a ``CallResult`` (outcome, latency, status); nothing a bot does raises out of this module.

Design: docs/arena.md#bot-calls
"""

from __future__ import annotations

import functools
import json
import ssl
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from arena.http1 import BodyTooLarge, Connection, ProtocolError, StaleConnection, request_bytes
from arena.policy import Outcome, ReplyError, parse_reply
from core.arena.model import PROTOCOL_VERSION
from core.arena.netguard import DEFAULT_PORTS, guarded_create_connection, split_bot_url

MAX_BODY = 64 * 1024
USER_AGENT = "trick-arena/1 (+docs/bot-protocol.md)"
_GET_HEADERS = f"User-Agent: {USER_AGENT}\r\nAccept: application/json\r\n".encode()
_POST_HEADERS = _GET_HEADERS + b"Content-Type: application/json\r\n"
# A stale kept-alive connection (the bot closed it while idle) shows up as one of these on the first write or
# read; such a call is retried once on a fresh connection.
STALE_CONNECTION_ERRORS = (StaleConnection, BrokenPipeError, ConnectionResetError)


@dataclass(frozen=True)
class CallResult:
    outcome: Outcome
    latency_ms: float
    status: int | None = None
    body: bytes = b""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK


def encode_json(payload: Any) -> bytes:
    """Compact JSON for a request body (orjson: the payload carries a whole seat view on every decision)."""
    return orjson.dumps(payload)


class BotClient:
    """HTTP client for one bot (not thread-safe: one per bot per match runner)."""

    def __init__(self, base_url: str, allow_private: bool, max_body: int = MAX_BODY) -> None:
        scheme, host, port = split_bot_url(base_url)
        self.base_url = base_url
        self.base_path = base_url.split("://", 1)[1].partition("/")[2].rstrip("/")
        self._scheme, self._host, self._port = scheme, host, port
        bracketed = f"[{host}]" if ":" in host else host
        self._host_header = bracketed if port == DEFAULT_PORTS[scheme] else f"{bracketed}:{port}"
        self.allow_private = allow_private
        self.max_body = max_body
        self._conn: Connection | None = None

    def _path(self, path: str) -> str:
        return f"/{self.base_path}/{path.lstrip('/')}" if self.base_path else f"/{path.lstrip('/')}"

    def _connect(self, timeout_s: float) -> Connection:
        sock = guarded_create_connection((self._host, self._port), timeout_s, self.allow_private)
        if self._scheme == "https":
            try:
                sock.settimeout(timeout_s)
                sock = _ssl_context().wrap_socket(sock, server_hostname=self._host)
            except BaseException:
                sock.close()
                raise
        return Connection(sock)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def call(self, method: str, path: str, payload: Any | None, timeout_s: float) -> CallResult:
        """One HTTP exchange: the answer must arrive within timeout_s of the request being sent (a new
        connection gets timeout_s of its own to connect); never raises for bot behaviour.

        `latency_ms` is the bot's: from the request sent to the first byte of the answer read (to the failure,
        when there is no answer; to the connect failure, when the request was never sent).
        """
        start = time.monotonic()
        request = self._request_bytes(method, path, None if payload is None else encode_json(payload))
        del payload  # a call waits on the network holding the request's bytes only (see `move_body`)
        return self._exchange(request, start, timeout_s)

    def _request_bytes(self, method: str, path: str, body: bytes | None) -> bytes:
        return request_bytes(method, self._path(path), self._host_header,
                             _GET_HEADERS if body is None else _POST_HEADERS, body)

    def _exchange(self, request: bytes, start: float, timeout_s: float) -> CallResult:
        """`call`'s exchange of the encoded `request` (kept for one retry on a fresh connection)."""
        for attempt in (1, 2):
            reused = self._conn is not None
            try:
                if self._conn is None:
                    self._conn = self._connect(timeout_s)
                response = self._conn.exchange(request, timeout_s, self.max_body)
                latency = self._latency_ms(start)
                if not response.keep_alive:
                    self.close()
                status = response.status
                if status != 200:
                    return CallResult(Outcome.HTTP_STATUS, latency, status, response.body,
                                      f"HTTP status {status}")
                return CallResult(Outcome.OK, latency, status, response.body)
            except BodyTooLarge as exc:
                latency = self._latency_ms(start)
                self.close()
                return CallResult(Outcome.TOO_LARGE, latency, exc.status, b"", str(exc))
            except TimeoutError:
                latency = self._latency_ms(start)
                sent = self._conn is not None and self._conn.sent_at is not None
                self.close()
                waited = f"{timeout_s * 1000:.0f} ms"
                return CallResult(Outcome.TIMEOUT, latency, None, b"",
                                  f"no complete answer within {waited} of the request" if sent
                                  else f"no connection within {waited}")
            except STALE_CONNECTION_ERRORS as exc:
                latency = self._latency_ms(start)
                self.close()
                # The bot closed the idle connection: one fresh try with a fresh clock, if the first one took
                # less than a deadline (a decision never holds the worker much past 3 deadlines: the lease).
                if attempt == 1 and reused and time.monotonic() - start < timeout_s:
                    continue
                return CallResult(Outcome.CONNECT_ERROR, latency, None, b"", f"connection failed: {exc!r}")
            except ConnectionRefusedError as exc:
                latency = self._latency_ms(start)
                self.close()
                unsafe = "address" in str(exc)
                return CallResult(Outcome.UNSAFE_ADDRESS if unsafe else Outcome.CONNECT_ERROR, latency,
                                  None, b"", str(exc) or "connection refused")
            except ProtocolError as exc:
                latency = self._latency_ms(start)
                self.close()
                return CallResult(Outcome.PROTOCOL_ERROR, latency, None, b"", f"ProtocolError: {exc}")
            except (OSError, ValueError) as exc:
                latency = self._latency_ms(start)
                self.close()
                return CallResult(Outcome.CONNECT_ERROR, latency, None, b"",
                                  f"{type(exc).__name__}: {exc}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _latency_ms(self, start: float) -> float:
        """The bot's part of the call so far: from the request sent to the first byte read (or to now)."""
        conn = self._conn
        if conn is None or conn.sent_at is None:
            return _ms(start)
        return ((conn.first_byte_at or time.monotonic()) - conn.sent_at) * 1000.0

    # --- protocol v1 ---------------------------------------------------------------------------------------

    def info(self, timeout_s: float) -> CallResult:
        """GET {url}/ -> {name, author, version, games} (also the health check)."""
        result = self.call("GET", "", None, timeout_s)
        if not result.ok:
            return result
        try:
            data = json.loads(result.body)
            if not isinstance(data, dict) or not isinstance(data.get("name"), str):
                raise ValueError("info must be an object with a string name")
        except (ValueError, UnicodeDecodeError) as exc:
            return CallResult(Outcome.BAD_SHAPE, result.latency_ms, result.status, result.body, str(exc))
        return result

    def notify(self, event: str, payload: dict[str, Any], timeout_s: float) -> CallResult:
        """POST {url}/start or {url}/end: best effort, the outcome is recorded but never strikes."""
        return self.call("POST", event, {"protocol": PROTOCOL_VERSION, **payload}, timeout_s)

    def move(self, request: dict[str, Any], timeout_s: float) -> tuple[str | list[str] | None, CallResult]:
        """POST {url}/move; the parsed move (shape-checked, legality is the engine's) or None and why."""
        return self.move_body(encode_json(request), request["decision"], timeout_s)

    def move_body(self, body: bytes, decision: Mapping[str, Any],
                  timeout_s: float) -> tuple[str | list[str] | None, CallResult]:
        """`move` with the request already encoded, for a caller that lets go of the view it encoded: while
        hundreds of matches wait on their bots, each holds these bytes and not a seat view's objects."""
        start = time.monotonic()
        request = self._request_bytes("POST", "move", body)
        del body
        result = self._exchange(request, start, timeout_s)
        if not result.ok:
            return None, result
        try:
            return parse_reply(result.body, decision), result
        except ReplyError as exc:
            return None, CallResult(exc.outcome, result.latency_ms, result.status, result.body, str(exc))


class ClientPool:
    """Kept-alive bot clients shared by the matches a worker process runs at once (one per thread).

    A match *leases* one client per bot URL for its whole run and gives them back at the end, so a client
    (and its socket) is only ever used by one thread at a time: one match's slow bot cannot hold up, read
    from or time out another match's call, and every call keeps its own deadline (``BotClient.call``).
    Given-back clients stay connected for the next match with that bot (at most `idle_per_url` per URL; the
    rest are closed), so connections to a bot follow the matches in flight with it, not the thread count.
    """

    def __init__(self, idle_per_url: int = 8) -> None:
        self.idle_per_url = idle_per_url
        self._idle: dict[tuple[str, bool], list[BotClient]] = defaultdict(list)
        self._lock = threading.Lock()

    def _take(self, url: str, allow_private: bool) -> BotClient:
        with self._lock:
            idle = self._idle.get((url, allow_private))
            if idle:
                return idle.pop()
        return BotClient(url, allow_private=allow_private)

    def _give_back(self, client: BotClient) -> None:
        with self._lock:
            idle = self._idle[(client.base_url, client.allow_private)]
            if len(idle) < self.idle_per_url:
                idle.append(client)
                return
        client.close()

    @contextmanager
    def lease(self, urls: Iterable[str], allow_private: bool) -> Iterator[dict[str, BotClient]]:
        """One client per distinct URL for the duration of the block (a match), keyed by URL."""
        clients = {url: self._take(url, allow_private) for url in dict.fromkeys(urls)}
        try:
            yield clients
        finally:
            for client in clients.values():
                self._give_back(client)

    def idle_count(self) -> int:
        with self._lock:
            return sum(len(idle) for idle in self._idle.values())


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One verifying client context per process (building one loads the CA store: milliseconds)."""
    return ssl.create_default_context()


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000.0

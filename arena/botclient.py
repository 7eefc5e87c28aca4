"""Calling a bot over HTTP: one kept-alive connection per bot, a hard wall-clock deadline per call.

Built on ``http.client`` (the bench ``python -m arena bench-http`` shows why: it is the cheapest per call of
requests / httpx / http.client on loopback, and it lets us own the socket). What the arena needs and the big
clients do not give directly:

* a deadline that bounds the *whole* call, including a body dribbled one byte at a time: every ``recv`` on
  the socket gets ``timeout = deadline - now`` (``DeadlineSocket``), so a slow trickle cannot reset the clock;
* at most ``max_body`` (64 KiB) of body read, whatever Content-Length claims;
* no redirects (``http.client`` never follows them; a 3xx is just a non-200 answer);
* every new connection goes through ``netguard.guarded_create_connection``, which checks the peer IP at
  connect time (no DNS-rebinding bypass) unless private addresses are allowed.

Every call returns a ``CallResult`` (outcome, latency, status); nothing a bot does raises out of this module.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any

from arena.netguard import guarded_create_connection, split_bot_url
from arena.policy import Outcome, ReplyError, parse_reply

PROTOCOL_VERSION = 1
MAX_BODY = 64 * 1024
USER_AGENT = "trick-arena/1 (+docs/bot-protocol.md)"
# A stale kept-alive connection (the bot closed it while idle) shows up as one of these on the first write or
# read; such a call is retried once on a fresh connection.
STALE_CONNECTION_ERRORS = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


class DeadlineExceeded(TimeoutError):
    pass


class DeadlineSocket(socket.socket):
    """A socket whose every receive is bounded by an absolute monotonic deadline (None: plain timeout)."""

    deadline: float | None = None

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceeded("deadline exceeded while reading")
            self.settimeout(remaining)
        return super().recv_into(buffer, nbytes, flags)


class DeadlineSSLSocket(ssl.SSLSocket):
    deadline: float | None = None

    def recv_into(self, buffer: Any, nbytes: int | None = None, flags: int = 0) -> int:
        if self.deadline is not None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise DeadlineExceeded("deadline exceeded while reading")
            self.settimeout(remaining)
        return super().recv_into(buffer, nbytes, flags)  # type: ignore[arg-type]


def _ssl_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.sslsocket_class = DeadlineSSLSocket
    return context


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


class _GuardedConnectionMixin:
    allow_private: bool = False
    _buffer: list[bytes]

    def _guarded_connect(self, address: tuple[str, int], timeout: float | None, source: Any = None):
        return guarded_create_connection(address, timeout, self.allow_private, socket_factory=DeadlineSocket)

    def _send_output(self, message_body: Any = None, encode_chunked: bool = False) -> None:
        # http.client sends the headers and a bytes body in two send() calls; on loopback each costs a wake-up
        # of the bot, so headers + body go out in one segment (the body is always small bytes here).
        if not isinstance(message_body, bytes):
            super()._send_output(message_body, encode_chunked)  # type: ignore[misc]
            return
        self._buffer.extend((b"", b""))
        message = b"\r\n".join(self._buffer) + message_body
        del self._buffer[:]
        self.send(message)  # type: ignore[attr-defined]


class GuardedHTTPConnection(_GuardedConnectionMixin, http.client.HTTPConnection):
    def __init__(self, host: str, port: int, allow_private: bool) -> None:
        super().__init__(host, port)
        self.allow_private = allow_private
        self._create_connection = self._guarded_connect


class GuardedHTTPSConnection(_GuardedConnectionMixin, http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, allow_private: bool) -> None:
        super().__init__(host, port, context=_ssl_context())
        self.allow_private = allow_private
        self._create_connection = self._guarded_connect


class BotClient:
    """HTTP client for one bot (not thread-safe: one per bot per match runner)."""

    def __init__(self, base_url: str, allow_private: bool, max_body: int = MAX_BODY) -> None:
        scheme, host, port = split_bot_url(base_url)
        self.base_url = base_url
        self.base_path = base_url.split("://", 1)[1].partition("/")[2].rstrip("/")
        self._scheme, self._host, self._port = scheme, host, port
        self.allow_private = allow_private
        self.max_body = max_body
        self._conn: http.client.HTTPConnection | None = None

    def _path(self, path: str) -> str:
        return f"/{self.base_path}/{path.lstrip('/')}" if self.base_path else f"/{path.lstrip('/')}"

    def _new_connection(self) -> http.client.HTTPConnection:
        if self._scheme == "https":
            return GuardedHTTPSConnection(self._host, self._port, self.allow_private)
        return GuardedHTTPConnection(self._host, self._port, self.allow_private)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def call(self, method: str, path: str, payload: Any | None, timeout_s: float) -> CallResult:
        """One HTTP exchange bounded by timeout_s of wall-clock time; never raises for bot behaviour."""
        start = time.monotonic()
        deadline = start + timeout_s
        body = None if payload is None else json.dumps(payload, separators=(",", ":")).encode()
        for attempt in (1, 2):
            reused = self._conn is not None and self._conn.sock is not None
            try:
                status, data = self._exchange(method, self._path(path), body, deadline)
                return CallResult(Outcome.OK if status == 200 else Outcome.HTTP_STATUS,
                                  _ms(start), status, data, "" if status == 200 else f"HTTP status {status}")
            except _TooLarge as exc:
                self.close()
                return CallResult(Outcome.TOO_LARGE, _ms(start), exc.status, b"", str(exc))
            except TimeoutError:
                self.close()
                return CallResult(Outcome.TIMEOUT, _ms(start), None, b"",
                                  f"no complete answer within {timeout_s * 1000:.0f} ms")
            except STALE_CONNECTION_ERRORS as exc:
                self.close()
                if attempt == 1 and reused and time.monotonic() < deadline:
                    continue
                return CallResult(Outcome.CONNECT_ERROR, _ms(start), None, b"", f"connection failed: {exc!r}")
            except ConnectionRefusedError as exc:
                self.close()
                unsafe = "address" in str(exc)
                return CallResult(Outcome.UNSAFE_ADDRESS if unsafe else Outcome.CONNECT_ERROR, _ms(start),
                                  None, b"", str(exc) or "connection refused")
            except (OSError, http.client.HTTPException, ValueError) as exc:
                self.close()
                outcome = Outcome.PROTOCOL_ERROR if isinstance(exc, http.client.HTTPException) else \
                    Outcome.CONNECT_ERROR
                return CallResult(outcome, _ms(start), None, b"", f"{type(exc).__name__}: {exc}")
        raise AssertionError("unreachable")  # pragma: no cover

    def _exchange(self, method: str, path: str, body: bytes | None, deadline: float) -> tuple[int, bytes]:
        if self._conn is None:
            self._conn = self._new_connection()
        conn = self._conn
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DeadlineExceeded("deadline exceeded before the call")
        if conn.sock is None:
            conn.timeout = remaining
            conn.connect()
        sock = conn.sock
        sock.deadline = deadline
        sock.settimeout(max(deadline - time.monotonic(), 0.0005))
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        if response.length is not None and response.length > self.max_body:
            raise _TooLarge(response.status, f"Content-Length {response.length} > {self.max_body} bytes")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = response.read1(min(65536, self.max_body + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > self.max_body:
                raise _TooLarge(response.status, f"body exceeds {self.max_body} bytes")
            chunks.append(chunk)
        response.close()
        if response.will_close:
            self.close()
        return response.status, b"".join(chunks)

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
        result = self.call("POST", "move", request, timeout_s)
        if not result.ok:
            return None, result
        try:
            return parse_reply(result.body, request["decision"]), result
        except ReplyError as exc:
            return None, CallResult(exc.outcome, result.latency_ms, result.status, result.body, str(exc))


class _TooLarge(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status


def _ms(start: float) -> float:
    return (time.monotonic() - start) * 1000.0

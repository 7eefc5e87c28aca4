"""A small JSON-over-HTTP client: one kept-alive connection, retries with backoff, problem+json errors.

Stdlib only (``http.client``), so the SDK installs with no dependencies. Retried: connection failures, 429
(after its ``Retry-After``) and 5xx, with exponential backoff and jitter. Moves are safe to retry: a move
carries the version it was decided at, so a duplicate is refused with 409 and never applied twice.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

USER_AGENT = "trickarena-sdk/0.1"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 507})  # 507: the store is full for now
NETWORK_ERRORS = (ConnectionError, http.client.HTTPException, socket.timeout, OSError)


class ApiError(Exception):
    """The API answered with an error: ``status`` and the problem body (``problem``, a dict)."""

    def __init__(self, status: int, problem: dict[str, Any], method: str = "", path: str = "") -> None:
        self.status = status
        self.problem = problem
        self.method = method
        self.path = path
        title, detail = problem.get("title", ""), problem.get("detail", "")
        super().__init__(f"{method} {path} -> {status} {title}: {detail}")

    @property
    def type(self) -> str:
        return str(self.problem.get("type", "about:blank"))

    @property
    def detail(self) -> str:
        return str(self.problem.get("detail", ""))

    @property
    def legal(self) -> list[str] | None:
        """The legal moves, when a move was refused."""
        return self.problem.get("legal")


class ApiUnavailable(Exception):
    """The API could not be reached (or kept failing) after every retry."""


class JsonHttp:
    """Thread-safe (one request at a time per instance) JSON client for one base URL."""

    def __init__(self, base_url: str, timeout: float = 40.0, retries: int = 6, backoff_s: float = 0.2,
                 max_backoff_s: float = 10.0) -> None:
        parts = urlsplit(base_url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._base_path = parts.path
        self.timeout = timeout
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._conn: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()
        self.sleep = time.sleep  # replaceable, e.g. to stop sleeping on shutdown

    # --- connection ------------------------------------------------------------------------------------

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=timeout)
            conn.connect()
            # Small request/answer pairs on a kept-alive socket: do not let Nagle hold them back.
            conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._conn = conn
        self._conn.timeout = timeout
        if self._conn.sock is not None:
            self._conn.sock.settimeout(timeout)
        return self._conn

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # --- requests --------------------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, params: dict[str, Any] | None = None,
                token: str | None = None, timeout: float | None = None, retry: bool = True) -> Any:
        """Send one request (retrying as documented); the decoded JSON answer, or None for 204.

        ``retry=False`` for a request that must not be sent twice (opening an account, rotating its key:
        a second one would answer with a key the first answer's loss already made unreachable)."""
        return self.request_with_headers(method, path, body, params, token, timeout, retry)[0]

    def request_with_headers(self, method: str, path: str, body: Any = None,
                             params: dict[str, Any] | None = None, token: str | None = None,
                             timeout: float | None = None, retry: bool = True) -> tuple[Any, dict[str, str]]:
        """Like ``request``, with the answer's headers too (names in lower case)."""
        retries = self.retries if retry else 0
        query = {k: v for k, v in (params or {}).items() if v is not None}
        target = self._base_path + path + (f"?{urlencode(query)}" if query else "")
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        attempt = 0
        while True:
            try:
                status, answer_headers, raw = self._exchange(method, target, payload, headers,
                                                             timeout or self.timeout)
            except NETWORK_ERRORS as exc:
                if attempt >= retries:
                    raise ApiUnavailable(f"{method} {self.base_url}{path}: {exc!r}") from exc
                self.sleep(self._delay(attempt, None))
                attempt += 1
                continue
            if status in RETRY_STATUSES and attempt < retries:
                self.sleep(self._delay(attempt, answer_headers.get("retry-after")))
                attempt += 1
                continue
            return self._decode(method, path, status, raw), answer_headers

    def _exchange(self, method: str, target: str, payload: bytes | None, headers: dict[str, str],
                  timeout: float) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            for fresh_try in (False, True):
                conn = self._connection(timeout)
                try:
                    conn.request(method, target, body=payload, headers=headers)
                    response = conn.getresponse()
                    raw = response.read()
                except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                    # The server closed our idle kept-alive socket: one silent retry on a new one.
                    self._drop()
                    if fresh_try:
                        raise
                    continue
                except BaseException:
                    self._drop()  # half-read answers (timeouts, Ctrl-C) leave the socket unusable
                    raise
                if response.will_close:
                    self._drop()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, raw
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def stream_lines(self, path: str, params: dict[str, Any] | None = None,
                     timeout: float | None = None) -> Iterator[tuple[Iterator[str], dict[str, str]]]:
        """GET `path` and read its answer line by line as it arrives (NDJSON), on a connection of its own: the
        lines (without their newline) and the headers (names in lower case). Retried like ``request`` until
        the answer starts; an answer cut off after that raises ``http.client.IncompleteRead``."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        target = self._base_path + path + (f"?{urlencode(query)}" if query else "")
        headers = {"Accept": "application/x-ndjson", "User-Agent": USER_AGENT}
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        attempt = 0
        while True:
            conn = cls(self._host, self._port, timeout=timeout or self.timeout)
            try:
                conn.request("GET", target, headers=headers)
                response = conn.getresponse()
                if response.status in RETRY_STATUSES and attempt < self.retries:
                    retry_after = response.getheader("retry-after")
                    conn.close()
                    self.sleep(self._delay(attempt, retry_after))
                    attempt += 1
                    continue
                if response.status >= 400:
                    self._decode("GET", path, response.status, response.read())
            except NETWORK_ERRORS as exc:
                conn.close()
                if attempt >= self.retries:
                    raise ApiUnavailable(f"GET {self.base_url}{path}: {exc!r}") from exc
                self.sleep(self._delay(attempt, None))
                attempt += 1
                continue
            except BaseException:
                conn.close()
                raise
            try:
                yield _lines(response), {k.lower(): v for k, v in response.getheaders()}
            finally:
                conn.close()
            return

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        delay = min(self.max_backoff_s, self.backoff_s * 2**attempt) * random.uniform(0.5, 1.0)
        if retry_after:
            with contextlib.suppress(ValueError):  # an HTTP-date: keep our own backoff
                delay = max(delay, min(float(retry_after), self.max_backoff_s * 6))
        return delay

    @staticmethod
    def _decode(method: str, path: str, status: int, raw: bytes) -> Any:
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        if status >= 400:
            problem = body if isinstance(body, dict) else {
                "type": "about:blank", "title": "Not JSON", "status": status,
                "detail": raw[:300].decode("utf-8", "replace")}
            raise ApiError(status, problem, method, path)
        return body


def _lines(response: http.client.HTTPResponse) -> Iterator[str]:
    """The answer's non-empty lines; a last line without its newline is an answer cut off."""
    for raw in response:
        if not raw.endswith(b"\n"):
            raise http.client.IncompleteRead(raw)
        line = raw.decode().rstrip("\r\n")
        if line:
            yield line

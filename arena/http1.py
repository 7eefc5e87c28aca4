"""Just enough HTTP/1.1 for calling bots: one request out, one response in, under an absolute deadline.

Bots are untrusted: anything that is not HTTP raises ``ProtocolError``; a peer that hangs up before the first
byte of a response raises ``StaleConnection`` (the caller may retry once on a fresh connection).
Design: docs/arena.md#bot-calls
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import time
from dataclasses import dataclass

MAX_HEAD = 16 * 1024
RECV_SIZE = 65536
NO_BODY_STATUSES = frozenset({204, 304})


class ProtocolError(ValueError):
    """The peer's answer is not a well-formed HTTP/1.x response."""


class StaleConnection(ConnectionError):
    """The peer closed the connection before answering (typically an idle kept-alive connection)."""


class DeadlineExceeded(TimeoutError):
    pass


class BodyTooLarge(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    keep_alive: bool


def request_bytes(method: str, path: str, host_header: str, headers: bytes, body: bytes | None) -> bytes:
    """The whole request in one buffer (one segment on loopback: one wake-up of the bot, not two).

    >>> request_bytes("POST", "/move", "bot", b"Accept: */*\\r\\n", b"{}")
    b'POST /move HTTP/1.1\\r\\nHost: bot\\r\\nAccept: */*\\r\\nContent-Length: 2\\r\\n\\r\\n{}'
    """
    head = f"{method} {path} HTTP/1.1\r\nHost: {host_header}\r\n".encode("ascii") + headers
    if body is None:
        return head + b"\r\n"
    return head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


class Connection:
    """One kept-alive socket to a bot and the bytes read from it but not yet consumed."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = bytearray()
        self._answered = False
        # Of the last exchange (time.monotonic()): the request handed to the kernel, the first byte of the
        # answer read. The bot's latency is the difference.
        self.sent_at: float | None = None
        self.first_byte_at: float | None = None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    def exchange(self, request: bytes, timeout_s: float, max_body: int) -> Response:
        """Send `request` and read one final response that arrives within `timeout_s` of the send.

        The clock starts once the request is sent (``sent_at``), not when the caller began the call: the time
        a busy worker took to build the request or to get to the socket is not the bot's.
        """
        self._buffer.clear()  # a reused connection must start clean (`_finish` refuses leftovers)
        self._answered = False  # any byte of an answer seen: a hang-up after that is not a stale connection
        self.sent_at = self.first_byte_at = None
        self.sock.settimeout(timeout_s)  # a peer that does not read its socket: the send itself is bounded
        self.sock.sendall(request)
        self.sent_at = time.monotonic()
        deadline = self.sent_at + timeout_s
        while True:
            status, headers, keep_alive = self._read_head(deadline)
            if not 100 <= status < 200:
                break
            # 1xx interim answer (e.g. 103 Early Hints): no body, the final response follows.
        if status in NO_BODY_STATUSES:
            return self._finish(status, b"", keep_alive)
        transfer = headers.get(b"transfer-encoding", b"").lower()
        if transfer:
            if transfer != b"chunked":
                raise ProtocolError(f"unsupported Transfer-Encoding {transfer.decode('latin-1')!r}")
            return self._finish(status, self._read_chunked(deadline, max_body, status), keep_alive)
        length_header = headers.get(b"content-length")
        if length_header is None:
            return Response(status, self._read_to_close(deadline, max_body, status), keep_alive=False)
        if not length_header.isdigit():
            raise ProtocolError(f"bad Content-Length {length_header.decode('latin-1')!r}")
        length = int(length_header)
        if length > max_body:
            raise BodyTooLarge(status, f"Content-Length {length} > {max_body} bytes")
        return self._finish(status, self._take(length, deadline), keep_alive)

    # --- reading ------------------------------------------------------------------------------------------

    def _fill(self, deadline: float, limit: int = RECV_SIZE) -> bool:
        """Read what the peer has sent so far (at most `limit` bytes) into the buffer; False at end of stream;
        DeadlineExceeded (a TimeoutError) once `deadline` has passed with nothing more arrived.

        Every caller passes what it still needs or may still accept, so a bot can never make the arena read
        more than the caps (16 KiB of head, `max_body` + 1 of body) plus the framing around them.
        """
        left = deadline - time.monotonic()
        # Past the deadline only what has already arrived is read (non-blocking): this thread may have come
        # late to its socket, the bot was not late for that.
        self.sock.settimeout(max(left, 0.0))
        try:
            chunk = self.sock.recv(max(1, min(RECV_SIZE, limit)))
        except (BlockingIOError, ssl.SSLWantReadError):
            raise DeadlineExceeded("deadline exceeded") from None
        if not chunk:
            return False
        if not self._answered:
            self.first_byte_at = time.monotonic()
        self._answered = True
        self._buffer += chunk
        return True

    def _read_head(self, deadline: float) -> tuple[int, dict[bytes, bytes], bool]:
        while (end := self._buffer.find(b"\r\n\r\n")) < 0:
            if len(self._buffer) > MAX_HEAD:
                raise ProtocolError(f"status line and headers exceed {MAX_HEAD} bytes")
            if not self._fill(deadline, MAX_HEAD + 4 - len(self._buffer)):
                if not self._answered:
                    raise StaleConnection("connection closed before any response")
                raise ProtocolError("connection closed inside the response headers")
        if end > MAX_HEAD:
            raise ProtocolError(f"status line and headers exceed {MAX_HEAD} bytes")
        head = bytes(self._buffer[:end])
        del self._buffer[:end + 4]
        status_line, _, header_block = head.partition(b"\r\n")
        version, status = _parse_status_line(status_line)
        headers: dict[bytes, bytes] = {}
        for line in header_block.split(b"\r\n") if header_block else ():
            name, colon, value = line.partition(b":")
            if not colon or not name or name != name.strip():
                raise ProtocolError(f"malformed header line {line[:80]!r}")
            headers[name.lower()] = value.strip()
        connection = headers.get(b"connection", b"").lower()
        keep_alive = version == b"HTTP/1.1" and b"close" not in connection
        return status, headers, keep_alive

    def _take(self, count: int, deadline: float) -> bytes:
        while len(self._buffer) < count:
            if not self._fill(deadline, count - len(self._buffer)):
                raise ProtocolError(f"connection closed after {len(self._buffer)} of {count} body bytes")
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        return data

    def _line(self, deadline: float) -> bytes:
        while (end := self._buffer.find(b"\r\n")) < 0:
            if len(self._buffer) > 1024:
                raise ProtocolError("chunk size line too long")
            if not self._fill(deadline, 1026 - len(self._buffer)):
                raise ProtocolError("connection closed inside a chunked body")
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 2]
        return line

    def _read_chunked(self, deadline: float, max_body: int, status: int) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            size_text = self._line(deadline).split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise ProtocolError(f"bad chunk size {size_text[:20]!r}") from None
            if size < 0:
                raise ProtocolError("negative chunk size")
            if size == 0:
                while self._line(deadline):  # trailers, up to the empty line
                    pass
                return b"".join(parts)
            total += size
            if total > max_body:
                raise BodyTooLarge(status, f"body exceeds {max_body} bytes")
            parts.append(self._take(size, deadline))
            if self._take(2, deadline) != b"\r\n":
                raise ProtocolError("chunk not followed by CRLF")

    def _read_to_close(self, deadline: float, max_body: int, status: int) -> bytes:
        while self._fill(deadline, max_body + 1 - len(self._buffer)):
            if len(self._buffer) > max_body:
                raise BodyTooLarge(status, f"body exceeds {max_body} bytes")
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    def _finish(self, status: int, body: bytes, keep_alive: bool) -> Response:
        # Bytes after the response were never asked for: the connection's framing cannot be trusted.
        return Response(status, body, keep_alive and not self._buffer)


def _parse_status_line(line: bytes) -> tuple[bytes, int]:
    """`HTTP/1.1 200 OK` -> (b"HTTP/1.1", 200); anything else is a ProtocolError."""
    version, _, rest = line.partition(b" ")
    code = rest[:3]
    if version not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit() \
            or rest[3:4] not in (b"", b" "):
        raise ProtocolError(f"not an HTTP/1.x status line: {line[:80]!r}")
    return version, int(code)


def remaining(deadline: float) -> float:
    """Seconds left until `deadline` (time.monotonic()); DeadlineExceeded (a TimeoutError) once none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceeded("deadline exceeded")
    return left

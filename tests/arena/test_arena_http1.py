"""The arena's own HTTP/1.1 exchange (arena.http1 via BotClient) against raw socket servers on 127.0.0.1.

Each server answers every request on a connection with canned bytes, so the framing cases a bot could send
(chunked, read-to-close, interim 1xx, Connection: close, junk) are exercised on real sockets.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from arena.botclient import BotClient
from arena.policy import Outcome

PLAY = {"kind": "play", "count": 1, "legal": ["2C", "3C"]}
REQUEST = {"protocol": 1, "game": "spot-hearts", "table": "t", "match": "m", "seat": 0, "decision": PLAY,
           "deadline_ms": 500, "view": {"hand": ["2C", "3C"]}, "legal": PLAY["legal"]}
MOVE = b'{"move":"3C"}'


class RawServer:
    """Answers request i with `answer` bytes (or answers[i % n] for a list); counts connections and keeps
    every request head it read."""

    def __init__(self, answer: bytes | list[bytes], close_after: bool = False) -> None:
        self.answers = answer if isinstance(answer, list) else [answer]
        self.close_after = close_after
        self.connections = 0
        self.heads: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buffer = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, _, rest = buffer.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.lower() == b"content-length":
                        length = int(value)
                while len(rest) < length:
                    rest += conn.recv(65536)
                buffer = rest[length:]
                self.heads.append(head)
                answer = self.answers[(len(self.heads) - 1) % len(self.answers)]
                conn.sendall(answer)
                if self.close_after or b" 200 " not in answer:  # no final answer in it: hang up
                    return

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def raw_server() -> Iterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    def start(answer: bytes | list[bytes], close_after: bool = False) -> RawServer:
        servers.append(RawServer(answer, close_after))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def moves(server: RawServer, calls: int = 3) -> list[tuple[object, Outcome]]:
    client = BotClient(server.url, allow_private=True)
    results = [client.move(REQUEST, 2.0) for _ in range(calls)]
    return [(move, result.outcome) for move, result in results]


def test_content_length_answers_reuse_one_connection_and_send_one_well_formed_request(raw_server) -> None:
    server = raw_server(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n"
                        + MOVE)
    assert moves(server) == [("3C", Outcome.OK)] * 3
    assert server.connections == 1
    request_line, *headers = server.heads[0].split(b"\r\n")
    assert request_line == b"POST /move HTTP/1.1"
    names = {line.partition(b":")[0].lower(): line.partition(b":")[2].strip() for line in headers}
    assert names[b"host"] == server.url.split("://")[1].encode()
    assert names[b"content-type"] == b"application/json"


def test_chunked_answer_with_extension_and_trailer(raw_server) -> None:
    body = b"5;ext=1\r\n" + MOVE[:5] + b"\r\n8\r\n" + MOVE[5:] + b"\r\n0\r\nX-Trailer: yes\r\n\r\n"
    server = raw_server(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    assert moves(server) == [("3C", Outcome.OK)] * 3
    assert server.connections == 1


def test_read_to_close_answer_and_connection_close_open_a_fresh_connection_per_call(raw_server) -> None:
    to_close = raw_server(b"HTTP/1.1 200 OK\r\n\r\n" + MOVE, close_after=True)
    assert moves(to_close) == [("3C", Outcome.OK)] * 3
    assert to_close.connections == 3
    said_close = raw_server(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 13\r\n\r\n" + MOVE,
                            close_after=True)
    assert moves(said_close) == [("3C", Outcome.OK)] * 3
    assert said_close.connections == 3
    http10 = raw_server(b"HTTP/1.0 200 OK\r\nContent-Length: 13\r\n\r\n" + MOVE, close_after=True)
    assert moves(http10) == [("3C", Outcome.OK)] * 3
    assert http10.connections == 3


def test_interim_1xx_answers_are_skipped(raw_server) -> None:
    server = raw_server(b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
                        b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n" + MOVE)
    assert moves(server) == [("3C", Outcome.OK)] * 3


def test_bytes_after_the_answer_mean_the_connection_is_not_reused(raw_server) -> None:
    server = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n" + MOVE
                        + b"HTTP/1.1 500 surprise\r\n\r\n")
    assert moves(server) == [("3C", Outcome.OK)] * 3
    assert server.connections == 3


@pytest.mark.parametrize("answer", [
    b"SSH-2.0-OpenSSH_9.6\r\n\r\n",  # not HTTP at all
    b"HTTP/1.1 2xx OK\r\n\r\n",  # status code not a number
    b"HTTP/2 200\r\n\r\n",  # not HTTP/1.x
    b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",  # malformed header line
    b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",  # bad Content-Length
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",  # unsupported transfer coding
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # bad chunk size
    b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n",  # headers beyond the 16 KiB cap
])
def test_malformed_answers_are_protocol_errors(raw_server, answer: bytes) -> None:
    server = raw_server(answer, close_after=True)
    move, result = BotClient(server.url, allow_private=True).move(REQUEST, 2.0)
    assert move is None and result.outcome is Outcome.PROTOCOL_ERROR, result


def test_answer_cut_short_is_a_protocol_error(raw_server) -> None:
    server = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + MOVE, close_after=True)
    move, result = BotClient(server.url, allow_private=True).move(REQUEST, 2.0)
    assert move is None and result.outcome is Outcome.PROTOCOL_ERROR
    assert "13 of 100" in result.detail


def test_a_bot_that_hangs_up_without_answering_is_a_connect_error_after_one_retry(raw_server) -> None:
    server = raw_server(b"", close_after=True)
    client = BotClient(server.url, allow_private=True)
    move, result = client.move(REQUEST, 2.0)
    assert move is None and result.outcome is Outcome.CONNECT_ERROR
    assert server.connections == 1  # a fresh connection is not retried: the bot really hung up


def test_a_hang_up_after_an_interim_answer_is_not_mistaken_for_a_stale_connection(raw_server) -> None:
    good = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n" + MOVE
    server = raw_server([good, b"HTTP/1.1 100 Continue\r\n\r\n"])
    client = BotClient(server.url, allow_private=True)
    assert client.move(REQUEST, 2.0)[0] == "3C"
    move, result = client.move(REQUEST, 2.0)  # on the kept-alive connection: 100, then the bot hangs up
    assert move is None and result.outcome is Outcome.PROTOCOL_ERROR
    assert len(server.heads) == 2  # not re-sent on a fresh connection as if the old one had gone stale


def test_an_https_bot_is_called_over_verified_tls_with_keep_alive(monkeypatch) -> None:
    """A bot behind https: the certificate is verified (an unknown CA is refused, not ignored), then the
    same deadline-bounded exchange runs inside TLS on one kept-alive connection."""
    import ssl

    import trustme

    from arena import botclient

    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    listener = socket.create_server(("127.0.0.1", 0))
    connections: list[int] = []

    def serve() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            connections.append(1)
            threading.Thread(target=answer_over_tls, args=(raw,), daemon=True).start()

    def answer_over_tls(raw: socket.socket) -> None:
        try:
            with server_context.wrap_socket(raw, server_side=True) as conn:
                while conn.recv(65536):
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n" + MOVE)
        except (OSError, ssl.SSLError):
            pass  # the client refused our certificate, or hung up

    threading.Thread(target=serve, daemon=True).start()
    url = f"https://127.0.0.1:{listener.getsockname()[1]}"
    try:
        move, result = BotClient(url, allow_private=True).move(REQUEST, 2.0)
        assert move is None and result.outcome is Outcome.CONNECT_ERROR
        assert "CERTIFICATE_VERIFY_FAILED" in result.detail

        def trusting_context() -> ssl.SSLContext:
            context = ssl.create_default_context()
            ca.configure_trust(context)
            return context

        monkeypatch.setattr(botclient, "_ssl_context", trusting_context)
        client = BotClient(url, allow_private=True)
        assert [client.move(REQUEST, 2.0)[0] for _ in range(3)] == ["3C"] * 3
        assert len(connections) == 2  # the refused handshake, then one connection for three calls
    finally:
        listener.close()


class FloodSocket:
    """A socket stand-in that has `data` to give: counts what the reader actually took from it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.taken = 0

    def settimeout(self, _timeout: float) -> None:
        pass

    def sendall(self, _data: bytes) -> None:
        pass

    def recv(self, size: int) -> bytes:
        chunk = self.data[self.taken:self.taken + size]
        self.taken += len(chunk)
        return chunk


@pytest.mark.parametrize("framing", ["read-to-close", "chunked"])
def test_a_flood_is_cut_after_at_most_the_caps_worth_of_bytes(framing: str) -> None:
    from arena.http1 import MAX_HEAD, BodyTooLarge, Connection

    max_body = 64 * 1024
    if framing == "chunked":
        head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        flood = head + (b"4000\r\n" + b" " * 0x4000 + b"\r\n") * 640  # 10 MB
    else:
        head = b"HTTP/1.1 200 OK\r\n\r\n"
        flood = head + b" " * 10_000_000
    sock = FloodSocket(flood)
    connection = Connection(sock)  # type: ignore[arg-type]
    with pytest.raises(BodyTooLarge):
        connection.exchange(b"POST /move HTTP/1.1\r\n\r\n", 5.0, max_body)
    assert sock.taken <= MAX_HEAD + 4 + max_body + 1, f"read {sock.taken} bytes of a 10 MB flood"

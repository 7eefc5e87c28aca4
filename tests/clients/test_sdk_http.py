"""The SDK's HTTP layer against a real scripted server on 127.0.0.1: retries, backoff, problem bodies."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from trickarena import ApiError, ApiUnavailable
from trickarena.http import JsonHttp


class ScriptedServer(ThreadingHTTPServer):
    """Answers each request with the next (status, headers, body) of its script; repeats the last one."""

    daemon_threads = True

    def __init__(self, script: list[tuple[int, dict[str, str], dict | str]]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.seen: list[tuple[str, str, str | None]] = []  # method, path, Authorization
        self.peers: set[int] = set()  # client ports: one per TCP connection


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.server.seen.append((self.command, self.path, self.headers.get("Authorization")))
        self.server.peers.add(self.client_address[1])
        index = min(len(self.server.seen) - 1, len(self.server.script) - 1)
        status, headers, body = self.server.script[index]
        raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        content_type = "application/problem+json" if status >= 400 else "application/json"
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer  # noqa: N815 - stdlib naming


@pytest.fixture
def scripted() -> Iterator:
    servers: list[ScriptedServer] = []

    def start(script: list[tuple[int, dict[str, str], dict | str]]) -> tuple[ScriptedServer, JsonHttp]:
        server = ScriptedServer(script)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        client = JsonHttp(base, timeout=5, retries=4, backoff_s=0.01)
        return server, client

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def problem(status: int, detail: str, **extra) -> dict:
    return {"type": "about:blank", "title": "x", "status": status, "detail": detail, **extra}


def test_429_then_503_are_retried_honouring_retry_after(scripted) -> None:
    server, client = scripted([(429, {"Retry-After": "0"}, problem(429, "slow down")),
                               (503, {}, problem(503, "busy")), (200, {}, {"ok": True})])
    slept: list[float] = []
    client.sleep = slept.append
    assert client.request("POST", "/api/x", {"a": 1}, token="tok") == {"ok": True}
    assert [s[0] for s in server.seen] == ["POST"] * 3
    assert all(s[2] == "Bearer tok" for s in server.seen)
    assert len(slept) == 2 and all(0 <= s <= 1 for s in slept)
    assert len(server.peers) == 1  # one kept-alive connection for all three requests


def test_retry_after_is_respected_as_a_floor(scripted) -> None:
    server, client = scripted([(429, {"Retry-After": "2"}, problem(429, "slow down")), (200, {}, {"ok": 1})])
    slept: list[float] = []
    client.sleep = slept.append
    client.request("GET", "/api/y")
    assert slept and slept[0] >= 2.0


def test_backoff_grows_exponentially(scripted) -> None:
    server, client = scripted([(500, {}, problem(500, "boom"))])
    slept: list[float] = []
    client.sleep = slept.append
    with pytest.raises(ApiError) as caught:
        client.request("GET", "/api/z")
    assert len(server.seen) == client.retries + 1
    assert len(slept) == client.retries
    # jitter keeps each delay within [0.5, 1] x 0.01 x 2^attempt
    for attempt, delay in enumerate(slept):
        assert 0.005 * 2**attempt <= delay <= 0.01 * 2**attempt + 1e-9
    assert caught.value.status == 500 and caught.value.detail == "boom"


def test_client_errors_are_not_retried_and_carry_the_problem(scripted) -> None:
    body = problem(422, "follow the suit led (D)", legal=["2D", "9D"])
    body["type"] = "/problems/illegal-move"
    server, client = scripted([(422, {}, body)])
    with pytest.raises(ApiError) as caught:
        client.request("POST", "/api/tables/t/seats/0/moves", {"move": "QS", "expected_version": 3})
    error = caught.value
    assert len(server.seen) == 1
    assert error.status == 422 and error.type == "/problems/illegal-move"
    assert error.legal == ["2D", "9D"] and error.problem == body
    assert "follow the suit led" in str(error)


def test_a_non_json_error_still_becomes_a_problem(scripted) -> None:
    server, client = scripted([(404, {}, "<html>nope</html>")])
    with pytest.raises(ApiError) as caught:
        client.request("GET", "/nowhere")
    assert caught.value.status == 404 and "nope" in caught.value.detail


def test_unreachable_server_raises_api_unavailable_after_retries() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = JsonHttp(f"http://127.0.0.1:{port}", timeout=2, retries=2, backoff_s=0.01)
    slept: list[float] = []
    client.sleep = slept.append
    with pytest.raises(ApiUnavailable):
        client.request("GET", "/api/health")
    assert len(slept) == 2


def test_rejects_urls_that_are_not_http() -> None:
    with pytest.raises(ValueError):
        JsonHttp("ftp://example.org")


def test_opening_an_account_and_rotating_its_key_are_never_retried(scripted) -> None:
    from trickarena import ArenaClient

    server, client = scripted([(503, {}, problem(503, "busy"))])
    api = ArenaClient(client.base_url)
    api.http = client
    slept: list[float] = []
    client.sleep = slept.append
    for call in (api.create_account, lambda: api.rotate_key("k")):
        with pytest.raises(ApiError) as refused:
            call()
        assert refused.value.status == 503
    assert [s[:2] for s in server.seen] == [("POST", "/api/accounts"), ("POST", "/api/account/keys/rotate")]
    assert server.seen[1][2] == "Bearer k" and slept == []

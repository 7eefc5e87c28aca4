"""Serve a ``Bot`` over HTTP, speaking the arena's bot protocol v1 (docs/bot-protocol.md), with keep-alive and
TCP_NODELAY; a ``choose`` that raises answers 500 (a strike and a fallback move), and the server keeps going.

Design: docs/sdk.md#1-as-an-http-bot-the-arena-calls-you
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from trickarena.bot_interface import BotInterface

MAX_REQUEST_BYTES = 1024 * 1024
log = logging.getLogger("trickarena.server")


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], bot: BotInterface) -> None:
        super().__init__(address, _Handler)
        self.bot = bot
        self.calls = 0  # /move requests answered (tests and the CLI read it)
        self._lock = threading.Lock()

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up mid-answer is not our problem to print

    def decide(self, payload: dict[str, Any]) -> Any:
        bot = self.bot
        if bot.concurrent:
            move = bot.choose(payload["view"])
        else:
            with self._lock:  # the default: a bot may keep state without thinking about threads
                move = bot.choose(payload["view"])
        self.calls += 1
        return move


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HttpServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s " + format, self.client_address[0], *args)

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/") not in ("", "/info"):
            self._answer(404, {"error": f"no route {self.path}"})
            return
        self._answer(200, self.server.bot.info())

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True
            self._answer(413, {"error": "request too large"})
            return
        try:
            payload = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._answer(400, {"error": "the body is not JSON"})
            return
        route = self.path.rstrip("/")
        try:
            if route == "/move":
                self._answer(200, {"move": self.server.decide(payload)})
            elif route == "/start":
                self.server.bot.on_start(payload)
                self._answer(200, {})
            elif route == "/end":
                self.server.bot.on_end(payload)
                self._answer(200, {})
            else:
                self._answer(404, {"error": f"no route {self.path}"})
        except Exception as exc:  # noqa: BLE001 - a bot bug must not take the server down
            log.warning("bot error on %s: %s", route, traceback.format_exc(limit=3))
            self._answer(500, {"error": f"{type(exc).__name__}: {exc}"})


class BotServer:
    """A running bot server. ``start()`` serves from a daemon thread; ``serve_forever()`` blocks."""

    def __init__(self, bot: BotInterface, host: str = "127.0.0.1", port: int = 0) -> None:
        self.httpd = _HttpServer((host, port), bot)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        host = self.httpd.server_address[0]
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{self.port}"

    @property
    def calls(self) -> int:
        return self.httpd.calls

    def start(self) -> BotServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name=f"bot-server-{self.port}", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve until Ctrl-C (or SIGTERM turned into KeyboardInterrupt); then close the socket cleanly."""
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            self.httpd.server_close()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

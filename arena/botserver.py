"""A tiny stdlib HTTP bot speaking protocol v1: the reference bot, the bench target and the test double.

``serve_bot(config)`` serves one behaviour in a daemon thread; ``python -m arena serve-bot --port P
--house-bot heuristic`` runs one in the foreground.
Design: docs/arena.md#the-reference-bots-behaviours
"""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BEHAVIOURS = ("good", "sleep", "dribble", "huge", "status500", "garbage", "illegal", "wrongcard", "redirect",
              "flaky", "down_info", "sleepy")


@dataclass
class BotServerConfig:
    behaviour: str = "good"
    name: str = "local-bot"
    house_bot: str | None = None
    delay_s: float = 2.0
    redirect_to: str | None = None
    seed: int = 0
    # "sleepy": a free host that sleeps after this many idle seconds and takes delay_s to answer the first
    # request that wakes it (then plays as "good")
    sleep_after_s: float = 60.0
    games: list[str] = field(default_factory=lambda: ["sore-spot", "card-commons", "sloppy-seconds",
                                                      "spot-hearts"])


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], config: BotServerConfig) -> None:
        super().__init__(address, _Handler)
        self.config = config
        self.counter = itertools.count()
        self.requests: list[str] = []  # paths seen (tests look at them)
        self.move_bodies: list[dict[str, Any]] = []  # every /move body received (tests look at them)
        # Each /move's (received, answered) on the monotonic clock: whether calls overlapped.
        self.move_times: list[tuple[float, float]] = []
        self._house_bots: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._wake_lock = threading.Lock()
        self._last_request: float | None = None  # "sleepy": asleep before its first request

    def wake_if_asleep(self) -> None:
        """A "sleepy" host: the request that finds it asleep (never called, or idle for sleep_after_s) waits
        delay_s for it to wake; requests arriving meanwhile wait for the same wake-up."""
        if self.config.behaviour != "sleepy":
            return
        with self._wake_lock:
            now = time.monotonic()
            if self._last_request is None or now - self._last_request > self.config.sleep_after_s:
                time.sleep(self.config.delay_s)
            self._last_request = time.monotonic()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up on a misbehaving bot are expected; stay quiet

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock, address

    def choose(self, request: dict[str, Any]) -> Any:
        decision = request["decision"]
        if self.config.house_bot:
            with self._lock:
                key = threading.get_ident()
                if key not in self._house_bots:
                    from engine.bots import make_bot

                    self._house_bots[key] = make_bot(self.config.house_bot, self.config.seed)
                bot = self._house_bots[key]
            return bot.choose(request["view"])
        legal = request["legal"]
        if decision["kind"] == "pass":
            return legal[: decision["count"]]
        return legal[0]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # a bench must not print a line per request

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self.server.requests.append(f"GET {self.path}")
        self.server.wake_if_asleep()
        config = self.server.config
        if config.behaviour == "down_info":
            self._send(503, b'{"error": "down"}')
            return
        info = {"name": config.name, "author": "trick-arena", "version": "1", "games": config.games}
        self._send(200, json.dumps(info).encode())

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        self.server.requests.append(f"POST {self.path}")
        self.server.wake_if_asleep()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.endswith("/move"):
            self._send(200, b"{}")
            return
        request = json.loads(raw)
        self.server.move_bodies.append(request)
        received = time.monotonic()
        try:
            self._answer_move(request)
        finally:
            self.server.move_times.append((received, time.monotonic()))

    def _answer_move(self, request: dict[str, Any]) -> None:
        behaviour = self.server.config.behaviour
        delay = self.server.config.delay_s
        if behaviour == "flaky":
            behaviour = "status500" if next(self.server.counter) % 2 else "good"
        if behaviour == "sleep":
            time.sleep(delay)
        if behaviour == "status500":
            self._send(500, b'{"error": "boom"}')
        elif behaviour == "garbage":
            self._send(200, b"<html>this is not json")
        elif behaviour == "huge":
            self._send_huge()
        elif behaviour == "redirect":
            target = self.server.config.redirect_to or f"http://127.0.0.1:{self.server.server_address[1]}/move"
            self._send(307, b"", extra={"Location": target})
        elif behaviour == "illegal":
            is_pass = request["decision"]["kind"] == "pass"
            bad = ["XX", "YY", "ZZ"][: request["decision"]["count"]] if is_pass else "ZZ"
            self._send(200, json.dumps({"move": bad}).encode())
        elif behaviour == "wrongcard":
            self._send(200, json.dumps({"move": _a_card_not_in(request)}).encode())
        elif behaviour == "dribble":
            body = json.dumps({"move": self.server.choose(request)}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for byte in body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(delay)
        else:
            self._send(200, json.dumps({"move": self.server.choose(request)}).encode())

    def _send_huge(self) -> None:
        size = 10 * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        block = b" " * 65536
        try:
            for _ in range(size // len(block)):
                self.wfile.write(block)
        except OSError:
            pass  # the arena hangs up after 64 KiB: expected


def _a_card_not_in(request: dict[str, Any]) -> Any:
    legal = {c.upper() for c in request["legal"]}
    for rank in "23456789TJQKA":
        for suit in "CDHS":
            if rank + suit not in legal:
                card = rank + suit
                return [card, *sorted(legal)[:2]] if request["decision"]["kind"] == "pass" else card
    return "2C"


class RunningBot:
    def __init__(self, server: _Server, thread: threading.Thread) -> None:
        self.server = server
        self.thread = thread

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[str]:
        return self.server.requests

    @property
    def move_bodies(self) -> list[dict[str, Any]]:
        return self.server.move_bodies

    @property
    def move_times(self) -> list[tuple[float, float]]:
        return self.server.move_times

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_bot(config: BotServerConfig | None = None, port: int = 0) -> RunningBot:
    config = config or BotServerConfig()
    if config.behaviour not in BEHAVIOURS:
        raise ValueError(f"unknown behaviour {config.behaviour!r}; one of {', '.join(BEHAVIOURS)}")
    server = _Server(("127.0.0.1", port), config)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    return RunningBot(server, thread)


def serve_bot_command(port: int, behaviour: str = "good", house_bot: str = "heuristic",
                      name: str | None = None, delay_s: float | None = None) -> list[str]:
    """`python -m arena serve-bot ...` with this interpreter: a bot in a process of its own."""
    command = [sys.executable, "-m", "arena", "serve-bot", "--port", str(port), "--behaviour", behaviour,
               "--house-bot", house_bot]
    if name is not None:
        command += ["--name", name]
    if delay_s is not None:
        command += ["--delay", str(delay_s)]
    return command


def wait_serving(url: str, timeout: float = 20.0, process: subprocess.Popen[bytes] | None = None) -> None:
    """Return once the bot at `url` answers its info call; RuntimeError if `process` exits or time is up."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the bot for {url} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url.rstrip('/')}/", timeout=1) as answer:
                if answer.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"no bot answered at {url} within {timeout:g} s")
        time.sleep(0.05)

"""A very cheap protocol-v1 bot for benchmarks: stdlib asyncio, HTTP/1.1 keep-alive, TCP_NODELAY.

``http.server`` costs more CPU per request than the arena spends per decision, so on a 2-core machine a
bench against it measures the bot, not the worker. This server parses just enough HTTP (request line,
Content-Length, body) and answers the first legal move (the first `count` legal cards for a pass).
One process can serve several ports: ``python -m arena fast-bots --ports 9101,9102``.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any

CONTENT_LENGTH = re.compile(rb"content-length:\s*(\d+)", re.IGNORECASE)
INFO = json.dumps({"name": "fastbot", "author": "trick-arena", "version": "1",
                   "games": ["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"]}).encode()


def _response(status: bytes, body: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


class FastBotProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.buffer = b""
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end]
            match = CONTENT_LENGTH.search(head)
            length = int(match.group(1)) if match else 0
            total = head_end + 4 + length
            if len(self.buffer) < total:
                return
            body = self.buffer[head_end + 4:total]
            self.buffer = self.buffer[total:]
            self.transport.write(self._answer(head, body))

    @staticmethod
    def _answer(head: bytes, body: bytes) -> bytes:
        request_line = head.split(b"\r\n", 1)[0]
        if request_line.startswith(b"GET"):
            return _response(b"200 OK", INFO)
        if b"/move" not in request_line:
            return _response(b"200 OK", b"{}")
        request = json.loads(body)
        decision = request["decision"]
        legal = request["legal"]
        move = legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]
        return _response(b"200 OK", json.dumps({"move": move}).encode())


async def serve(ports: list[int], host: str = "127.0.0.1", started: Any = None) -> None:
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(FastBotProtocol, host, port, backlog=256) for port in ports]
    if started is not None:
        started([s.sockets[0].getsockname()[1] for s in servers])
    await asyncio.gather(*(s.serve_forever() for s in servers))


def run_fast_bots(ports: list[int], started: Any = None) -> None:
    asyncio.run(serve(ports, started=started))

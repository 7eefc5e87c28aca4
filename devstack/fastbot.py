"""A very cheap protocol-v1 bot for benchmarks: stdlib sockets, a process per connection, TCP_NODELAY; it
answers the first legal move. ``python -m devstack.fastbot --ports 9101,9102``; ``--delay-ms D`` answers
every /move D ms late, ``--loops N`` serves every connection from N event-loop processes.

Design: docs/arena.md#worker-speed--python--m-toolsarena_bench
"""

from __future__ import annotations

import heapq
import itertools
import json
import multiprocessing
import os
import re
import selectors
import socket
import time
from collections.abc import Callable
from typing import Any

import click

CONTENT_LENGTH = re.compile(rb"content-length:\s*(\d+)", re.IGNORECASE)
INFO = json.dumps({"name": "fastbot", "author": "trick-arena", "version": "1",
                   "games": ["sore-spot", "card-commons", "sloppy-seconds", "spot-hearts"]}).encode()
MAX_REQUEST = 1024 * 1024


def _response(status: bytes, body: bytes) -> bytes:
    return (b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode() + b"\r\n\r\n" + body)


def answer(head: bytes, body: bytes) -> bytes:
    """The whole HTTP response to one request: info on GET, the first legal move on POST /move, else {}."""
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


def take_request(buffer: bytes) -> tuple[bytes, bytes, bytes] | None:
    """(head, body, rest) of the first complete request in `buffer`; None while it is incomplete.

    ValueError when the request is larger than MAX_REQUEST (the connection is then dropped).

    >>> take_request(b"POST /move HTTP/1.1\\r\\nContent-Length: 2\\r\\n\\r\\n{}GET")
    (b'POST /move HTTP/1.1\\r\\nContent-Length: 2', b'{}', b'GET')
    """
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        if len(buffer) > MAX_REQUEST:
            raise ValueError("request head too large")
        return None
    head = buffer[:head_end]
    match = CONTENT_LENGTH.search(head)
    total = head_end + 4 + (int(match.group(1)) if match else 0)
    if total > MAX_REQUEST:
        raise ValueError("request too large")
    if len(buffer) < total:
        return None
    return head, buffer[head_end + 4:total], buffer[total:]


def is_move(head: bytes) -> bool:
    return b"/move" in head.split(b"\r\n", 1)[0]


def serve_connection(conn: socket.socket, delay_s: float = 0.0) -> None:
    """Answer requests on one kept-alive connection until the client hangs up (blocking I/O).

    A /move answer is sent `delay_s` after its request was read (the other requests are answered at once).
    """
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buffer = b""
    while True:
        try:
            request = take_request(buffer)
        except ValueError:
            return
        if request is None:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
            continue
        head, body, buffer = request
        reply = answer(head, body)
        if delay_s > 0 and is_move(head):
            time.sleep(delay_s)
        conn.sendall(reply)


class DelayLoop:
    """Every connection of the listeners in one event loop; a /move answer leaves `delay_s` after its request.

    For bots "far away" (``--delay-ms``): their answers wait on a timer, not in a sleeping process per
    connection. A bench of a few hundred matches in flight keeps a few hundred bot connections open, and a
    process per connection then means hundreds of processes to wake up on a 2-core machine: measured with a
    light client on a loaded machine, a few answers of a 20 ms bot took over a second.

    A loop of bots far away (a delay above 0) works on a `BEAT_S` beat: it sleeps out the rest of the beat,
    then reads every request that has come and sends every answer whose time has come, together (an answer
    leaves up to two beats after its time: 100 ms away is 100-102 ms). Waking for every request and every
    answer apart cost these stand-ins for hosts far away, whose work is not the arena machine's, about 1.5x
    the CPU per request of the same loop with no delay. With no delay, every request is answered at once.
    """

    BEAT_S = 0.001

    def __init__(self, listeners: list[socket.socket], delay_s: float) -> None:
        self.delay_s = delay_s
        self.selector = selectors.DefaultSelector()
        for listener in listeners:
            listener.setblocking(False)
            self.selector.register(listener, selectors.EVENT_READ, None)
        self.buffers: dict[socket.socket, bytes] = {}
        self.last_due: dict[socket.socket, float] = {}
        # A heap of the answers waiting for their time: (when, order, connection, answer).
        self.due: list[tuple[float, int, socket.socket, bytes]] = []
        self.order = itertools.count()

    def run(self, parent: int | None = None) -> None:
        """Forever; a forked copy (`parent`: the pid that forked it) ends once its parent has gone."""
        next_beat = time.monotonic()
        while parent is None or os.getppid() == parent:
            if self.delay_s > 0:
                rest = next_beat - time.monotonic()
                if rest > 0:
                    time.sleep(rest)
                next_beat = time.monotonic() + self.BEAT_S
            timeout = min(0.5, max(0.0, self.due[0][0] - time.monotonic())) if self.due else 0.5
            for key, _events in self.selector.select(timeout):
                if key.data is None:
                    self._accept(key.fileobj)  # type: ignore[arg-type]
                else:
                    self._read(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            while self.due and self.due[0][0] <= now:
                _when, _order, conn, reply = heapq.heappop(self.due)
                if conn in self.buffers:
                    try:
                        conn.sendall(reply)  # a small answer always fits the socket's send buffer
                    except OSError:
                        self._close(conn)

    def _accept(self, listener: socket.socket) -> None:
        try:
            conn, _addr = listener.accept()
        except OSError:  # another process of the same bots took it
            return
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.setblocking(False)
        self.selector.register(conn, selectors.EVENT_READ, "connection")
        self.buffers[conn] = b""

    def _read(self, conn: socket.socket) -> None:
        try:
            chunk = conn.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._close(conn)
            return
        buffer = self.buffers[conn] + chunk
        try:
            while (request := take_request(buffer)) is not None:
                head, body, buffer = request
                # Answers leave in request order: never before the one queued ahead of them.
                when = max(time.monotonic() + (self.delay_s if is_move(head) else 0.0),
                           self.last_due.get(conn, 0.0))
                self.last_due[conn] = when
                heapq.heappush(self.due, (when, next(self.order), conn, answer(head, body)))
        except ValueError:
            self._close(conn)
            return
        self.buffers[conn] = buffer

    def _close(self, conn: socket.socket) -> None:
        self.selector.unregister(conn)
        self.buffers.pop(conn, None)
        self.last_due.pop(conn, None)
        conn.close()


def _reap_children() -> None:
    """Collect finished children (waiting adds their CPU time to ours, where benches read it)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def run_fast_bots(ports: list[int], started: Callable[[list[int]], Any] | None = None,
                  host: str = "127.0.0.1", delay_s: float = 0.0, loops: int = 0) -> None:
    """Serve one bot per port (0: any free port) in the foreground, forking a child per connection, or with
    `loops` > 0 that many processes of one DelayLoop each, sharing the listeners.

    Call it in a process of its own (``start_fast_bots``, the CLI): it forks, so not from a threaded program.
    """
    listeners = [socket.create_server((host, port), backlog=1024) for port in ports]
    if started is not None:
        started([listener.getsockname()[1] for listener in listeners])
    if loops > 0:
        parent = os.getpid()
        for _ in range(loops - 1):
            if os.fork() == 0:
                DelayLoop(listeners, delay_s).run(parent)
                os._exit(0)
        DelayLoop(listeners, delay_s).run()
        return
    selector = selectors.DefaultSelector()
    for listener in listeners:
        selector.register(listener, selectors.EVENT_READ)
    while True:
        for key, _events in selector.select(timeout=0.5):
            try:
                conn, _addr = key.fileobj.accept()  # type: ignore[union-attr]
            except OSError:
                continue
            if os.fork() == 0:
                status = 0
                try:
                    selector.close()
                    for listener in listeners:
                        listener.close()
                    serve_connection(conn, delay_s)
                except OSError:
                    pass
                except BaseException:  # noqa: BLE001 - a bench bot's child must never return into the loop
                    status = 1
                finally:
                    os._exit(status)
            conn.close()
        _reap_children()


def _serve_in_child(count: int, ready: Any, ports: Any, delay_s: float, loops: int) -> None:
    def started(bound: list[int]) -> None:
        for i, port in enumerate(bound):
            ports[i] = port
        ready.set()

    run_fast_bots([0] * count, started=started, delay_s=delay_s, loops=loops)


def start_fast_bots(count: int, delay_ms: float = 0.0,
                    loops: int = 0) -> tuple[multiprocessing.Process, list[str]]:
    """`count` fast bots on free 127.0.0.1 ports in a fresh process, each /move answered after `delay_ms`
    (`loops` > 0: in that many event-loop processes, see DelayLoop); (process, base URLs)."""
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    ports = ctx.Array("i", count)
    process = ctx.Process(target=_serve_in_child, args=(count, ready, ports, delay_ms / 1000.0, loops),
                          daemon=True)
    process.start()
    if not ready.wait(20):
        process.terminate()
        raise RuntimeError("fast bots did not start")
    return process, [f"http://127.0.0.1:{port}" for port in ports]


@click.command()
@click.option("--ports", default="9101,9102,9103,9104", show_default=True)
@click.option("--delay-ms", default=0.0, show_default=True, help="Every /move answer waits this long.")
@click.option("--loops", default=0, show_default=True,
              help="0: a process per connection; N: N event-loop processes (for many connections).")
def main(ports: str, delay_ms: float, loops: int) -> None:
    """Very cheap protocol-v1 bots (first legal move) on 127.0.0.1, a process per connection (benches)."""
    run_fast_bots([int(p) for p in ports.split(",")],
                  started=lambda bound: click.echo(f"fast bots on ports {bound}"), delay_s=delay_ms / 1000.0,
                  loops=loops)


if __name__ == "__main__":
    main()

"""What the long-poll and watcher curves share: a real stack on loopback (throwaway Redis, gunicorn with the
production configuration) and a load generator that parks thousands of long-polls from a process of its own.

Design: docs/scaling.md#how-each-curve-is-measured
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import re
import resource
import select
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import psutil
import redis

from api import gunicorn_conf
from devstack import devserve
from devstack.devredis import free_port, start_throwaway

REPO_ROOT = Path(__file__).resolve().parents[2]
# Long-polls per loopback source address: the product's cap per address and worker process (Settings.
# max_long_polls_per_address, 500), so no address goes over it even if every one of its connections landed on
# the same worker.
PER_SOURCE = 500
CONNECTS_PER_TURN = 200  # new connections opened per turn of the load generator's loop (paces the SYNs)
ADMIN_TOKEN = "growth-" + "x" * 24


def raise_open_files() -> int:
    """Lift this process's soft open-files limit to its hard limit (inherited by what it starts)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


@dataclass
class Stack:
    base: str
    master_pid: int
    redis: redis.Redis
    prefix: str
    url: str

    def processes(self) -> list[psutil.Process]:
        master = psutil.Process(self.master_pid)
        return [master, *master.children()]

    def rss(self) -> int:
        return sum(process.memory_info().rss for process in self.processes())

    def cpu_seconds(self) -> float:
        total = 0.0
        for process in self.processes():
            times = process.cpu_times()
            total += times.user + times.system
        return total

    def commands(self) -> int:
        """Commands Redis has run so far (every kind, from `INFO commandstats`)."""
        stats = self.redis.info("commandstats")
        return sum(int(entry["calls"]) for entry in stats.values())

    def long_polls_held(self) -> int:
        """Long-polls the API's workers hold right now (its own gauge, read from /metrics)."""
        request = urllib.request.Request(f"{self.base}/metrics",
                                         headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            text = answer.read().decode()
        return int(sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                       if line.startswith("trickarena_long_polls_held{")))

    def post(self, path: str, body: dict[str, Any], token: str) -> dict[str, Any]:
        request = urllib.request.Request(f"{self.base}{path}", data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            result: dict[str, Any] = json.loads(answer.read())
            return result


@contextmanager
def stack(polls: int, workers: int = 2) -> Iterator[Stack]:
    """A throwaway Redis and the API under gunicorn with the production configuration as it is (its
    connections per worker included), open files raised as the service unit raises them. `polls` is what
    will be parked: more than the workers' connections together is refused here, not half-measured."""
    connections = gunicorn_conf.worker_connections * workers
    if polls > connections * 0.9:
        raise ValueError(f"{polls} long-polls need more than {workers} workers' connections ({connections}): "
                         "raise TA_WORKER_CONNECTIONS")
    raise_open_files()
    with ExitStack() as exits:
        server = start_throwaway()
        exits.callback(server.stop)
        metrics_dir = exits.enter_context(tempfile.TemporaryDirectory(prefix="ta-growth-metrics-"))
        port = free_port()
        prefix = "growth:"
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": prefix,
               "TA_BIND": f"127.0.0.1:{port}", "TA_WORKER_CLASS": "gevent", "TA_WORKERS": str(workers),
               "TA_LOG_LEVEL": "warning",
               "PROMETHEUS_MULTIPROC_DIR": metrics_dir, "TA_ADMIN_TOKEN": ADMIN_TOKEN,
               "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_METRICS_BIND", None)
        process = subprocess.Popen(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env,
                                   stdout=subprocess.DEVNULL)
        exits.callback(devserve.stop, process)
        base = f"http://127.0.0.1:{port}"
        devserve.wait_healthy(base, process)
        client = redis.Redis.from_url(server.url, decode_responses=True)
        exits.callback(client.close)
        yield Stack(base, process.pid, client, prefix, server.url)


# --- the load generator -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Poll:
    """One long-poll to hold: its path (without after/wait), bearer token or None, and the version it has."""

    path: str
    token: str | None
    after: int
    group: str  # what woke it is looked up by this (a table id)


def _request(poll: Poll, after: int, host: str) -> bytes:
    lines = [f"GET {poll.path}?after={after}&wait=30 HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
    if poll.token:
        lines.append(f"Authorization: Bearer {poll.token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _answer(buffer: bytearray) -> tuple[int, bytes] | None:
    """(status, body) of the complete HTTP/1.1 answer at the start of `buffer`, removed from it."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = bytes(buffer[:head_end]).split(b"\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head
                   if line.lower().startswith(b"content-length")), 0)
    end = head_end + 4 + length
    if len(buffer) < end:
        return None
    body = bytes(buffer[head_end + 4:end])
    del buffer[:end]
    return int(head[0].split()[1]), body


VERSION = re.compile(rb'"version":(\d+)')


def _version(body: bytes) -> int:
    """The table version of a seat's or the public table's answer (its one top-level "version" field comes
    before any nested one), found without decoding the whole answer: the load generator shares the cores."""
    found = VERSION.search(body)
    return int(found.group(1)) if found else int(json.loads(body)["version"])


class _Held:
    __slots__ = ("index", "poll", "after", "sock", "out", "buffer")

    def __init__(self, index: int, poll: Poll, sock: socket.socket) -> None:
        self.index, self.poll, self.after, self.sock = index, poll, poll.after, sock
        self.out = b""
        self.buffer = bytearray()


def _generate(address: tuple[str, int], polls: Sequence[Poll], repark: bool, pipe: Connection) -> None:
    """The load generator's process: hold `polls` open, report answers through `pipe`.

    An answer at a newer version is an update (timestamped, then re-parked at that version if `repark`, as a
    watcher does, else the connection is closed); an answer at the same version is a poll that waited its
    30 s out, and is re-parked like any client would.
    """
    raise_open_files()
    host = f"{address[0]}:{address[1]}"
    poller = select.epoll()
    poller.register(pipe.fileno(), select.EPOLLIN)
    held: dict[int, _Held] = {}
    updates: list[tuple[int, str, int, float]] = []  # (index, group, version, wall-clock time received)
    errors: list[str] = []
    timeouts = 0
    pending = list(enumerate(polls))[::-1]

    def send(entry: _Held) -> None:
        entry.out = _request(entry.poll, entry.after, host)
        flush(entry)

    def flush(entry: _Held) -> None:
        try:
            sent = entry.sock.send(entry.out)
        except BlockingIOError:
            sent = 0
        entry.out = entry.out[sent:]
        poller.modify(entry.sock.fileno(), select.EPOLLIN | (select.EPOLLOUT if entry.out else 0))

    def close(entry: _Held) -> None:
        held.pop(entry.sock.fileno(), None)
        poller.unregister(entry.sock.fileno())
        entry.sock.close()

    running = True
    while running:
        for _ in range(min(CONNECTS_PER_TURN, len(pending))):
            index, poll = pending.pop()
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind((f"127.0.0.{2 + index // PER_SOURCE}", 0))
            sock.setblocking(False)
            sock.connect_ex(address)
            entry = held[sock.fileno()] = _Held(index, poll, sock)
            poller.register(sock.fileno(), select.EPOLLOUT)
            entry.out = _request(poll, poll.after, host)
        for fd, events in poller.poll(0.02 if pending else 0.5):
            if fd == pipe.fileno():
                command = pipe.recv()
                if command == "status":
                    pipe.send({"parking": len(pending), "open": len(held), "updates": len(updates),
                               "timeouts": timeouts, "errors": errors[:5], "error_count": len(errors)})
                elif command == "updates":
                    pipe.send(updates)
                elif command == "stop":
                    running = False
                continue
            entry = held.get(fd)
            if entry is None:
                continue
            if events & (select.EPOLLERR | select.EPOLLHUP) and not events & select.EPOLLIN:
                errors.append(f"connection {entry.index} failed")
                close(entry)
                continue
            if events & select.EPOLLOUT and entry.out:
                flush(entry)
            if not events & select.EPOLLIN:
                continue
            try:
                chunk = entry.sock.recv(65536)
            except (BlockingIOError, ConnectionError) as error:
                if not isinstance(error, BlockingIOError):
                    errors.append(f"connection {entry.index}: {error}")
                    close(entry)
                continue
            if not chunk:
                errors.append(f"connection {entry.index} closed by the server")
                close(entry)
                continue
            entry.buffer += chunk
            answer = _answer(entry.buffer)
            if answer is None:
                continue
            received = time.time()
            status, body = answer
            if status != 200:
                errors.append(f"{status}: {body[:200].decode(errors='replace')}")
                close(entry)
                continue
            version = _version(body)
            if version > entry.after:
                updates.append((entry.index, entry.poll.group, version, received))
                if not repark:
                    close(entry)
                    continue
                entry.after = version
            else:
                timeouts += 1
            send(entry)
    for entry in list(held.values()):
        close(entry)
    poller.close()
    pipe.close()


class Parker:
    """The load generator, in a process of its own: `polls` held open against `base` until closed."""

    def __init__(self, base: str, polls: Sequence[Poll], repark: bool = False) -> None:
        host, port = base.removeprefix("http://").split(":")
        if len(polls) > PER_SOURCE * 250:
            raise ValueError("more long-polls than the loopback source addresses hold")
        self._pipe, child = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("fork").Process(
            target=_generate, args=((host, int(port)), list(polls), repark, child), daemon=True)
        self._process.start()
        child.close()

    def status(self) -> dict[str, Any]:
        self._pipe.send("status")
        status: dict[str, Any] = self._pipe.recv()
        return status

    def updates(self) -> list[tuple[int, str, int, float]]:
        self._pipe.send("updates")
        updates: list[tuple[int, str, int, float]] = self._pipe.recv()
        return updates

    def wait_updates(self, count: int, timeout: float) -> list[tuple[int, str, int, float]]:
        """The updates once at least `count` have arrived (or `timeout` seconds passed)."""
        deadline = time.monotonic() + timeout
        while self.status()["updates"] < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.updates()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._pipe.send("stop")
        self._process.join(10)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._pipe.close()

    def __enter__(self) -> Parker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def wait_parked(target: Stack, parker: Parker, count: int, timeout: float) -> float:
    """Seconds until the API holds `count` long-polls (its own gauge); RuntimeError if it never does."""
    began = time.monotonic()
    deadline = began + timeout
    while True:
        status = parker.status()
        if status["error_count"]:
            raise RuntimeError(f"long-polls refused while parking: {status['errors']}")
        if status["parking"] == 0 and target.long_polls_held() >= count:
            return time.monotonic() - began
        if time.monotonic() > deadline:
            held = target.long_polls_held()
            raise RuntimeError(f"only {held} of {count} long-polls parked in {timeout:g} s")
        time.sleep(0.2)


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def curve_module_main(prog: str, doc: str | None, what: str, default_sizes: Sequence[int],
                      quick_sizes: Sequence[int], measure_runs: Callable[..., list[dict[str, Any]]],
                      curves: Callable[[list[dict[str, Any]]], list[Any]],
                      argv: Sequence[str] | None) -> None:
    """`python -m tools.growth.longpoll` / `.watchers`: one curve module's figures as one JSON line, its
    curves (or, at a single size, which fits no exponent, the figures alone)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", help=f"comma-separated numbers of {what}")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, seconds")
    options = parser.parse_args(argv)
    try:
        sizes = [int(size) for size in options.sizes.split(",")] if options.sizes else None
    except ValueError:
        parser.error(f"--sizes takes numbers separated by commas, not {options.sizes!r}")
    chosen = sizes or list(quick_sizes if options.quick else default_sizes)
    runs = measure_runs(chosen, quick=options.quick)
    print(json.dumps([curve.as_json() for curve in curves(runs)] if len(set(chosen)) > 1 else runs))

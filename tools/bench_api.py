"""API benchmark (not a test): the app under gunicorn on loopback, driven by a load generator; prints JSON.
Design: docs/api.md#benchmark

    python -m tools.bench_api [--worker-class gevent|gthread] [--connections 16] [--duration 10]
        [--long-polls 0]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import secrets
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import redis

import engine
from core.tables.store import SeatKind, SeatSpec, TableStore
from devstack import devserve
from devstack.devredis import free_port, start_throwaway
from devstack.procstat import tree_cpu_seconds
from tools import bench_app

REPO_ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"get_vs_hello": 0.75, "post_vs_hello": 0.5, "p99_ms": 25.0}

def plan_moves(store: TableStore, tables: int, rng: random.Random) -> list[list[tuple[str, str, str]]]:
    """Deal `tables` four-seat Spot Hearts tables with known seeds; return each table's move requests."""
    per_table: list[list[tuple[str, str, str]]] = []
    for _ in range(tables):
        seed = rng.getrandbits(32)
        record = store.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, seed=seed)
        tokens = [store.join(record.table_id, seat) for seat in range(4)]
        game = engine.new_game("spot-hearts", 4, record.options, seed=seed)
        sequence = []
        while not game.over:
            for seat in game.to_act():
                decision = game.decision(seat)
                legal = decision["legal"]
                pass_phase = decision["kind"] == "pass"
                move: Any = rng.sample(legal, decision["count"]) if pass_phase else rng.choice(legal)
                body = json.dumps({"move": move, "expected_version": game.version})
                game.apply(seat, move)
                sequence.append((f"/api/tables/{record.table_id}/seats/{seat}/moves", tokens[seat], body))
        per_table.append(sequence)
    return per_table


def bench_redis(stack: ExitStack, label: str) -> tuple[str, str, redis.Redis]:
    """(URL, key prefix, decoding client) of the Redis to measure on: $REDIS_URL under a unique prefix whose
    keys are deleted when `stack` closes, else a throwaway redis-server that `stack` stops."""
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        server = start_throwaway()
        stack.callback(server.stop)
        redis_url = server.url
    prefix = f"{label}:{secrets.token_hex(4)}:"
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    stack.callback(lambda: [client.delete(k) for k in client.scan_iter(f"{prefix}*", count=1000)])
    return redis_url, prefix, client


@contextmanager
def gunicorn_server(redis_url: str, prefix: str, worker_class: str, workers: int) -> Any:
    port = free_port()
    # The workers count into a metrics directory of their own, as under `make run` (docs/metrics.md): every
    # request measured pays what it pays in service.
    metrics_dir = tempfile.TemporaryDirectory(prefix="ta-bench-metrics-")
    env = {**os.environ, "REDIS_URL": redis_url, "TA_KEY_PREFIX": prefix, "TA_BIND": f"127.0.0.1:{port}",
           "TA_WORKER_CLASS": worker_class, "TA_WORKERS": str(workers), "TA_LOG_LEVEL": "warning",
           "TA_LIMIT_TABLE_CREATION": "100000/minute", "PROMETHEUS_MULTIPROC_DIR": metrics_dir.name,
           "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(devserve.gunicorn_command(bench_app.APP), cwd=REPO_ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        devserve.wait_healthy(base, process)
        yield base, process.pid
    finally:
        devserve.stop(process)
        metrics_dir.cleanup()


class LongPolls:
    """K raw-socket long-polls kept parked on the server (re-issued as each one times out)."""

    def __init__(self, base: str, path: str, token: str, count: int) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.address = (host, int(port))
        self.request = (f"GET {path}?after=1000000&wait=30 HTTP/1.1\r\nHost: {host}\r\n"
                        f"Authorization: Bearer {token}\r\nConnection: keep-alive\r\n\r\n").encode()
        self.count = count
        self.stop = threading.Event()
        self.answered = 0
        self.threads = [threading.Thread(target=self._run, daemon=True) for _ in range(count)]

    def _run(self) -> None:
        with socket.create_connection(self.address) as sock:
            sock.settimeout(40)
            while not self.stop.is_set():
                sock.sendall(self.request)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, rest = data.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(rest) < length:
                    rest += sock.recv(65536)
                self.answered += 1

    def __enter__(self) -> LongPolls:
        for thread in self.threads:
            thread.start()
        time.sleep(2)  # let them all park
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()


def http_request(method: str, path: str, token: str | None = None, body: str | None = None) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: keep-alive"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    payload = (body or "").encode()
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


class _Connection:
    """One keep-alive connection of the load generator: its stream of requests, the request in flight (sent
    at `sent`), and what has arrived of its answer."""

    __slots__ = ("sock", "stream", "buffer", "sent", "latencies", "errors")

    def __init__(self, sock: socket.socket, stream: Iterator[bytes]) -> None:
        self.sock, self.stream, self.buffer, self.sent = sock, stream, bytearray(), 0.0
        self.latencies: list[float] = []
        self.errors = 0


def _complete_response(buffer: bytearray) -> tuple[int, bytes] | None:
    """(status, body) of the keep-alive HTTP/1.1 response (with a Content-Length) at the start of `buffer`,
    removed from it; None while it has not all arrived."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = bytes(buffer[:head_end]).split(b"\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head if line.lower().startswith(b"content-length"))
    end = head_end + 4 + length
    if len(buffer) < end:
        return None
    body = bytes(buffer[head_end + 4: end])
    del buffer[:end]
    return int(head[0].split()[1]), body


def load_run(base: str, streams: list[Iterator[bytes]], duration: float) -> dict[str, Any]:
    """One keep-alive connection per stream, each sending its requests in order for `duration` seconds.

    A stream's requests are sent one after the other on its own connection, so a stream of moves stays in
    order: every POST is legal at its version (streams are iterators, so a later run goes on where this one
    stopped). Returns req/s, latency percentiles and the non-2xx count.

    One thread drives every connection from an epoll loop. Not a thread per connection: those share one GIL,
    and a thread whose answer had arrived waited its turn for the GIL, which the latencies then counted as
    the server's (and the switching cost CPU the server shares). Not arena.http1 either: it re-arms a
    deadline before every read (a timeout syscall and a poll per recv), which untrusted bots need and a load
    generator sharing 2 cores with the server must not spend.
    """
    host, port = base.removeprefix("http://").split(":")
    connections: dict[int, _Connection] = {}
    poller = select.epoll()
    samples: list[str] = []
    exhausted = 0
    try:
        for stream in streams:
            sock = socket.create_connection((host, int(port)))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # Blocking sockets: epoll says when an answer has arrived, so a recv never waits, and a request
            # this small always fits the send buffer.
            connections[sock.fileno()] = _Connection(sock, stream)
            poller.register(sock.fileno(), select.EPOLLIN)

        def send_next(connection: _Connection) -> bool:
            request = next(connection.stream, None)
            if request is None:
                return False
            connection.sent = time.perf_counter()
            connection.sock.sendall(request)
            return True

        began = time.perf_counter()
        deadline = began + duration
        busy = 0
        for connection in connections.values():
            if send_next(connection):
                busy += 1
            else:
                exhausted += 1
        while busy:
            for fd, _ in poller.poll(1.0):
                connection = connections[fd]
                chunk = connection.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                connection.buffer += chunk
                response = _complete_response(connection.buffer)
                if response is None:
                    continue
                now = time.perf_counter()
                connection.latencies.append(now - connection.sent)
                status, body = response
                if status >= 300:
                    connection.errors += 1
                    if len(samples) < 3:
                        samples.append(f"{status}: {body[:300].decode(errors='replace')}")
                if now >= deadline:
                    busy -= 1
                elif not send_next(connection):
                    exhausted += 1
                    busy -= 1
        elapsed = time.perf_counter() - began
    finally:
        poller.close()
        for connection in connections.values():
            connection.sock.close()
    every = sorted(value for connection in connections.values() for value in connection.latencies)

    def percentile(fraction: float) -> float:
        return round(every[min(len(every) - 1, int(fraction * len(every)))] * 1000, 3)

    result = {"req_per_s": round(len(every) / elapsed, 1), "p50_ms": percentile(0.50),
              "p90_ms": percentile(0.90), "p99_ms": percentile(0.99), "requests": len(every),
              "errors": sum(connection.errors for connection in connections.values())}
    if samples:
        result["error_samples"] = samples
    if exhausted:
        result["note"] = f"{exhausted} connection(s) ran out of planned moves: raise --tables"
    return result


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median throughput (its own latencies and counts, not a blend of runs)."""
    return sorted(runs, key=lambda run: run["req_per_s"])[len(runs) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker-class", default=os.environ.get("TA_WORKER_CLASS", "gevent"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--tables", type=int, default=200,
                        help="tables each round's POST run plays (split over connections): ~690 moves each")
    parser.add_argument("--long-polls", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="hello/GET/POST rounds; the median is reported")
    options = parser.parse_args()
    with ExitStack() as stack:
        redis_url, prefix, client = bench_redis(stack, "tabench")
        store = TableStore(client, prefix)
        rng = random.Random(options.seed)
        watched = store.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4,
                                     seed=rng.getrandbits(32))
        token = store.join(watched.table_id, 0)
        state_path = f"/api/tables/{watched.table_id}/seats/0"

        base, server_pid = stack.enter_context(
            gunicorn_server(redis_url, prefix, options.worker_class, options.workers))

        def measured(streams: list[Iterator[bytes]]) -> dict[str, Any]:
            # Server CPU per request is what bounds throughput, and unlike latency it barely moves when
            # other processes compete for the cores.
            # Redis's and the load generator's share show what else the cores spent on each request.
            cpu_before, redis_before = tree_cpu_seconds([server_pid]), redis_cpu()
            client_before = time.process_time()
            result = load_run(base, streams, options.duration)
            requests = max(1, result["requests"])
            for key, spent in (("server_cpu_ms_per_request", tree_cpu_seconds([server_pid]) - cpu_before),
                               ("redis_cpu_ms_per_request", redis_cpu() - redis_before),
                               ("client_cpu_ms_per_request", time.process_time() - client_before)):
                result[key] = round(spent * 1000 / requests, 3)
            return result

        def redis_cpu() -> float:
            info = client.info("cpu")
            return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

        polls = stack.enter_context(LongPolls(base, state_path, token, options.long_polls)) \
            if options.long_polls else None
        connections = options.connections
        hello_request = http_request("GET", "/api/hello")
        state_request = http_request("GET", state_path, token)

        def move_streams() -> list[Iterator[bytes]]:
            """Fresh tables for one POST run, each connection's share of their moves in order."""
            move_lists: list[list[bytes]] = [[] for _ in range(connections)]
            for index, table_moves in enumerate(plan_moves(store, options.tables, rng)):
                move_lists[index % connections] += [http_request("POST", p, t, b) for p, t, b in table_moves]
            return [iter(requests) for requests in move_lists]

        load_run(base, [itertools.repeat(hello_request)] * connections, 2)  # warm-up: imports, pools

        # Rounds of hello / GET / POST back to back: the machine's other load drifts, and a ratio taken
        # within one round compares runs seconds apart. The median round is reported.
        rounds = []
        for _ in range(options.rounds):
            streams = move_streams()  # dealt before the round's runs, so no run measures the dealing
            hello = measured([itertools.repeat(hello_request) for _ in range(connections)])
            get_state = measured([itertools.repeat(state_request) for _ in range(connections)])
            post_move = measured(streams)
            rounds.append({
                "hello": hello, "get_seat_state": get_state, "post_move": post_move,
                "get_vs_hello": round(get_state["req_per_s"] / hello["req_per_s"], 3),
                "post_vs_hello": round(post_move["req_per_s"] / hello["req_per_s"], 3),
                "get_vs_hello_by_server_cpu": round(hello["server_cpu_ms_per_request"]
                                                    / get_state["server_cpu_ms_per_request"], 3),
                "post_vs_hello_by_server_cpu": round(hello["server_cpu_ms_per_request"]
                                                     / post_move["server_cpu_ms_per_request"], 3),
            })
        median_keys = ("get_vs_hello", "post_vs_hello",
                       "get_vs_hello_by_server_cpu", "post_vs_hello_by_server_cpu")
        result = {
            "command": " ".join(["python -m tools.bench_api", *sys.argv[1:]]),
            "worker_class": options.worker_class, "workers": options.workers,
            "connections": options.connections, "duration_s": options.duration, "rounds": options.rounds,
            "long_polls_parked": options.long_polls, "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "ratios_median": {key: statistics.median(r[key] for r in rounds) for key in median_keys},
            "median": {kind: _median_run([r[kind] for r in rounds])
                       for kind in ("hello", "get_seat_state", "post_move")},
            "rounds_detail": rounds,
        }
        hello, get_state, post_move = (result["median"][k] for k in ("hello", "get_seat_state", "post_move"))
        result["ratios"] = {"get_vs_hello": result["ratios_median"]["get_vs_hello"],
                            "post_vs_hello": result["ratios_median"]["post_vs_hello"]}
        if polls is not None:
            result["long_polls_answered"] = polls.answered  # each answers after its 30 s wait, then re-parks
        every_run = [r[kind] for r in rounds for kind in ("hello", "get_seat_state", "post_move")]
        result["targets_met"] = {
            "get_vs_hello>=0.75": result["ratios"]["get_vs_hello"] >= TARGETS["get_vs_hello"],
            "post_vs_hello>=0.5": result["ratios"]["post_vs_hello"] >= TARGETS["post_vs_hello"],
            "p99<25ms": all(r["p99_ms"] < TARGETS["p99_ms"] for r in (hello, get_state, post_move)),
            "zero_errors": all(r["errors"] == 0 for r in every_run),
        }
        print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

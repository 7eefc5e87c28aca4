"""`python -m tools.arena_bench_http`: which HTTP client should call bots? Measure, don't guess.

Each client runs a bare keep-alive loop of POST /move against the same fast stdlib bot (devstack.fastbot:
TCP_NODELAY, a process per connection), then the arena's own BotClient (arena.http1: one send per request,
a deadline on every read, SSRF guard, reply parsing) does the same.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import time
from collections.abc import Callable

import click

from arena.botclient import BotClient

SAMPLE_REQUEST = {
    "protocol": 1, "game": "spot-hearts", "table": "bench", "match": "bench", "seat": 0,
    "decision": {"kind": "play", "count": 1, "legal": ["2C", "5D", "QS"]}, "deadline_ms": 1000,
    "view": {"hand": ["2C", "5D", "QS", "AH", "TH"], "trick": [], "scores": [0, 0, 0, 0]},
    "legal": ["2C", "5D", "QS"],
}


def _time_loop(call: Callable[[], object], calls: int, repeat: int = 3) -> dict[str, float]:
    """Best of `repeat` timed runs (background load only ever slows a run down)."""
    for _ in range(min(200, calls)):  # warm up: connection open, code paths hot
        call()
    best: tuple[float, list[float]] | None = None
    for _ in range(repeat):
        latencies = []
        start = time.perf_counter()
        for _ in range(calls):
            t0 = time.perf_counter()
            call()
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best[0]:
            best = (elapsed, latencies)
    elapsed, latencies = best
    latencies.sort()
    return {
        "calls_per_s": round(calls / elapsed, 1),
        "mean_us": round(statistics.fmean(latencies) * 1e6, 1),
        "p50_us": round(latencies[len(latencies) // 2] * 1e6, 1),
        "p99_us": round(latencies[int(len(latencies) * 0.99)] * 1e6, 1),
    }


def http_client_loop(url: str) -> Callable[[], object]:
    host, port = url.split("://", 1)[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    body = json.dumps(SAMPLE_REQUEST).encode()
    headers = {"Content-Type": "application/json"}

    def call() -> object:
        conn.request("POST", "/move", body=body, headers=headers)
        response = conn.getresponse()
        return json.loads(response.read())

    return call


def requests_loop(url: str) -> Callable[[], object]:
    import requests

    session = requests.Session()

    def call() -> object:
        return session.post(f"{url}/move", json=SAMPLE_REQUEST, timeout=5, allow_redirects=False).json()

    return call


def httpx_loop(url: str) -> Callable[[], object]:
    import httpx

    client = httpx.Client(timeout=5, follow_redirects=False)

    def call() -> object:
        return client.post(f"{url}/move", json=SAMPLE_REQUEST).json()

    return call


def botclient_loop(url: str) -> Callable[[], object]:
    client = BotClient(url, allow_private=True)

    def call() -> object:
        move, result = client.move(SAMPLE_REQUEST, 5.0)  # generous: a bench must not fail on a stalled VM
        if move is None:
            raise RuntimeError(f"bench bot failed: {result}")
        return move

    return call


def run(calls: int = 3000) -> dict[str, object]:
    from devstack.fastbot import start_fast_bots

    process, urls = start_fast_bots(1)
    try:
        results: dict[str, object] = {}
        for name, factory in [("http.client", http_client_loop), ("requests", requests_loop),
                              ("httpx", httpx_loop), ("arena BotClient (arena.http1)", botclient_loop)]:
            results[name] = _time_loop(factory(urls[0]), calls)
        return {"bench": "bench-http", "calls": calls, "loadavg": [round(x, 2) for x in os.getloadavg()],
                "server": "devstack.fastbot (stdlib sockets, TCP_NODELAY, a process per connection)",
                "clients": results}
    finally:
        process.terminate()


@click.command()
@click.option("--calls", default=3000, show_default=True, help="Calls per client.")
def main(calls: int) -> None:
    """Bare keep-alive loops: http.client vs requests vs httpx vs the arena BotClient (JSON)."""
    click.echo(json.dumps(run(calls)))


if __name__ == "__main__":
    main()

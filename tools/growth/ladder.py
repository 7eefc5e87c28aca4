"""Bots on a ladder: the scheduler's tick, its Redis commands, matchmaking's quality, the ladder's API and web
page, as the bots registered on one ladder grow.

Design: docs/scaling.md#how-each-curve-is-measured
"""

from __future__ import annotations

import contextlib
import http.client
import os
import random
import statistics
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from rq import Queue

from arena.matchmaking import MatchmakingConfig
from arena.scheduler import Scheduler
from core.arena.model import LadderConfig, MatchResult, MatchSpec, MatchStatus, Member, MemberKind
from core.arena.presence import seats_call
from core.arena.registry import BotQuota, BotRegistry
from core.arena.store import ArenaStore
from core.redis.connections import decoding_client
from core.settings import Settings
from devstack.devredis import free_port, start_throwaway
from devstack.devserve import gunicorn_command, stop, wait_healthy
from tools.growth.fit import FLAT, Curve

DEFAULT_SIZES = (100, 1_000, 10_000)
QUICK_SIZES = (40, 120)
PREFIX = "growth:"
LADDER = "growth-4p"
PRESENT_SHARE = 10  # one bot in ten is present
TICK_LIMIT_MS = 100.0
WORKER = "growth-worker"
UNLIMITED = BotQuota(per_address=10**9, per_owner_per_ladder=10**9, per_account=10**9)


@dataclass
class SizeFigures:
    tick_ms: float
    commands_per_tick: float
    gap_ratio: float
    api_ms: float
    api_p99_ms: float
    api_bytes: int
    web_ms: float
    web_p99_ms: float
    web_bytes: int


def ladder_config(present: int) -> LadderConfig:
    """A 4-player Spot Hearts ladder without house bots that keeps every present bot busy."""
    return LadderConfig(ladder_id=LADDER, game="spot-hearts", players=4, house_bots=(),
                        max_active=max(1, present // 4))


def populate(conn: redis.Redis, n: int, rng: random.Random) -> tuple[ArenaStore, list[str]]:
    """Register n polling bots and give them spread ratings through rated matches of four."""
    registry = BotRegistry(decoding_client(conn), PREFIX, quota=UNLIMITED)
    bot_ids = [registry.register(f"growth-{i}", ["spot-hearts"], None, address=f"10.0.{i // 250}.{i % 250}")
               [0]["bot_id"] for i in range(n)]
    store = ArenaStore(conn, PREFIX)
    store.save_ladder(ladder_config(n // PRESENT_SHARE))
    rng.shuffle(bot_ids)
    for start in range(0, n - n % 4, 4):
        finish(store, bot_ids[start:start + 4], {b: rng.gauss(0.0, 200.0) for b in bot_ids[start:start + 4]})
    return store, bot_ids


def finish(store: ArenaStore, table: Sequence[str], deltas: dict[str, float],
           spec: dict[str, Any] | None = None) -> None:
    """Apply a rated result for `table` as an arena worker does (its own match when `spec` is None)."""
    members = [Member(b, MemberKind.POLL, name=b) for b in table]
    match = (MatchSpec.from_json(spec) if spec is not None else
             MatchSpec(f"m{random.getrandbits(64):016x}", LADDER, "spot-hearts", 4, {}, 1, True, members,
                       1000, 5, {b: 1500.0 for b in table}, {b: 0 for b in table}, created=time.time()))
    order = sorted(table, key=lambda b: -deltas[b])
    result = MatchResult(match.match_id, totals={b: 0 for b in table},
                         places={b: float(order.index(b) + 1) for b in table}, deltas=deltas,
                         winners=order[:1], forfeited=[], strikes=[], calls={}, games=[], records=[], seed=1)
    doc = {"match_id": match.match_id, "ladder_id": LADDER, "status": MatchStatus.RUNNING.value,
           "spec": match.to_json(), "attempts": 1, "created": match.created}
    store.apply_result(match, result, doc)


def commands_total(conn: redis.Redis) -> int:
    return sum(int(stats["calls"]) for stats in conn.info("commandstats").values())


def gap_ratio(spec: dict[str, Any], free: dict[str, float], matches: dict[str, int],
              band: int = MatchmakingConfig().matches_band) -> float:
    """The table's mean rating gap to its first pick over the smallest it could have had among the free bots
    of the same priority (matchmaking seats the bots owed most matches first, in bands, then by rating)."""
    entrants = [m["bot_id"] for m in spec["entrants"]]
    ratings = spec["pre_ratings"]
    first = ratings[entrants[0]]
    least = min(matches.values())
    chosen = statistics.fmean(abs(ratings[b] - first) for b in entrants[1:])
    ordered = sorted(((matches[b] - least) // band, abs(r - first))
                     for b, r in free.items() if b != entrants[0])
    best = statistics.fmean(gap for _, gap in ordered[:len(entrants) - 1])
    return chosen / best if best > 0 else 1.0


def steady_ticks(store: ArenaStore, conn: redis.Redis, scheduler: Scheduler, ticks: int, present: set[str],
                 rng: random.Random) -> tuple[list[float], list[int], list[float]]:
    """Fill the ladder, then `ticks` timed ticks, each after one running match finished."""
    scheduler.tick()  # joins every bot and fills every table: not the steady state
    for match_id in store.active_matches(LADDER):
        store.start_attempt(match_id, WORKER, 3600.0)  # as a worker taking the match does
    times: list[float] = []
    commands: list[int] = []
    ratios: list[float] = []
    for _ in range(ticks):
        active = store.active_matches(LADDER)
        doc = store.match(rng.choice(active))
        assert doc is not None
        entrants = [m["bot_id"] for m in doc["spec"]["entrants"]]
        finish(store, entrants, {b: rng.gauss(0.0, 10.0) for b in entrants}, doc["spec"])
        busy = {m["bot_id"] for d in store.match_docs(store.active_matches(LADDER)) if d
                for m in d["spec"]["entrants"]}
        ratings = store.ratings(LADDER)
        free = {b: ratings[b] for b in present - busy}
        matches = {b: int(stats["matches"] or 0) for b, stats in store.stats(LADDER, list(free)).items()}
        before_ids = set(store.active_matches(LADDER))
        before = commands_total(conn)
        started = time.perf_counter()
        scheduler.tick()
        times.append((time.perf_counter() - started) * 1000)
        commands.append(commands_total(conn) - before - 1)  # less the INFO that read the count
        for match_id in set(store.active_matches(LADDER)) - before_ids:
            created = store.match(match_id)
            if created is not None:
                ratios.append(gap_ratio(created["spec"], free, matches))
                store.start_attempt(match_id, WORKER, 3600.0)
    return times, commands, ratios


def timed_gets(port: int, path: str, count: int) -> tuple[list[float], int]:
    """`count` keep-alive GETs of `path`: latencies (ms) and the bytes of the last answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    size = 0
    try:
        for _ in range(count):
            started = time.perf_counter()
            conn.request("GET", path)
            answer = conn.getresponse()
            body = answer.read()
            times.append((time.perf_counter() - started) * 1000)
            if answer.status != 200:
                raise RuntimeError(f"GET {path} answered {answer.status}: {body[:300]!r}")
            size = len(body)
    finally:
        conn.close()
    return times, size


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]


@contextlib.contextmanager
def api_server(redis_url: str) -> Iterator[int]:
    """The API and web page under gunicorn as the Procfile runs it, one worker, limits off."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "TA_KEY_PREFIX": PREFIX, "TA_BIND": f"127.0.0.1:{port}",
           "TA_WORKERS": "1", "TA_RATELIMIT_ENABLED": "false"}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen(gunicorn_command(), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process)
        yield port
    finally:
        stop(process)


def measure_size(conn: redis.Redis, port: int, n: int, ticks: int, requests: int) -> SizeFigures:
    rng = random.Random(n)
    conn.flushall()  # our own throwaway server
    store, bot_ids = populate(conn, n, rng)
    with contextlib.ExitStack() as present:
        for bot_id in bot_ids[:n // PRESENT_SHARE]:  # held long-polls: present for the whole run
            present.enter_context(seats_call(conn, PREFIX, bot_id, 3600.0))
        scheduler = Scheduler(store, Queue(f"{PREFIX}arena", connection=conn),
                              Settings(redis_url="", prefix=PREFIX, allow_private_urls=True),
                              rng=random.Random(n))
        present_ids = set(bot_ids[:n // PRESENT_SHARE])
        times, commands, ratios = steady_ticks(store, conn, scheduler, ticks, present_ids, rng)
        timed_gets(port, f"/api/ladders/{LADDER}", 3)  # warm the worker
        api, api_bytes = timed_gets(port, f"/api/ladders/{LADDER}", requests)
        web, web_bytes = timed_gets(port, f"/ladders/{LADDER}", requests)
    return SizeFigures(round(statistics.median(times), 2), statistics.median(commands),
                       round(statistics.fmean(ratios), 3) if ratios else 1.0,
                       round(statistics.median(api), 2), round(p99(api), 2), api_bytes,
                       round(statistics.median(web), 2), round(p99(web), 2), web_bytes)


def measure(sizes: Sequence[int] | None = None, *, quick: bool = False) -> list[Curve]:
    """The ladder's curves at `sizes` registered bots (default 100, 1,000, 10,000; quick: two tiny ones)."""
    sizes = tuple(sizes or (QUICK_SIZES if quick else DEFAULT_SIZES))
    ticks, requests = (3, 5) if quick else (15, 60)
    server = start_throwaway()
    try:
        conn = redis.Redis.from_url(server.url)
        with api_server(server.url) as port:
            figures = [measure_size(conn, port, n, ticks, requests) for n in sizes]
        conn.close()
    finally:
        server.stop()
    return curves(sizes, figures)


def curves(sizes: tuple[int, ...], figures: list[SizeFigures]) -> list[Curve]:
    axis = "registered bots (a tenth present)"

    def col(name: str) -> tuple[float, ...]:
        return tuple(float(getattr(f, name)) for f in figures)

    return [
        Curve("ladder.tick_ms", "scheduler tick (one table refilled)", "ms", sizes, col("tick_ms"), axis,
              max_exponent=None, limit=TICK_LIMIT_MS,
              note="median of steady-state ticks; goal: under 100 ms at the largest size"),
        Curve("ladder.tick_commands", "Redis commands per tick", "commands", sizes, col("commands_per_tick"),
              axis, max_exponent=FLAT, note="INFO commandstats delta, median tick"),
        Curve("ladder.match_gap", "matchmaking: rating gap over the closest possible", "ratio", sizes,
              col("gap_ratio"), axis, max_exponent=FLAT,
              note="1.0: the first pick's closest-rated free bots of its band (bots who met often are kept "
                   "apart first, which costs closeness on small ladders); no worse as n grows"),
        Curve("ladder.api_ms", "GET /api/ladders/{id}: median latency", "ms", sizes, col("api_ms"), axis,
              extra={"p99_ms": list(col("api_p99_ms"))}),
        Curve("ladder.api_bytes", "GET /api/ladders/{id}: bytes (first page)", "bytes", sizes,
              col("api_bytes"), axis),
        Curve("ladder.web_ms", "ladder web page: median latency", "ms", sizes, col("web_ms"), axis,
              extra={"p99_ms": list(col("web_p99_ms"))}),
        Curve("ladder.web_bytes", "ladder web page: bytes (first page)", "bytes", sizes, col("web_bytes"),
              axis),
    ]

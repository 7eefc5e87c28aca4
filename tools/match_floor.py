"""`python -m tools.match_floor`: what one match in flight holds in an arena worker's memory, part by part,
and what each way of running it (greenlet, thread, coroutine, an RQ worker) adds on top. Prints JSON.
Design: docs/arena.md#memory-per-match-in-flight

    python -m tools.match_floor [--matches 1000] [--depth 25]
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import click

from engine import compiled

compiled.activate()  # the compiled rules when built, as the arena's workers play them (arena/__main__.py)

# What a match holds whatever runs it, built from the arena's own classes; "state" is all of them at once.
STATE_PARTS = ("spec", "game", "connections", "bookkeeping", "job", "state")
# What runs a match: each holds N waiters `depth` calls deep and nothing else.
RUNNERS = ("greenlet", "thread", "coroutine", "rq-worker")
GAME, OPTIONS, PLAYERS = "spot-hearts", {"target": 100}, 4  # tools.arena_bench's matches
GAME_SEED = 7


def resident_bytes() -> int:
    """arena.workers' reading, imported when first needed: a part that runs on gevent patches first."""
    from arena.workers import resident_bytes as rss

    return rss()


def per_match_kib(build: Callable[[int], Any], matches: int,
                  settle: Callable[[], None] = lambda: None) -> float:
    """RSS added per match by `build(i)` for `matches` matches (all kept alive until measured)."""
    import gc

    gc.collect()
    base = resident_bytes()
    held = [build(i) for i in range(matches)]
    settle()
    gc.collect()
    added = resident_bytes() - base
    del held
    return round(added / matches / 1024, 2)


def half_played_game() -> Callable[[], Any]:
    """A factory of games half played (random legal moves from one seed): a match in flight is on average
    halfway through its game."""
    import random

    import engine
    from engine.bots.base import choose_random
    from tools.training_bench import play_random

    full = engine.new_game(GAME, PLAYERS, OPTIONS, seed=GAME_SEED)
    play_random(full, random.Random(GAME_SEED))

    def halfway() -> Any:
        game, rng = engine.new_game(GAME, PLAYERS, OPTIONS, seed=GAME_SEED), random.Random(GAME_SEED)
        while game.version < full.version // 2:  # the same random moves as the full game's first half
            for seat in game.to_act():
                game.apply(seat, choose_random(rng, game.decision(seat)))
        return game

    return halfway


def state_builder(part: str) -> Callable[[int], Any]:
    import socket

    import redis
    from rq.job import Job

    from arena.botclient import BotClient
    from arena.drivers import HttpDriver, SeatDriver
    from arena.http1 import Connection
    from arena.match import MatchRunner
    from core.arena.decisions import LoggedDecision
    from core.arena.model import MatchSpec, Member, MemberKind

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    port = listener.getsockname()[1]
    game_of = half_played_game()
    moves = game_of().version
    peers: list[socket.socket] = [listener]  # the bots' ends of the connections, kept open
    jobs_redis = redis.Redis(host="127.0.0.1", port=port)  # never connects: creating a job object only
    wanted = set(STATE_PARTS[1:-1]) if part == "state" else {part}

    def build(i: int) -> dict[str, Any]:
        entrants = [Member(f"bot{i}-{s}", MemberKind.HTTP, url=f"http://127.0.0.1:{port}/b{s}")
                    for s in range(PLAYERS)]
        spec = MatchSpec(f"m{i:08d}", "bench", GAME, PLAYERS, dict(OPTIONS), 1000 + i, False, entrants,
                         1000, 5, {m.bot_id: 1500.0 for m in entrants}, {m.bot_id: 10 for m in entrants})
        held: dict[str, Any] = {"spec": spec}
        if "game" in wanted:
            held["game"] = game_of()
        clients = [BotClient(m.url or "", allow_private=True) for m in entrants]
        if "connections" in wanted:
            for client in clients:
                client._conn = Connection(socket.create_connection(("127.0.0.1", port)))
                peers.append(listener.accept()[0])
            held["clients"] = clients
        if "bookkeeping" in wanted:
            drivers: dict[str, SeatDriver] = {m.bot_id: HttpDriver(c)
                                              for m, c in zip(entrants, clients, strict=True)}
            runner = MatchRunner(spec, drivers)
            for seat, member in enumerate(entrants):  # each bot's calls and decisions of the half-played game
                for version in range(seat, moves, PLAYERS):
                    runner.calls[member.bot_id].add("move", "ok", 103.2)
                    runner.decisions[member.bot_id].add(LoggedDecision(0, version, seat, 103.2, "ok"))
            held["runner"] = runner
        if "job" in wanted:
            held["job"] = Job.create("arena.jobs.run_match", args=(spec.match_id, "ta"),
                                     connection=jobs_redis)
        return held

    return build


def deep(depth: int, wait: Callable[[], Any]) -> Any:
    return wait() if depth == 0 else deep(depth - 1, wait)


async def deep_async(depth: int, wait: Callable[[], Any]) -> Any:
    return await wait() if depth == 0 else await deep_async(depth - 1, wait)


def runner_kib(part: str, matches: int, depth: int) -> float:
    if part == "coroutine":
        import asyncio

        loop = asyncio.new_event_loop()
        never = loop.create_future()  # each task waits on it, as on a bot's answer
        kib = per_match_kib(lambda i: loop.create_task(deep_async(depth, lambda: asyncio.shield(never))),
                            matches, lambda: loop.run_until_complete(asyncio.sleep(0.5)))
        never.cancel()  # the tasks end before the loop closes
        loop.run_until_complete(asyncio.gather(*asyncio.all_tasks(loop), return_exceptions=True))
        loop.close()
        return kib
    import gevent  # type: ignore[import-untyped]
    import gevent.event  # type: ignore[import-untyped]

    never = gevent.event.Event()
    if part == "greenlet":
        return per_match_kib(lambda i: gevent.spawn(deep, depth, never.wait), matches,
                             lambda: gevent.sleep(1))
    if part == "thread":
        def start(i: int) -> threading.Thread:
            thread = threading.Thread(target=deep, args=(depth, never.wait), daemon=True)
            thread.start()
            return thread

        return per_match_kib(start, matches, lambda: gevent.sleep(1))
    return rq_worker_kib(matches, depth)


# The rq-worker part's jobs wait on it. RQ imports this module by name (not as __main__), after gevent's
# patch: a gevent event.
RELEASE = threading.Event()


def wait_for_release(depth: int) -> None:
    """The rq-worker part's job: it holds its worker, `depth` calls deep, until the measurement is taken."""
    deep(depth, RELEASE.wait)


def rq_worker_kib(matches: int, depth: int) -> float:
    """A WorkerPool (the arena's match workers) with `matches` jobs in flight that only wait (`depth` calls
    below RQ's own): an RQ worker, a thread and a job each, nothing of a match."""
    from rq import Queue

    from arena.workers import REDIS_CONNECTIONS, REDIS_WAIT_S, Admission, WorkerPool
    from core.redis.connections import redis_client
    from devstack.devredis import start_throwaway

    server = start_throwaway()
    try:
        connection = redis_client(server.url, max_connections=REDIS_CONNECTIONS,
                                  blocking_timeout=REDIS_WAIT_S)
        queue = Queue("floor", connection=connection)
        admission = Admission(max_lag_s=1.0)
        pool = WorkerPool(["floor"], connection, matches + 4, burst=False, admission=admission)
        result: dict[str, float] = {}

        def load() -> None:
            time.sleep(2)
            base = resident_bytes()
            for _ in range(matches):
                queue.enqueue("tools.match_floor.wait_for_release", depth, job_timeout=3600)
            deadline = time.monotonic() + 120
            while admission.running < matches and time.monotonic() < deadline:
                time.sleep(0.5)
            time.sleep(1)
            result["kib"] = round((resident_bytes() - base) / max(admission.running, 1) / 1024, 2)
            result["running"] = admission.running
            pool.stop()
            importlib.import_module("tools.match_floor").RELEASE.set()

        threading.Thread(target=load, daemon=True).start()
        pool.run()
        if result.get("running", 0) < matches:
            raise click.ClickException(f"only {result.get('running', 0)} of {matches} jobs were taken")
        return result["kib"]
    finally:
        server.stop()


@click.command()
@click.option("--matches", type=click.IntRange(100, 5000), default=1000, show_default=True,
              help="Matches (or waiters) held at once by each measurement.")
@click.option("--depth", type=click.IntRange(1, 200), default=25, show_default=True,
              help="Call depth of each waiter: a match waits on its bot about 25 Python calls deep.")
@click.option("--part", type=click.Choice(STATE_PARTS + RUNNERS), default=None, hidden=True,
              help="Measure one part in this process (each runs in a fresh process by default).")
def main(matches: int, depth: int, part: str | None) -> None:
    """Measure every part in a fresh process each and print what a match in flight holds, in KiB."""
    if part is not None:
        if part != "coroutine":
            from arena import eventloop

            eventloop.install()  # as in a match worker: gevent's sockets, locks and threads
        from arena.workers import raise_open_files_limit

        raise_open_files_limit(20 * matches)  # 4 connections a match, and the listener's ends of them
        kib = (per_match_kib(state_builder(part), matches) if part in STATE_PARTS
               else runner_kib(part, matches, depth))
        click.echo(json.dumps({"part": part, "kib": kib}))
        return
    measured: dict[str, float] = {}
    for name in STATE_PARTS + RUNNERS:
        done = subprocess.run([sys.executable, "-m", "tools.match_floor", "--part", name, "--matches",
                               str(matches), "--depth", str(depth)],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise click.ClickException(f"{name}: {done.stderr.strip().splitlines()[-1:]}")
        measured[name] = json.loads(done.stdout.strip().splitlines()[-1])["kib"]
    spec = measured["spec"]
    report = {
        "bench": "match-floor", "matches": matches, "depth": depth, "game": GAME, "options": OPTIONS,
        "kib_per_match": measured,
        # Each part alone, above the spec every build has.
        "kib_above_spec": {name: round(measured[name] - spec, 2) for name in STATE_PARTS[1:-1]},
        "state_kib": measured["state"],
        "state_plus_runner_kib": {name: round(measured["state"] + measured[name], 2) for name in RUNNERS},
    }
    click.echo(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

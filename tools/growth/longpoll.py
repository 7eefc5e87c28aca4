"""Growth of parked long-polls: what n held requests cost one API machine, and how fast a move wakes them.
Design: docs/scaling.md#how-each-curve-is-measured

    python -m tools.growth.longpoll [--sizes 1000,5000,10000] [--quick]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from typing import Any

import engine
from core.tables.store import SeatKind, SeatSpec, TableStore
from tools.growth.fit import FLAT, Curve
from tools.growth.parking import Parker, Poll, Stack, curve_module_main, percentile, stack, wait_parked

DEFAULT_SIZES = (1000, 5000, 10000)
QUICK_SIZES = (20, 40)
PER_TABLE = 8  # four polling bots and four spectators
SAMPLE_MOVES = 100  # moves timed while everything else stays parked
MOVE_GAP_S = 0.05
IDLE_S = 3.0
KIB = 1024


class Table:
    """One practice table of four polling seats (dealt into the store, played through the API)."""

    def __init__(self, store: TableStore, seed: int) -> None:
        record = store.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, seed=seed)
        self.table_id = record.table_id
        self.tokens = [store.join(self.table_id, seat) for seat in range(4)]
        self.version = store.load_table(self.table_id).version
        self.game = engine.new_game("spot-hearts", 4, record.options, seed=seed)

    def polls(self) -> list[Poll]:
        seats = [Poll(f"/api/tables/{self.table_id}/seats/{seat}", self.tokens[seat], self.version,
                      self.table_id) for seat in range(4)]
        watchers = [Poll(f"/api/tables/{self.table_id}", None, self.version, self.table_id)] * 4
        return seats + watchers

    def move(self, target: Stack, rng: random.Random) -> int:
        """Post the next legal move through the API; returns the new version."""
        seat = self.game.to_act()[0]
        decision = self.game.decision(seat)
        move: Any = (rng.sample(decision["legal"], decision["count"]) if decision["kind"] == "pass"
                     else rng.choice(decision["legal"]))
        answer = target.post(f"/api/tables/{self.table_id}/seats/{seat}/moves",
                             {"move": move, "expected_version": self.version}, self.tokens[seat])
        self.game.apply(seat, move)
        self.version = int(answer["version"])
        return self.version


def measure_one(polls: int, rng: random.Random, idle_s: float = IDLE_S) -> dict[str, Any]:
    """Every figure for `polls` parked long-polls, from a stack of its own."""
    with stack(polls) as target:
        store = TableStore(target.redis, target.prefix)
        tables = [Table(store, rng.getrandbits(32)) for _ in range(-(-polls // PER_TABLE))]
        every = [poll for table in tables for poll in table.polls()][:polls]
        warm_up(target, tables[0])
        rss_before = target.rss()
        with Parker(target.base, every) as parker:
            park_s = wait_parked(target, parker, polls, timeout=60 + polls / 100)
            time.sleep(0.5)
            rss_after = target.rss()
            cpu_before, idle_began = target.cpu_seconds(), time.monotonic()
            time.sleep(idle_s)
            idle_cpu = (target.cpu_seconds() - cpu_before) / (time.monotonic() - idle_began)

            # Timed: a sample of tables moves, one move every MOVE_GAP_S, while every other poll stays parked.
            sample = tables[:min(SAMPLE_MOVES, len(tables))]
            woken_in_sample = sum(1 for poll in every if poll.group in {t.table_id for t in sample})
            commands_before = target.commands()
            for table in sample:
                table.move(target, rng)
                time.sleep(MOVE_GAP_S)
            updates = parker.wait_updates(woken_in_sample, timeout=30)
            commands = target.commands() - commands_before
            committed = {table.table_id: store.load_table(table.table_id).updated for table in sample}
            latencies = [(received - committed[group]) * 1000 for _, group, _, received in updates]

            # The rest move too: every one of the n waiters must be woken.
            for table in tables[len(sample):]:
                table.move(target, rng)
            every_update = parker.wait_updates(polls, timeout=30)
            status = parker.status()
    return {
        "polls": polls, "tables": len(tables), "park_s": round(park_s, 2),
        "rss_per_poll_kib": round((rss_after - rss_before) / polls / KIB, 2),
        "rss_before_mib": round(rss_before / KIB / KIB, 1), "rss_after_mib": round(rss_after / KIB / KIB, 1),
        "idle_cpu_percent": round(idle_cpu * 100, 2),
        "sample_moves": len(sample), "sample_woken": len(updates), "sample_waiters": woken_in_sample,
        "wake_p50_ms": round(percentile(latencies, 0.5), 2) if latencies else None,
        "wake_p99_ms": round(percentile(latencies, 0.99), 2) if latencies else None,
        "wake_max_ms": round(max(latencies), 2) if latencies else None,
        "redis_commands_per_move": round(commands / len(sample), 2),
        "redis_commands_per_woken_poll": round(commands / max(1, len(updates)), 2),
        "woken": len({index for index, *_ in every_update}), "timeouts_reparked": status["timeouts"],
        "errors": status["error_count"],
    }


def warm_up(target: Stack, table: Table) -> None:
    """A few plain reads, so both workers have imported and connected before the RSS baseline."""
    import urllib.request

    for _ in range(8):
        with urllib.request.urlopen(f"{target.base}/api/tables/{table.table_id}", timeout=10) as answer:
            answer.read()


def curves(runs: Sequence[dict[str, Any]]) -> list[Curve]:
    sizes = tuple(run["polls"] for run in runs)
    counts = {"woken": [run["woken"] for run in runs], "parked": list(sizes),
              "errors": [run["errors"] for run in runs], "runs": list(runs)}
    axis = "parked long-polls"

    def values(key: str) -> tuple[float, ...]:
        return tuple(float(run[key] if run[key] is not None else 0.0) for run in runs)

    return [
        Curve("longpoll.rss_per_poll", "API memory per parked long-poll", "KiB", sizes,
              values("rss_per_poll_kib"), axis, FLAT, 30.0,
              "resident memory of gunicorn's master and workers, after parking minus before, over n",
              counts),
        Curve("longpoll.wake_p50", "move commit to a waiter's answer, p50", "ms", sizes,
              values("wake_p50_ms"), axis, FLAT, None,
              f"{SAMPLE_MOVES} moves through the API, each waking its table's {PER_TABLE} waiters, "
              "while the rest stay parked"),
        Curve("longpoll.wake_p99", "move commit to a waiter's answer, p99", "ms", sizes,
              values("wake_p99_ms"), axis, FLAT, 250.0, "as p50"),
        Curve("longpoll.redis_commands_per_move", "Redis commands per move", "commands", sizes,
              values("redis_commands_per_move"), axis, FLAT, None,
              "INFO commandstats over the timed moves: the move's own and its waiters' reads"),
        Curve("longpoll.idle_cpu", "API CPU while idle with n parked", "% of a core", sizes,
              values("idle_cpu_percent"), axis, None, 5.0,
              f"gunicorn's master and workers over {IDLE_S:g} s with nothing moving (the kernel counts CPU "
              "in 10 ms ticks: 0 is under one tick in the window)"),
    ]


def measure(sizes: Sequence[int] | None = None, *, quick: bool = False) -> list[Curve]:
    """The long-poll curves at `sizes` parked long-polls (default 1,000, 5,000, 10,000; tiny with `quick`)."""
    return curves(measure_runs(sizes if sizes is not None else (QUICK_SIZES if quick else DEFAULT_SIZES),
                               quick=quick))


def measure_runs(sizes: Sequence[int], *, quick: bool = False) -> list[dict[str, Any]]:
    """Every figure at each size, one fresh stack per size."""
    rng = random.Random(1)
    return [measure_one(size, rng, idle_s=0.5 if quick else IDLE_S) for size in sizes]


def main(argv: Sequence[str] | None = None) -> None:
    curve_module_main("python -m tools.growth.longpoll", __doc__, "parked long-polls", DEFAULT_SIZES,
                      QUICK_SIZES, measure_runs, curves, argv)


if __name__ == "__main__":
    main(sys.argv[1:])

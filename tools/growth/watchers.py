"""Growth of the watchers of one live match: how long a move takes to reach every spectator.
Design: docs/scaling.md#how-each-curve-is-measured

    python -m tools.growth.watchers [--sizes 10,100,1000] [--quick]
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import Any

from core.tables.store import TableStore
from tools.growth.fit import FLAT, Curve
from tools.growth.longpoll import Table
from tools.growth.parking import Parker, Poll, curve_module_main, percentile, stack, wait_parked

DEFAULT_SIZES = (10, 100, 1000)
QUICK_SIZES = (5, 10)
MOVES = 20
QUICK_MOVES = 3


def measure_one(watchers: int, moves: int, rng: random.Random) -> dict[str, Any]:
    with stack(watchers) as target:
        store = TableStore(target.redis, target.prefix)
        table = Table(store, rng.getrandbits(32))
        polls = [Poll(f"/api/tables/{table.table_id}", None, table.version, table.table_id)] * watchers
        with Parker(target.base, polls, repark=True) as parker:
            wait_parked(target, parker, watchers, timeout=60)
            committed: dict[int, float] = {}
            commands, cpu = 0, 0.0
            for done in range(1, moves + 1):
                before, cpu_before = target.commands(), target.cpu_seconds()
                version = table.move(target, rng)
                parker.wait_updates(done * watchers, timeout=30)
                commands += target.commands() - before
                cpu += target.cpu_seconds() - cpu_before
                committed[version] = store.load_table(table.table_id).updated  # after the count: not counted
                wait_parked(target, parker, watchers, timeout=30)  # every watcher asks again before the next
            updates = parker.updates()
            status = parker.status()
    latencies = [(received - committed[version]) * 1000 for _, _, version, received in updates]
    last = [max((received - committed[version]) * 1000 for _, _, seen, received in updates if seen == version)
            for version in committed]
    return {
        "watchers": watchers, "moves": moves, "updates": len(updates), "expected_updates": watchers * moves,
        "update_p50_ms": round(percentile(latencies, 0.5), 2),
        "update_p99_ms": round(percentile(latencies, 0.99), 2),
        "last_p50_ms": round(percentile(last, 0.5), 2), "last_p99_ms": round(percentile(last, 0.99), 2),
        "redis_commands_per_move": round(commands / moves, 2),
        "api_cpu_ms_per_update": round(cpu * 1000 / (moves * watchers), 3),
        "timeouts_reparked": status["timeouts"], "errors": status["error_count"],
    }


def curves(runs: Sequence[dict[str, Any]]) -> list[Curve]:
    sizes = tuple(run["watchers"] for run in runs)
    counts = {"updates": [run["updates"] for run in runs],
              "expected_updates": [run["expected_updates"] for run in runs],
              "errors": [run["errors"] for run in runs], "runs": list(runs)}
    axis = "watchers of one match"

    def values(key: str) -> tuple[float, ...]:
        return tuple(float(run[key]) for run in runs)

    moves = runs[0]["moves"]
    return [
        Curve("watchers.update_p50", "move commit to a watcher's update, p50", "ms", sizes,
              values("update_p50_ms"), axis, None, None,
              f"{moves} moves through the API, every watcher long-polling the public table", counts),
        Curve("watchers.update_p99", "move commit to a watcher's update, p99", "ms", sizes,
              values("update_p99_ms"), axis, None, 500.0, "over every (move, watcher)"),
        Curve("watchers.last_update_p99", "move commit to the last watcher's update, p99 over moves", "ms",
              sizes, values("last_p99_ms"), axis, None, 500.0,
              "one move's fan-out to every watcher: inherently linear in n, so judged by its limit"),
        Curve("watchers.redis_commands_per_move", "Redis commands per move", "commands", sizes,
              values("redis_commands_per_move"), axis, FLAT, None,
              "INFO commandstats from the move's POST until every watcher has its update"),
    ]


def measure(sizes: Sequence[int] | None = None, *, quick: bool = False) -> list[Curve]:
    """The watcher curves at `sizes` watchers of one match (default 10, 100, 1,000; tiny with `quick`)."""
    chosen = sizes if sizes is not None else (QUICK_SIZES if quick else DEFAULT_SIZES)
    return curves(measure_runs(chosen, quick=quick))


def measure_runs(sizes: Sequence[int], *, quick: bool = False) -> list[dict[str, Any]]:
    """Every figure at each size, one fresh stack per size (fewer moves with `quick`)."""
    rng = random.Random(2)
    return [measure_one(size, QUICK_MOVES if quick else MOVES, rng) for size in sizes]


def main(argv: Sequence[str] | None = None) -> None:
    curve_module_main("python -m tools.growth.watchers", __doc__, "watchers", DEFAULT_SIZES, QUICK_SIZES,
                      measure_runs, curves, argv)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Growth of the matches one arena worker process plays at once, every bot 100 ms away: decisions/s, RSS and
the arena's own time per decision. Design: docs/scaling.md#how-each-curve-is-measured

    python -m tools.growth.inflight [--sizes 64,250,1000,2500] [--quick]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from engine import compiled
from tools.growth.fit import FLAT, Curve
from tools.growth.parking import curve_module_main

DEFAULT_SIZES = (64, 250, 1000, 2500)
QUICK_SIZES = (4, 8)
BOT_DELAY_MS = 100
WINDOW_S, QUICK_WINDOW_S = 15.0, 3.0
# The lag ceiling out of the way (a setting: TA_ARENA_MAX_LAG_MS): each size runs exactly that many matches,
# so the curve shows what the admission keeps a worker from, past the CPU.
NO_LAG_CEILING = {"TA_ARENA_MAX_LAG_MS": "1000000"}
KIB_PER_MATCH_GOAL = 30.0


def measure_one(in_flight: int, window_s: float) -> dict[str, Any]:
    from devstack.fastbot import start_fast_bots
    from tools.arena_pace import steady_run, uniform_tables

    bots, urls = start_fast_bots(4, BOT_DELAY_MS, 2)
    try:
        # Enough matches that the queue never runs dry: those in flight, and those finished in the window.
        tables = uniform_tables(urls, in_flight + max(20, int(60 * window_s)))
        run = steady_run(tables, 1, window_s, max_in_flight=in_flight, env=NO_LAG_CEILING)
    finally:
        bots.terminate()
    return {"in_flight": in_flight, **run}


def curves(runs: Sequence[dict[str, Any]]) -> list[Curve]:
    sizes = tuple(run["in_flight"] for run in runs)
    axis = "matches in flight in one worker process"

    def values(key: str) -> tuple[float, ...]:
        return tuple(float(run[key] or 0.0) for run in runs)

    extra = {"runs": list(runs)}
    note = f"one `python -m arena worker --max-in-flight N`, 4 bots {BOT_DELAY_MS} ms away, Spot Hearts"
    return [
        Curve("inflight.reached", "matches in flight reached (mean over the window)", "matches", sizes,
              values("in_flight_mean"), axis, None, None,
              "fewer than n once the worker's core is full: new workers start late", extra),
        Curve("inflight.decisions_per_s", "decisions/s", "decisions/s", sizes, values("decisions_per_s"),
              axis, None, None, note + "; grows with n until the worker's core is full"),
        Curve("inflight.rss_mib", "worker RSS", "MiB", sizes,
              tuple(max(run["rss_mib_per_process"]) for run in runs), axis, 1.0, None,
              "mean over the window; at most linear in n"),
        Curve("inflight.kib_per_match", "RSS above the idle process, per match in flight", "KiB", sizes,
              values("kib_per_match_in_flight"), axis, FLAT, KIB_PER_MATCH_GOAL,
              "(RSS − RSS before the first match) ÷ matches in flight"),
        Curve("inflight.arena_p99", "arena's own time per decision, p99", "ms", sizes,
              values("arena_ms_p99"), axis, None, None,
              "trickarena_arena_decision_seconds over the window: what the worker adds to the bot's time"),
    ]


def measure(sizes: Sequence[int] | None = None, *, quick: bool = False) -> list[Curve]:
    """The in-flight curves at `sizes` (default 64, 250, 1,000, 2,500; tiny with `quick`)."""
    chosen = sizes if sizes is not None else (QUICK_SIZES if quick else DEFAULT_SIZES)
    return curves(measure_runs(chosen, quick=quick))


def measure_runs(sizes: Sequence[int], *, quick: bool = False) -> list[dict[str, Any]]:
    """Every figure at each size: a fresh Redis, worker and bots per size (a shorter window with `quick`)."""
    compiled.activate()
    return [measure_one(size, QUICK_WINDOW_S if quick else WINDOW_S) for size in sizes]


def main(argv: Sequence[str] | None = None) -> None:
    curve_module_main("python -m tools.growth.inflight", __doc__, "matches in flight", DEFAULT_SIZES,
                      QUICK_SIZES, measure_runs, curves, argv)


if __name__ == "__main__":
    main(sys.argv[1:])

"""`python -m loadtest {practice,ladder,faults,backup-restore}`: each prints one JSON document, exit 1 if a
check failed."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any


def _emit(result: dict[str, Any], output: str | None) -> None:
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if output:
        with open(output, "w") as handle:
            handle.write(text + "\n")
    sys.exit(0 if result.get("passed") else 1)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__)
    parser.add_argument("--output", help="also write the JSON result to this file")
    commands = parser.add_subparsers(dest="command", required=True)

    practice = commands.add_parser("practice", help="N clients playing practice tables (long-poll + moves)")
    practice.add_argument("--clients", type=int, default=200)
    practice.add_argument("--seconds", type=float, default=300)
    practice.add_argument("--game", default="spot-hearts")
    practice.add_argument("--options", default='{"target": 100}', help="game options (JSON)")
    practice.add_argument(
        "--seats",
        default="open,heuristic,eps-0.5,random",
        help="comma-separated: 'open' is the client's seat, others house bots",
    )
    practice.add_argument("--house-workers", type=int, default=2, help="RQ workers driving house bots")
    practice.add_argument("--api-workers", type=int, default=2, help="gunicorn workers")
    practice.add_argument("--worker-class", default="gevent")
    practice.add_argument("--seed", type=int, default=1)

    ladder = commands.add_parser("ladder", help="N local HTTP bots + house bots on the arena ladders")
    ladder.add_argument("--bots", type=int, default=40)
    ladder.add_argument("--seconds", type=float, default=600)
    ladder.add_argument("--arena-workers", type=int, default=2)
    ladder.add_argument(
        "--drain-seconds",
        type=float,
        default=180,
        help="after the run: how long queued/running matches may take to finish",
    )

    faults = commands.add_parser("faults", help="scripted fault drills")
    faults.add_argument("scenario", choices=["redis-restart", "api-restart", "bad-bots", "griefing",
                                                  "redis-full", "redis-disk-full", "redis-failover"])
    faults.add_argument("--seconds", type=float, default=60, help="load before and after the fault, each")
    faults.add_argument("--hard", action="store_true", help="SIGKILL instead of a clean shutdown")
    faults.add_argument("--down-seconds", type=float, default=5)
    faults.add_argument("--full-seconds", type=float, default=20,
                        help="redis-full, redis-disk-full: how long Redis stays without room")
    faults.add_argument("--wait-ms", type=int, default=None,
                        help="redis-failover: TA_REDIS_WAIT_MS of the stack (default 200; 0: no WAIT)")
    faults.add_argument("--commit-rounds", type=int, default=None,
                        help="redis-failover: rounds of 100 move commits timed with and without WAIT "
                             "before the load (default 8; 0: none)")
    faults.add_argument("--down-after-ms", type=int, default=None,
                        help="redis-failover: the sentinels' down-after-milliseconds (default: "
                             "deploy/redis/sentinel.conf's, 5000)")
    faults.add_argument("--clients", type=int, default=20)
    faults.add_argument("--bots", type=int, default=12)
    faults.add_argument("--griefers", type=int, default=40,
                        help="griefing: most bots the griefer tries to register (stops at the first refusal)")

    backup = commands.add_parser("backup-restore",
                                 help="rated matches, BGSAVE, Redis wiped, restored, compared")
    backup.add_argument("--bots", type=int, default=6)
    backup.add_argument("--min-rated", type=int, default=3, help="rated matches to play before the backup")
    backup.add_argument("--seconds", type=float, default=120,
                        help="at most this long for them (and, after the restore, for one more)")

    options = parser.parse_args()
    # SIGTERM (e.g. from a CI timeout) unwinds like Ctrl-C, so every script stops the stack it started.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if options.command == "practice":
        from loadtest.practice import run as run_practice

        result = run_practice(
            options.clients,
            options.seconds,
            options.game,
            json.loads(options.options),
            options.seats.split(","),
            options.house_workers,
            options.api_workers,
            options.worker_class,
            options.seed,
        )
    elif options.command == "ladder":
        from loadtest.ladder import run as run_ladder

        result = run_ladder(options.bots, options.seconds, options.arena_workers, options.drain_seconds)
    elif options.command == "backup-restore":
        from loadtest.backup import backup_restore

        result = backup_restore(options.bots, options.min_rated, options.seconds)
    else:
        from loadtest.faults import run as run_faults

        result = run_faults(
            options.scenario,
            options.seconds,
            options.hard,
            options.down_seconds,
            options.clients,
            options.bots,
            options.griefers,
            options.full_seconds,
            options.wait_ms,
            options.commit_rounds,
            options.down_after_ms,
        )
    _emit(result, options.output)


if __name__ == "__main__":
    main()

"""`python -m tools.live_ladder --minutes 15`: does the live ladder find the true order of the house bots?
The stack of `make run` on a throwaway Redis, house bots only; one JSON line per game, then a summary. Exit 0
when every game has ρ ≥ --min-spearman and every pair of its bots met, else 1; 2 on a wrong option.

Design: docs/arena.md#measured-live--python--m-toolslive_ladder---minutes-15
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
import redis

from arena.ladder_quality import quality_report
from core.arena.model import HOUSE_PREFIX, LadderConfig, MatchStatus, default_ladders
from core.arena.store import ArenaStore
from core.arena.store.matches import RECENT_KEEP
from devstack.devredis import free_port, start_throwaway

REPO_ROOT = Path(__file__).resolve().parent.parent
MIN_SPEARMAN = 0.95
POLL_S = 5.0  # the recent list keeps the newest 300 matches: read it well before a match could drop off
STOP_TIMEOUT_S = 60.0


def game_report(ladder: LadderConfig, ratings: Mapping[str, float], tables: Sequence[Sequence[str]],
                min_spearman: float = MIN_SPEARMAN) -> dict[str, Any]:
    """One game's line: the quality figures of its ladder (bot names without the house prefix) and `ok`."""
    known = [f"{HOUSE_PREFIX}{name}" for name in ladder.house_bots or ()]
    report = quality_report(known, ratings, tables)
    rho = report["spearman"]
    ok = rho is not None and rho >= min_spearman and report["pairs_never_met"] == 0
    return {
        "game": ladder.game, "ladder": ladder.ladder_id, **report,
        "ratings": {b.removeprefix(HOUSE_PREFIX): round(ratings[b], 1)
                    for b in sorted(ratings, key=lambda b: -ratings[b]) if b in known},
        "ok": ok,
    }


def summary(reports: Sequence[Mapping[str, Any]], minutes: float) -> dict[str, Any]:
    """The last line: whether every game passed, and which did not.

    >>> summary([{"game": "a", "ok": True}, {"game": "b", "ok": False}], 3.0)
    {'summary': True, 'minutes': 3.0, 'games': 2, 'ok': False, 'failing': ['b']}
    """
    failing = [r["game"] for r in reports if not r["ok"]]
    return {"summary": True, "minutes": minutes, "games": len(reports), "ok": not failing and bool(reports),
            "failing": failing}


def collect_rated(store: ArenaStore, ladder_id: str, seen: dict[str, list[str]]) -> None:
    """Add the entrants of the ladder's rated matches not yet in `seen` (match id -> bot ids)."""
    new = [match_id for match_id in store.recent_matches(ladder_id, limit=RECENT_KEEP) or []
           if match_id not in seen]
    for match_id, doc in zip(new, store.match_docs(new), strict=True):
        if doc and doc.get("status") == MatchStatus.RATED:
            seen[match_id] = [m["bot_id"] for m in doc["spec"]["entrants"]]


def stack_command(arena_workers: int) -> list[str]:
    """`make run`'s honcho line when REDIS_URL is set (Makefile, target run)."""
    honcho = Path(sys.executable).parent / "honcho"
    return [str(honcho), "start", "-f", "Procfile", "-c", f"arena={arena_workers}",
            "web", "worker", "scheduler", "arena", "analysis"]


def stop_stack(process: subprocess.Popen[bytes]) -> None:
    """Ctrl-C to honcho's process group, as a terminal sends it; SIGKILL only if it is still there after
    STOP_TIMEOUT_S (the workers give their running matches back first)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def measure(minutes: float, arena_workers: int, min_spearman: float,
            log: Path | None) -> list[dict[str, Any]]:
    ladders = default_ladders()
    prefix = f"live{os.getpid()}{secrets.token_hex(3)}:"
    server = start_throwaway()
    stack: subprocess.Popen[bytes] | None = None
    log_file = open(log, "ab") if log else None  # noqa: SIM115 - closed in finally
    try:
        venv_bin = str(Path(sys.executable).parent)
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": prefix, "PYTHONPATH": str(REPO_ROOT),
               "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}", "TA_BIND": f"127.0.0.1:{free_port()}",
               "ALLOW_PRIVATE_BOT_URLS": "true", "PYTHONUNBUFFERED": "1"}
        for name in ("TA_RQ_QUEUE", "TA_ANALYSIS_QUEUE", "TA_ARENA_QUEUE"):  # derived from the prefix instead
            env.pop(name, None)
        # A session of its own, like a terminal's foreground job: stop_stack's Ctrl-C reaches honcho's group.
        stack = subprocess.Popen(stack_command(arena_workers), cwd=REPO_ROOT, env=env,
                                 stdout=log_file or subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        store = ArenaStore(redis.Redis.from_url(server.url, decode_responses=True), prefix)
        seen: dict[str, dict[str, list[str]]] = {ladder.ladder_id: {} for ladder in ladders}
        end = time.monotonic() + minutes * 60
        while True:
            for ladder in ladders:
                collect_rated(store, ladder.ladder_id, seen[ladder.ladder_id])
            if time.monotonic() >= end:
                break
            if stack.poll() is not None:
                raise RuntimeError(f"the stack exited early (rc={stack.returncode}); see --log")
            time.sleep(min(POLL_S, max(end - time.monotonic(), 0.0)))
        return [game_report(ladder, store.ratings(ladder.ladder_id), list(seen[ladder.ladder_id].values()),
                            min_spearman) for ladder in ladders]
    finally:
        if stack is not None:
            stop_stack(stack)
        server.stop()
        if log_file is not None:
            log_file.close()


@click.command(help=__doc__)
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=15.0, show_default=True,
              help="How long the ladders play.")
@click.option("--arena-workers", type=click.IntRange(min=1), default=2, show_default=True,
              help="Arena worker processes, as make run's ARENA_WORKERS.")
@click.option("--min-spearman", type=click.FloatRange(-1, 1), default=MIN_SPEARMAN, show_default=True,
              help="A game passes with at least this ρ and every pair of its bots met.")
@click.option("--log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Append the stack's output (honcho) to this file.")
def command(minutes: float, arena_workers: int, min_spearman: float, log: Path | None) -> int:
    reports = measure(minutes, arena_workers, min_spearman, log)
    for report in reports:
        click.echo(json.dumps(report))
    final = summary(reports, minutes)
    click.echo(json.dumps(final))
    return 0 if final["ok"] else 1


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends the wait as Ctrl-C does: measure's cleanup stops everything


def main(argv: list[str] | None = None) -> int:
    """Run the command; a wrong option is one line on stderr (exit 2), Ctrl-C stops everything (exit 130)."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        code = command.main(args=argv, prog_name="python -m tools.live_ladder", standalone_mode=False)
    except click.ClickException as error:
        print(f"live_ladder: {error.format_message()}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, click.exceptions.Abort):
        print("live_ladder: interrupted; every process it started is stopped", file=sys.stderr)
        return 130
    return code if isinstance(code, int) else 0  # --help returns nothing


if __name__ == "__main__":
    sys.exit(main())

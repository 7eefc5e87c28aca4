"""`python -m tools.idle_cost`: what `make run` costs with no outside bot: CPU seconds per minute and
memory of the whole stack while the house bots play their own matches. Prints JSON.
Design: docs/arena.md#an-idle-arena

    python -m tools.idle_cost [--seconds 60] [--warmup-s 30] [--house-only-gap-s S]
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import click
import redis

from core import keys
from devstack.devredis import free_port
from devstack.procstat import descendants_usage

ROOT = Path(__file__).resolve().parent.parent


def rated(redis_url: str) -> int:
    """Rated matches of every ladder so far (their recent lists)."""
    conn = redis.Redis.from_url(redis_url, decode_responses=True)
    return sum(int(conn.llen(keys.arena_recent(keys.DEFAULT_PREFIX, ladder)))
               for ladder in conn.smembers(keys.arena_ladders(keys.DEFAULT_PREFIX)))


@click.command()
@click.option("--seconds", type=click.FloatRange(5, 3600), default=60.0, show_default=True,
              help="How long the stack is measured.")
@click.option("--warmup-s", type=click.FloatRange(0, 600), default=30.0, show_default=True,
              help="How long it runs first (start-up, the first matches).")
@click.option("--house-only-gap-s", type=click.FloatRange(0), default=None,
              help="$TA_HOUSE_ONLY_GAP_S for this run (default: the setting's default).")
def main(seconds: float, warmup_s: float, house_only_gap_s: float | None) -> None:
    """Start `make run` on free ports with an empty Redis, let it warm up, then measure its CPU and memory."""
    data = tempfile.mkdtemp(prefix="ta-idle-")
    redis_port, bind = free_port(), f"127.0.0.1:{free_port()}"
    env = {**os.environ, "TA_BIND": bind}
    env.pop("REDIS_URL", None)
    if house_only_gap_s is not None:
        env["TA_HOUSE_ONLY_GAP_S"] = str(house_only_gap_s)
    command = ["make", "--no-print-directory", "run", f"DEV_REDIS_PORT={redis_port}", f"DEV_REDIS_DIR={data}",
               f"METRICS_DIR={data}/metrics", f"TA_BIND={bind}"]
    log = open(Path(data) / "make-run.log", "w")  # noqa: SIM115 - closed after the stack stops
    stack = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    try:
        time.sleep(warmup_s)
        cpu_before, _, _ = descendants_usage(stack.pid)
        rated_before = rated(redis_url)
        time.sleep(seconds)
        cpu_after, rss_mib, count = descendants_usage(stack.pid)
        result: dict[str, Any] = {
            "house_only_gap_s": house_only_gap_s, "seconds": seconds, "processes": count,
            "cpu_s": round(cpu_after - cpu_before, 2),
            "cores": round((cpu_after - cpu_before) / seconds, 3),
            "cpu_s_per_minute": round((cpu_after - cpu_before) * 60 / seconds, 2),
            "rss_mib": rss_mib, "rated_matches": rated(redis_url) - rated_before,
        }
    finally:
        os.killpg(stack.pid, signal.SIGINT)  # what Ctrl-C does
        try:
            stack.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait()
        log.close()
    click.echo(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

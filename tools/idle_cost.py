"""`python -m tools.idle_cost`: what `make run` costs with no outside bot: CPU seconds per minute and
memory of the whole stack while the house bots play their own matches. Prints JSON.
Design: docs/arena.md#an-idle-arena

    python -m tools.idle_cost [--seconds 60] [--warmup-s 30] [--house-only-gap-s S]
"""

from __future__ import annotations

import json
import time
from typing import Any

import click
import redis

from core import keys
from devstack.procstat import descendants_usage
from tools.makerun import make_run


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
    env = {} if house_only_gap_s is None else {"TA_HOUSE_ONLY_GAP_S": str(house_only_gap_s)}
    with make_run(env) as stack:
        time.sleep(warmup_s)
        cpu_before, _, _ = descendants_usage(stack.pid)
        rated_before = rated(stack.redis_url)
        time.sleep(seconds)
        cpu_after, rss_mib, count = descendants_usage(stack.pid)
        result: dict[str, Any] = {
            "house_only_gap_s": house_only_gap_s, "seconds": seconds, "processes": count,
            "cpu_s": round(cpu_after - cpu_before, 2),
            "cores": round((cpu_after - cpu_before) / seconds, 3),
            "cpu_s_per_minute": round((cpu_after - cpu_before) * 60 / seconds, 2),
            "rss_mib": rss_mib, "rated_matches": rated(stack.redis_url) - rated_before,
        }
    click.echo(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

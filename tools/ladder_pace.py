"""`python -m tools.ladder_pace`: rated matches per minute of the default ladders, played as `make run` plays
them, with the default house set next to the set before the search bot joined it. Prints JSON.
Design: docs/arena.md#house-bots-the-graded-set-and-the-search-bots-budget

    python -m tools.ladder_pace [--minutes 3] [--warmup-s 20] [--bot-delay-ms D] [--arena-workers 2]
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click
import redis

from arena.scheduler import run_forever
from core.arena.model import GRADED_HOUSE_BOTS, LADDER_SEARCH_BOTS, LadderConfig, MatchStatus, default_ladders
from core.arena.store import ArenaStore
from core.settings import Settings
from devstack import devserve
from devstack.devredis import start_throwaway

REPO_ROOT = Path(__file__).resolve().parent.parent
PREFIX = "pace:"


def house_sets() -> dict[str, list[LadderConfig]]:
    """The default ladders with their default house sets, and with the graded set alone (no search bot)."""
    return {"before_search": [dataclasses.replace(ladder, house_bots=GRADED_HOUSE_BOTS)
                              for ladder in default_ladders()],
            "default": default_ladders()}


def register_fast_bot(conn: redis.Redis, url: str) -> None:
    """One enabled HTTP bot playing every game (as the API's registry stores it)."""
    import engine
    from core.arena.registry import BotRegistry

    BotRegistry(conn, PREFIX, allow_private_urls=True).register("fastbot", list(engine.GAMES), url)


def rated_in_window(store: ArenaStore, ladder_id: str, start: float, end: float) -> list[dict[str, Any]]:
    docs = [store.match(match_id) for match_id in store.recent_matches(ladder_id, limit=10_000) or []]
    return [d for d in docs if d and d["status"] == MatchStatus.RATED and start <= d["finished"] < end]


def one_run(ladders: list[LadderConfig], minutes: float, warmup_s: float, bot_delay_ms: int | None,
            arena_workers: int) -> dict[str, Any]:
    server = start_throwaway()
    workers: list[subprocess.Popen[bytes]] = []
    bots: Any = None
    try:
        conn = redis.Redis.from_url(server.url, decode_responses=True)
        if bot_delay_ms is not None:
            from devstack.fastbot import start_fast_bots

            bots, urls = start_fast_bots(1, delay_ms=bot_delay_ms)
            register_fast_bot(conn, urls[0])
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": PREFIX, "ALLOW_PRIVATE_BOT_URLS": "1",
               "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_ARENA_MAX_IN_FLIGHT", None)  # the default is what is measured
        workers = [subprocess.Popen([sys.executable, "-m", "arena", "worker"], env=env, cwd=REPO_ROOT,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for _ in range(arena_workers)]
        settings = Settings(server.url, PREFIX, allow_private_urls=True)
        total_s = warmup_s + minutes * 60
        scheduler = threading.Thread(target=run_forever, args=(settings, ladders, total_s), daemon=True)
        began = time.time()
        scheduler.start()
        scheduler.join(total_s + 30)
        window = (began + warmup_s, began + total_s)
        store = ArenaStore(conn, PREFIX)
        per_ladder = {}
        for ladder in ladders:
            rated = rated_in_window(store, ladder.ladder_id, *window)
            search_bot = LADDER_SEARCH_BOTS[ladder.game]
            with_search = [d for d in rated
                           if any(m.get("house_bot") == search_bot for m in d["spec"]["entrants"])]
            per_ladder[ladder.ladder_id] = {
                "house_bots": list(ladder.house_bots or ()),
                "rated_per_min": round(len(rated) / minutes, 2),
                "mean_match_s": round(statistics.fmean(d["finished"] - d["started"] for d in rated), 2)
                if rated else None,
                "matches_with_search_bot": len(with_search),
            }
        return {"ladders": per_ladder,
                "load_average_1m": round(os.getloadavg()[0], 2)}
    finally:
        for worker in workers:
            devserve.stop(worker, timeout=20)
        if bots is not None:
            bots.terminate()
        server.stop()


@click.command(help=__doc__)
@click.option("--minutes", default=3.0, show_default=True, help="measuring window per run")
@click.option("--warmup-s", default=20.0, show_default=True)
@click.option("--bot-delay-ms", type=int, default=None, help="also one registered HTTP bot, this slow")
@click.option("--arena-workers", default=2, show_default=True, help="processes, as make run's ARENA_WORKERS")
def main(minutes: float, warmup_s: float, bot_delay_ms: int | None, arena_workers: int) -> None:
    runs = {name: one_run(ladders, minutes, warmup_s, bot_delay_ms, arena_workers)
            for name, ladders in house_sets().items()}
    before, after = runs["before_search"]["ladders"], runs["default"]["ladders"]
    ratios = {ladder: round(after[ladder]["rated_per_min"] / before[ladder]["rated_per_min"], 3)
              if before[ladder]["rated_per_min"] else None for ladder in before}
    print(json.dumps({"command": " ".join(["python -m tools.ladder_pace", *sys.argv[1:]]),
                      "search_bots": LADDER_SEARCH_BOTS, "minutes": minutes, "bot_delay_ms": bot_delay_ms,
                      "arena_workers": arena_workers,
                      "cpus": os.cpu_count(), "runs": runs, "pace_ratio_default_vs_before": ratios},
                     indent=2))


if __name__ == "__main__":
    main()

"""`python -m tools.challenge_pace`: the ladder's pace (rated matches per minute) alone and under a flood of
challenges, as `make run` plays them; prints JSON. Design: docs/arena.md#challenges

    python -m tools.challenge_pace [--minutes 2] [--warmup-s 20] [--arena-workers 2] [--flooders 8]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click
import redis

from arena.scheduler import run_forever
from core import keys
from core.arena.model import MatchStatus, default_ladders
from core.arena.store import ArenaStore
from core.settings import Settings
from devstack import devserve
from devstack.devredis import start_throwaway
from tools.ladder_pace import rated_in_window, register_fast_bot

REPO_ROOT = Path(__file__).resolve().parent.parent
PREFIX = "pace:"
FLOOD_GAME = "spot-hearts"
FLOOD_OPPONENTS = ["search-5", "heuristic", "eps-0.2"]


def flood(redis_url: str, bot_url: str, flooders: int, per_day: int, stop: threading.Event,
          answers: Counter[int]) -> None:
    """Owners posting challenges through the API as fast as it answers, until `stop`."""
    from api import create_app

    app = create_app({"REDIS_URL": redis_url, "KEY_PREFIX": PREFIX, "ALLOW_PRIVATE_BOT_URLS": True,
                      "RATELIMIT_ENABLED": False, "MAX_CHALLENGES_PER_OWNER_PER_DAY": per_day})
    client = app.test_client()
    owners = []
    for n in range(flooders):
        key = client.post("/api/accounts").get_json()["api_key"]
        bot = client.post("/api/bots", json={"name": f"flooder-{n}", "games": [FLOOD_GAME], "url": bot_url},
                          headers={"Authorization": f"Bearer {key}"}).get_json()["bot_id"]
        client.patch(f"/api/bots/{bot}", json={"enabled": False},  # off the ladder: it floods, no more
                     headers={"Authorization": f"Bearer {key}"})
        owners.append((key, bot))
    while not stop.is_set():
        for key, bot in owners:
            answer = client.post("/api/challenges", headers={"Authorization": f"Bearer {key}"},
                                 json={"game": FLOOD_GAME, "bots": [bot, *FLOOD_OPPONENTS]})
            answers[answer.status_code] += 1
        stop.wait(0.05)


def one_run(minutes: float, warmup_s: float, arena_workers: int, challenge_workers: int, flooders: int,
            per_day: int) -> dict[str, Any]:
    server = start_throwaway()
    workers: list[subprocess.Popen[bytes]] = []
    bots: Any = None
    stop = threading.Event()
    answers: Counter[int] = Counter()
    try:
        conn = redis.Redis.from_url(server.url, decode_responses=True)
        from devstack.fastbot import start_fast_bots

        bots, urls = start_fast_bots(1, delay_ms=0)
        register_fast_bot(conn, urls[0])
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": PREFIX, "ALLOW_PRIVATE_BOT_URLS": "1",
               "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_ARENA_MAX_IN_FLIGHT", None)  # the default is what is measured
        commands = [[sys.executable, "-m", "arena", "worker"]] * arena_workers
        if flooders:
            commands += [[sys.executable, "-m", "arena", "worker", "--challenges"]] * challenge_workers
        workers = [subprocess.Popen(command, env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for command in commands]
        flood_args = (server.url, urls[0], flooders, per_day, stop, answers)
        flooding = threading.Thread(target=flood, args=flood_args, daemon=True) if flooders else None
        if flooding is not None:
            flooding.start()
        settings = Settings(server.url, PREFIX, allow_private_urls=True)
        ladders = default_ladders()
        total_s = warmup_s + minutes * 60
        scheduler = threading.Thread(target=run_forever, args=(settings, ladders, total_s), daemon=True)
        began = time.time()
        scheduler.start()
        scheduler.join(total_s + 30)
        stop.set()
        if flooding is not None:
            flooding.join(30)
        window = (began + warmup_s, began + total_s)
        store = ArenaStore(conn, PREFIX)
        per_ladder = {ladder.ladder_id: len(rated_in_window(store, ladder.ladder_id, *window)) / minutes
                      for ladder in ladders}
        per_ladder = {ladder_id: round(pace, 2) for ladder_id, pace in per_ladder.items()}
        challenge_ids = [key.rsplit(":", 1)[-1] for key in conn.scan_iter(keys.arena_match(PREFIX, "c*"))]
        played = [doc for doc in store.match_docs(challenge_ids)
                  if doc and doc["status"] == MatchStatus.PLAYED and window[0] <= doc["finished"] < window[1]]
        return {"rated_per_min": per_ladder, "ladder_rated_per_min": round(sum(per_ladder.values()), 2),
                "challenges_played_per_min": round(len(played) / minutes, 2),
                "flood_answers": {str(status): n for status, n in sorted(answers.items())},
                "load_average_1m": round(os.getloadavg()[0], 2)}
    finally:
        stop.set()
        for worker in workers:
            devserve.stop(worker, timeout=20)
        if bots is not None:
            bots.terminate()
        server.stop()


@click.command(help=__doc__)
@click.option("--minutes", default=2.0, show_default=True, help="measuring window per run")
@click.option("--warmup-s", default=20.0, show_default=True)
@click.option("--arena-workers", default=2, show_default=True, help="match worker processes (make run: 1)")
@click.option("--challenge-workers", default=1, show_default=True, help="challenge worker processes")
@click.option("--flooders", default=8, show_default=True, help="owners posting challenges in the flood run")
@click.option("--per-day", default=1_000_000, show_default=True, help="each flooder's daily challenge quota")
def main(minutes: float, warmup_s: float, arena_workers: int, challenge_workers: int, flooders: int,
         per_day: int) -> None:
    quiet = one_run(minutes, warmup_s, arena_workers, challenge_workers, 0, per_day)
    flooded = one_run(minutes, warmup_s, arena_workers, challenge_workers, flooders, per_day)
    alone = quiet["ladder_rated_per_min"]
    print(json.dumps({"command": " ".join(["python -m tools.challenge_pace", *sys.argv[1:]]),
                      "minutes": minutes, "arena_workers": arena_workers,
                      "challenge_workers": challenge_workers,
                      "flooders": flooders, "cpus": os.cpu_count(), "alone": quiet, "flooded": flooded,
                      "pace_ratio_flooded_vs_alone": round(flooded["ladder_rated_per_min"] / alone, 3)
                      if alone else None}, indent=2))


if __name__ == "__main__":
    main()

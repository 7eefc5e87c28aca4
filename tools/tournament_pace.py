"""`python -m tools.tournament_pace`: 16-bot Swiss events (Spot Hearts, 4 seats, 4 rounds) played as `make
run` plays them, each followed by as long a window without one: their wall time, the ladder's pace alone and
meanwhile, the Spearman of the graded house bots' final standings; prints JSON. Design: docs/arena.md

    python -m tools.tournament_pace [--events 12] [--warmup-s 20] [--arena-workers 2] [--rounds 4] [--nice N]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click
import redis

from engine import compiled

# The scheduler and the API run in this process with the compiled rules, as `make run`'s processes do
# (engine/compiled.py): put in place before the arena's modules import them.
compiled.activate()

from arena.scheduler import run_forever  # noqa: E402
from core.arena.model import GRADED_HOUSE_BOTS, LADDER_SEARCH_BOTS, default_ladders  # noqa: E402
from core.arena.store import ArenaStore  # noqa: E402
from core.arena.tournaments import spearman  # noqa: E402
from core.settings import Settings  # noqa: E402
from devstack import devserve  # noqa: E402
from devstack.devredis import start_throwaway  # noqa: E402
from tools.ladder_pace import rated_in_window, register_fast_bot  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
PREFIX = "pace:"
GAME = "spot-hearts"
FIELD = 16


def rated_count(store: ArenaStore, start: float, end: float) -> int:
    """Rated matches of every ladder together that finished within [start, end) (read at once: the ladders
    keep their newest matches only)."""
    return sum(len(rated_in_window(store, ladder.ladder_id, start, end)) for ladder in default_ladders())


def pace(windows: list[tuple[float, int]]) -> float:
    """Rated matches per minute over these windows (seconds, rated matches)."""
    seconds = sum(length for length, _ in windows)
    return 60 * sum(rated for _, rated in windows) / seconds if seconds else 0.0


def play_event(redis_url: str, bot_urls: list[str], rounds: int, name: str) -> dict[str, Any]:
    """Create the event through the API (an account, its HTTP bots and the house's) and wait for its end."""
    from api import create_app

    # An account per event enters all its bots: the per-address and per-ladder bot quotas are lifted for it.
    app = create_app({"REDIS_URL": redis_url, "KEY_PREFIX": PREFIX, "ALLOW_PRIVATE_BOT_URLS": True,
                      "RATELIMIT_ENABLED": False, "MAX_BOTS_PER_ADDRESS": 100 * FIELD,
                      "MAX_BOTS_PER_ACCOUNT": FIELD, "MAX_BOTS_PER_OWNER_PER_LADDER": FIELD})
    client = app.test_client()
    key = client.post("/api/accounts").get_json()["api_key"]
    auth = {"Authorization": f"Bearer {key}"}
    house = [*GRADED_HOUSE_BOTS, LADDER_SEARCH_BOTS[GAME]]
    bots = []
    for n, url in enumerate(bot_urls[:FIELD - len(house)]):
        bot = client.post("/api/bots", json={"name": f"{name}-entrant-{n}", "games": [GAME], "url": url},
                          headers=auth).get_json()["bot_id"]
        # The event's bot, not the ladder's: off the ladder, its owner still enters it.
        client.patch(f"/api/bots/{bot}", json={"enabled": False}, headers=auth)
        bots.append(bot)
    began = time.time()
    created = client.post("/api/tournaments", headers=auth, json={
        "name": name, "game": GAME, "format": "swiss", "players": 4, "rounds": rounds,
        "bots": [*bots, *house]})
    if created.status_code != 201:
        raise click.ClickException(f"the event was refused: {created.get_json()}")
    url = created.get_json()["url"]
    while (event := client.get(url).get_json())["status"] != "finished":
        time.sleep(0.5)
    ended = time.time()
    order = [row["bot_id"] for row in event["standings"]]
    graded = [f"house:{name}" for name in GRADED_HOUSE_BOTS]
    return {"began": began, "ended": ended, "wall_s": round(ended - began, 1),
            "tables": sum(len(r["tables"]) for r in event["schedule"]), "rounds": len(event["schedule"]),
            "graded_order": [name.removeprefix("house:") for name in order if name in graded],
            "spearman_graded": round(spearman(graded, order), 3),
            "standings": [(row["name"], row["points"]) for row in event["standings"]]}


def one_run(warmup_s: float, arena_workers: int, rounds: int, events: int,
            niceness: int | None) -> dict[str, Any]:
    """The ladders alone and with an event, interleaved: each event is followed by a window as long with no
    event, so both paces are measured over the same total time and the same drift."""
    server = start_throwaway()
    workers: list[subprocess.Popen[bytes]] = []
    bots: Any = None
    stop = threading.Event()
    try:
        conn = redis.Redis.from_url(server.url, decode_responses=True)
        from devstack.fastbot import start_fast_bots

        bots, urls = start_fast_bots(FIELD, delay_ms=0)
        register_fast_bot(conn, urls[0])  # the ladder's registered bot (as tools.challenge_pace's)
        env = {**os.environ, "REDIS_URL": server.url, "TA_KEY_PREFIX": PREFIX, "ALLOW_PRIVATE_BOT_URLS": "1",
               "PYTHONPATH": str(REPO_ROOT)}
        env.pop("TA_ARENA_MAX_IN_FLIGHT", None)  # the defaults are what is measured
        tournaments = [sys.executable, "-m", "arena", "worker", "--tournaments"]
        if niceness is not None:
            tournaments += ["--nice", str(niceness)]
        commands = [[sys.executable, "-m", "arena", "worker"]] * arena_workers + [tournaments]
        workers = [subprocess.Popen(command, env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for command in commands]
        settings = Settings(server.url, PREFIX, allow_private_urls=True)
        scheduler = threading.Thread(target=run_forever, args=(settings, default_ladders(), 24 * 3600),
                                     daemon=True)
        scheduler.start()
        stop.wait(warmup_s)
        store = ArenaStore(conn, PREFIX)
        played: list[dict[str, Any]] = []
        busy: list[tuple[float, int]] = []  # (seconds, rated matches) of each window
        quiet: list[tuple[float, int]] = []
        for n in range(events):
            event = play_event(server.url, urls[1:], rounds, f"pace-{n}")
            began, ended = event.pop("began"), event.pop("ended")
            busy.append((ended - began, rated_count(store, began, ended)))
            played.append(event)
            quiet_start = time.time()
            stop.wait(ended - began)
            quiet_end = time.time()
            quiet.append((quiet_end - quiet_start, rated_count(store, quiet_start, quiet_end)))
        alone, meanwhile = pace(quiet), pace(busy)
        walls = sorted(event["wall_s"] for event in played)
        spearmans = [event["spearman_graded"] for event in played]
        return {"ladder_rated_per_min_alone": round(alone, 2),
                "ladder_rated_per_min_during_event": round(meanwhile, 2),
                "pace_ratio": round(meanwhile / alone, 3) if alone else None,
                "window_s": round(sum(length for length, _ in busy), 1),
                "pace_ratio_per_event": [round(pace([b]) / pace([q]), 3) if pace([q]) else None
                                         for b, q in zip(busy, quiet, strict=True)],
                "wall_s_median": walls[len(walls) // 2], "wall_s": [event["wall_s"] for event in played],
                "spearman_graded_mean": round(sum(spearmans) / len(spearmans), 3),
                "played": played, "load_average_1m": round(os.getloadavg()[0], 2)}
    finally:
        stop.set()
        for worker in workers:
            devserve.stop(worker, timeout=20)
        if bots is not None:
            bots.terminate()
        server.stop()


@click.command(help=__doc__)
@click.option("--warmup-s", default=20.0, show_default=True)
@click.option("--arena-workers", default=2, show_default=True, help="match worker processes (make run: 2)")
@click.option("--rounds", default=4, show_default=True, type=click.IntRange(1, 8))
@click.option("--events", default=12, show_default=True, type=click.IntRange(1, 50),
              help="events played one after another, each followed by as long a window without one")
@click.option("--nice", "niceness", type=click.IntRange(0, 19), default=None,
              help="the tournaments worker's niceness (default: its own, as the Procfile runs it)")
def main(warmup_s: float, arena_workers: int, rounds: int, events: int, niceness: int | None) -> None:
    result = one_run(warmup_s, arena_workers, rounds, events, niceness)
    print(json.dumps({"command": " ".join(["python -m tools.tournament_pace", *sys.argv[1:]]),
                      "cpus": os.cpu_count(), "arena_workers": arena_workers, "field": FIELD, "game": GAME,
                      "rounds": rounds, "events": events, **result}, indent=2))


if __name__ == "__main__":
    main()

"""`python -m tools.export_bench`: a bot's export of N finished matches in a default ladder's format, served
by the API under gunicorn as `make run` serves it: bytes, seconds, and whether every record replays and
verifies. Prints JSON. Design: docs/api.md#exporting-a-bots-matches

    python -m tools.export_bench [--matches 100] [--game spot-hearts] [--options JSON] [--limit 100]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click
import redis

import engine
from engine import compiled

# The rules `make run` plays with, when built (engine/compiled.py): put in place before anything imports them.
compiled.activate()

from arena.jobs import play_match  # noqa: E402
from core.arena.model import LadderConfig, MatchSpec, Member, MemberKind, default_ladders  # noqa: E402
from core.arena.registry import BotRegistry  # noqa: E402
from core.arena.store import ArenaStore  # noqa: E402
from core.settings import Settings  # noqa: E402
from devstack import devserve  # noqa: E402
from devstack.devredis import free_port, start_throwaway  # noqa: E402
from engine import deals  # noqa: E402
from engine.replay import replay_summary  # noqa: E402
from engine.seeds import derive_seed, new_seed  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
PREFIX = "export-bench:"
HOUSE = ("heuristic", "eps-0.2", "random")  # quick house bots: the export is measured, not the search


def check_line(line: str) -> dict[str, int]:
    """How many records one export line holds, how many replay to their game's totals, and how many are dealt
    from their seed, the seed its match's seed derives for the game (docs/deals.md)."""
    match = json.loads(line)
    counts = {"records": 0, "replayed": 0, "verified": 0}
    draws_dealer = engine.rules_for(match["game"]).first_dealer_from_seed()
    for game, record in zip(match["games"] or [], match["records"] or [], strict=True):
        counts["records"] += 1
        summary = replay_summary(record)
        counts["replayed"] += int(summary["ok"] and summary["over"] and summary["totals"] == game["totals"])
        derived = record.get("seed") == derive_seed("game", match["seed"], game["game_no"])
        counts["verified"] += int(derived and deals.verify_record(record, draws_dealer) == [])
    return counts


def play_matches(store: ArenaStore, settings: Settings, ladder: LadderConfig, bot_id: str, url: str,
                 count: int) -> None:
    """`count` rated matches of `ladder`: the registered bot and house bots, by the arena's job function."""
    store.save_ladder(ladder)
    entrants = [Member(bot_id, MemberKind.HTTP, url=url, name="fastbot"),
                *(Member.house(name) for name in HOUSE)][:ladder.players]
    for number in range(count):
        spec_id = f"m{number:05d}"
        store.create_match(MatchSpec(
            match_id=spec_id, ladder_id=ladder.ladder_id, game=ladder.game, players=ladder.players,
            options=ladder.options, seed=new_seed(), duplicate=bool(ladder.duplicate), entrants=entrants,
            deadline_ms=ladder.deadline_ms, strike_limit=ladder.strike_limit,
            pre_ratings={m.bot_id: 1500.0 for m in entrants}, pre_matches={m.bot_id: 0 for m in entrants}))
        outcome = play_match(store, spec_id, worker="export-bench", settings=settings)
        if outcome["status"] != "rated":
            raise RuntimeError(f"match {spec_id} ended {outcome}")
        if (number + 1) % 10 == 0 or number + 1 == count:
            print(f"{number + 1}/{count} matches played", file=sys.stderr, flush=True)


def measure(api_url: str, bot_id: str, limit: int) -> dict[str, Any]:
    """The whole export read through the SDK as `trick-arena export` reads it, then every line checked."""
    from trickarena import ArenaClient

    started = time.perf_counter()
    first_line_s = None
    lines = []
    with ArenaClient(api_url) as api:
        for line in api.export_lines(bot_id, limit=limit):
            if first_line_s is None:
                first_line_s = time.perf_counter() - started
            lines.append(line)
    seconds = time.perf_counter() - started
    size = sum(len(line.encode()) + 1 for line in lines)
    counts = {"records": 0, "replayed": 0, "verified": 0}
    for line in lines:
        for name, value in check_line(line).items():
            counts[name] += value
    return {"lines": len(lines), "bytes": size, "bytes_per_match": round(size / max(1, len(lines))),
            "seconds": round(seconds, 3), "first_line_s": round(first_line_s or 0.0, 3),
            "mb_per_s": round(size / 1e6 / seconds, 1) if seconds else None, **counts,
            "every_record_replays_and_verifies": counts["records"] == counts["replayed"] == counts["verified"]
            and counts["records"] > 0}


@click.command(help=__doc__)
@click.option("--matches", default=100, show_default=True, type=click.IntRange(min=1))
@click.option("--game", default="spot-hearts", show_default=True, type=click.Choice(list(engine.GAMES)),
              help="the default ladder of this game gives the format (4 players, duplicate)")
@click.option("--options", "options_json", default=None, help="game options instead of the ladder's (JSON)")
@click.option("--limit", default=100, show_default=True, type=click.IntRange(1, 100),
              help="matches per page of the export")
def main(matches: int, game: str, options_json: str | None, limit: int) -> None:
    ladder = next(lad for lad in default_ladders() if lad.game == game)
    if options_json is not None:
        try:
            options = json.loads(options_json)
            ladder = LadderConfig(ladder.ladder_id, game, ladder.players, options, house_bots=HOUSE)
        except (ValueError, TypeError) as error:
            raise click.BadParameter(str(error), param_hint="'--options'") from None
    from devstack.fastbot import start_fast_bots

    server = start_throwaway()
    bots, urls = start_fast_bots(1)
    web = None
    try:
        conn = redis.Redis.from_url(server.url, decode_responses=True)
        registry = BotRegistry(conn, PREFIX, allow_private_urls=True)
        record, _token = registry.register("fastbot", [game], urls[0])
        bot_id = record["bot_id"]
        settings = Settings(server.url, PREFIX, allow_private_urls=True)
        began = time.perf_counter()
        play_matches(ArenaStore(conn, PREFIX), settings, ladder, bot_id, urls[0], matches)
        played_s = time.perf_counter() - began
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "REDIS_URL": server.url, "TA_KEY_PREFIX": PREFIX,
               "TA_BIND": f"127.0.0.1:{port}", "TA_LOG_LEVEL": "warning"}
        web = subprocess.Popen(devserve.gunicorn_command(), cwd=REPO_ROOT, env=env)
        api_url = f"http://127.0.0.1:{port}"
        devserve.wait_healthy(api_url, web)
        report = measure(api_url, bot_id, limit)
    finally:
        if web is not None:
            devserve.stop(web)
        bots.terminate()
        server.stop()
    print(json.dumps({"command": " ".join(["python -m tools.export_bench", *sys.argv[1:]]), "game": game,
                      "players": ladder.players, "duplicate": ladder.duplicate,
                      "options": engine.validate_options(game, ladder.players, ladder.options),
                      "matches": matches, "limit": limit, "play_s": round(played_s, 1), **report,
                      "cpus": os.cpu_count(), "load_average_1m": round(os.getloadavg()[0], 2)}, indent=2))
    sys.exit(0 if report["every_record_replays_and_verifies"] and report["lines"] == matches else 1)


if __name__ == "__main__":
    main()

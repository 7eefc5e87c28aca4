"""`python -m tools.decision_log_cost`: what the decision log costs per match, in bytes and in the time of
the write that stores a match's result. Prints JSON. Design: docs/scaling.md#the-decision-log

    python -m tools.decision_log_cost [--matches 10]
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import time
from typing import Any

import click
import redis

from engine import compiled

# The match runner plays with the compiled rules when built, as the arena's workers do (engine/compiled.py).
compiled.activate()

from arena.botserver import BotServerConfig, serve_bot  # noqa: E402
from arena.match import MatchRunner, make_drivers  # noqa: E402
from core import keys  # noqa: E402
from core.arena.latency import percentile  # noqa: E402
from core.arena.model import (  # noqa: E402
    LadderConfig,
    MatchResult,
    MatchSpec,
    Member,
    MemberKind,
    default_ladders,
)
from core.arena.store import ArenaStore  # noqa: E402
from devstack.devredis import start_throwaway  # noqa: E402

WITH, WITHOUT = "with:", "without:"  # the same results stored twice: with their logs, and with none


def play(ladder: LadderConfig, urls: list[str], number: int) -> tuple[MatchSpec, MatchResult]:
    """One match of the ladder's format between four local HTTP bots, played by the arena's runner."""
    entrants = [Member(f"bot{seat}", MemberKind.HTTP, url=url) for seat, url in enumerate(urls)]
    spec = MatchSpec(f"{ladder.ladder_id}-{number}", ladder.ladder_id, ladder.game, ladder.players,
                     ladder.options, seed=1000 + number, duplicate=bool(ladder.duplicate), entrants=entrants,
                     deadline_ms=ladder.deadline_ms, strike_limit=ladder.strike_limit,
                     pre_ratings={m.bot_id: 1500.0 for m in entrants},
                     pre_matches={m.bot_id: 0 for m in entrants})
    return spec, MatchRunner(spec, make_drivers(spec, allow_private=True)).run()


def store_timed(store: ArenaStore, spec: MatchSpec, result: MatchResult) -> float:
    """Milliseconds of the one script that stores the result (ratings, records, replays and the log)."""
    store.create_match(spec)
    doc = store.match(spec.match_id)
    assert doc is not None
    started = time.perf_counter()
    store.apply_result(spec, result, doc)
    return (time.perf_counter() - started) * 1000.0


def measure(conn: redis.Redis, urls: list[str], ladder: LadderConfig, matches: int) -> dict[str, Any]:
    stores = {WITH: ArenaStore(conn, WITH), WITHOUT: ArenaStore(conn, WITHOUT)}
    for store in stores.values():
        store.save_ladder(dataclasses.replace(ladder, house_bots=()))
    times: dict[str, list[float]] = {WITH: [], WITHOUT: []}
    log_bytes, replay_bytes, decisions = [], [], []
    for number in range(matches):
        spec, result = play(ladder, urls, number)
        times[WITH].append(store_timed(stores[WITH], spec, result))
        times[WITHOUT].append(store_timed(stores[WITHOUT], spec, dataclasses.replace(result, decisions={})))
        log_bytes.append(int(conn.strlen(keys.arena_match_log(WITH, spec.match_id))))
        replay_bytes.append(int(conn.strlen(keys.arena_match_games(WITH, spec.match_id))))
        decisions.append(sum(len(rows) for log in result.decisions.values() for _, _, rows in log))
    return {
        "game": ladder.game, "matches": matches, "games_per_match": len(result.records),
        "decisions_per_match": statistics.mean(decisions),
        "log_bytes_per_match": statistics.mean(log_bytes),
        "log_bytes_per_decision": round(sum(log_bytes) / max(1, sum(decisions)), 1),
        "replay_bytes_per_match": statistics.mean(replay_bytes),
        "store_ms": {name.rstrip(":"): {"p50": round(percentile(sorted(values), 0.5), 3),
                                         "p99": round(percentile(sorted(values), 0.99), 3)}
                     for name, values in times.items()},
    }


@click.command()
@click.option("--matches", type=click.IntRange(1, 1000), default=10, show_default=True,
              help="Matches per game.")
def main(matches: int) -> None:
    """Bytes of the decision log per match and the p50/p99 time of the write that stores a match's result,
    with the log and without it, for each game's default 4-player ladder between four local HTTP bots."""
    server = start_throwaway()
    bots = [serve_bot(BotServerConfig(behaviour="good", name=f"bot{seat}")) for seat in range(4)]
    try:
        conn = redis.Redis.from_url(server.url)
        rows = [measure(conn, [bot.url for bot in bots], ladder, matches) for ladder in default_ladders()]
        click.echo(json.dumps({"per_game": rows}, indent=2))
    finally:
        for bot in bots:
            bot.stop()
        server.stop()


if __name__ == "__main__":
    main()
